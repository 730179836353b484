#!/usr/bin/env bash
# Installs Debian's chromium (root, apt-get) when /usr/bin/chromium is missing; the browser checks
# (tools/browser-check, tools/spa-check) run it through tools/lib/chromium.js.
#
#   bash tools/lib/install-chromium.sh NAME     (NAME prefixes the one line it prints)
set -euo pipefail
if [[ ! -x ${CHROMIUM_PATH:-/usr/bin/chromium} ]]; then
  echo "${1:-chromium}: installing Debian's chromium"
  timeout 600 apt-get update -qq
  DEBIAN_FRONTEND=noninteractive timeout 600 apt-get install -y -qq chromium > /dev/null
fi
