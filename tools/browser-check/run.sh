#!/usr/bin/env bash
# Opens the reference page in headless Chromium and checks that it renders under the server's CSP.
# Installs Debian's chromium when /usr/bin/chromium is missing (root, apt-get), builds, starts a live
# server on 127.0.0.1, runs check.js, stops the server.
#
#   bash tools/browser-check/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tools/lib/install-chromium.sh browser-check

echo "browser-check: building"
npm run --silent build

mkdir -p artifacts/browser-check
ready=$(mktemp)
rm -f "$ready"
LOG_LEVEL=error node tools/live-server/start.js --ready-file "$ready" 2> artifacts/browser-check/server.log &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$ready"' EXIT

for _ in $(seq 1 120); do
  [[ -s $ready ]] && break
  kill -0 "$server" 2>/dev/null || { echo "browser-check: the server did not start"; cat artifacts/browser-check/server.log; exit 1; }
  sleep 1
done
[[ -s $ready ]] || { echo "browser-check: the server did not start within 120 s"; exit 1; }

timeout 180 node tools/browser-check/check.js "$(cat "$ready")"
