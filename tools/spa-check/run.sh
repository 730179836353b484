#!/usr/bin/env bash
# Browser check of the example SPA (examples/spa/) against a live API, in headless Chromium: same-site
# (sign-up, blog list and tag filter, refresh through the cookie, logout all work) and cross-site (the cookie is dropped,
# refresh answers 401: the documented failure). Installs Debian's chromium when /usr/bin/chromium is
# missing (root, apt-get), builds the API, runs check.js (which starts the API and the SPA's server).
#
#   bash tools/spa-check/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."

bash tools/lib/install-chromium.sh spa-check

echo "spa-check: building"
timeout 300 npm run --silent build

timeout 300 node tools/spa-check/check.js
