#!/usr/bin/env bash
# The whole test suite again, on the Node the image runs (tools/image-node/node.sh), as CI's own run
# is on the machine's Node (the oldest supported, package.json's engines). Ends with one line:
#   image-node: Node v24.21.0: <n> passed, 0 failed
set -euo pipefail
cd "$(dirname "$0")/../.."
node_bin=$(bash tools/image-node/node.sh)
# jest and the servers the tests start run on the first node in PATH (#!/usr/bin/env node, process.execPath)
export PATH="$(dirname "$node_bin"):$PATH"
results=artifacts/jest-results-image-node.json
mkdir -p artifacts
status=0
npx jest --json --outputFile="$results" || status=$?
node -e '
const r = require(process.argv[1]);
console.log(`image-node: Node ${process.version}: ${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' "$PWD/$results"
exit $status
