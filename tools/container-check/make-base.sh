#!/usr/bin/env bash
# Makes a local stand-in for Docker Hub's node:<major>-slim in podman's store, because no registry
# reachable here serves Docker Hub images: Debian bookworm (debootstrap minbase, from Debian's
# mirror), Node's official Linux binary of the release the project pins for the image
# (tools/image-node/node.sh, from the npm registry) with this machine's npm under /usr/local, a `node`
# user with uid 1000 like the official image, and this machine's CA bundle with an npmrc `cafile`
# (package downloads pass through a TLS proxy here, so `npm ci` in the build would otherwise fail with
# SELF_SIGNED_CERT_IN_CHAIN).
#
#   bash tools/container-check/make-base.sh TAG   # e.g. docker.io/library/node:24-slim
#
# Needs root, npm, debootstrap and podman (run.sh installs them). Does nothing when TAG already exists
# and was made from the same Node version (label blog-api.node-version).
set -euo pipefail
tag=${1:?usage: make-base.sh TAG}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

node_bin=$(bash "$(dirname "$0")/../image-node/node.sh")
# node.sh checks that its release is of the Dockerfile's major, the tag run.sh passes
node_version=$("$node_bin" --version)
npm_dir=$(cd "$(dirname "$(readlink -f "$(command -v npm)")")/.." && pwd)
[[ -f $npm_dir/package.json ]] || { echo "make-base: cannot find npm's package next to $(command -v npm)" >&2; exit 1; }
ca_bundle=${CA_BUNDLE:-/etc/ssl/certs/ca-certificates.crt}
[[ -s $ca_bundle ]] || { echo "make-base: no CA bundle at $ca_bundle" >&2; exit 1; }

existing=$(podman image inspect --format '{{ index .Labels "blog-api.node-version" }}' "$tag" 2>/dev/null || true)
if [[ $existing == "$node_version" ]]; then
  echo "make-base: $tag already made (Node $node_version)"
  exit 0
fi

# Node's binary needs only glibc and libstdc++, both in minbase (apt depends on libstdc++6).
ldd "$node_bin" | grep -q 'not found' && { echo "make-base: $node_bin has unresolved libraries" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/node-slim-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
rootfs=$work/rootfs

echo "make-base: debootstrap --variant=minbase bookworm from $mirror"
started=$SECONDS
timeout 600 debootstrap --variant=minbase bookworm "$rootfs" "$mirror" > "$work/debootstrap.log" 2>&1 \
  || { tail -n 20 "$work/debootstrap.log" >&2; echo "make-base: debootstrap failed" >&2; exit 1; }
echo "make-base: debootstrap done in $((SECONDS - started))s"

install -D -m 0755 "$node_bin" "$rootfs/usr/local/bin/node"
mkdir -p "$rootfs/usr/local/lib/node_modules"
cp -a "$npm_dir" "$rootfs/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

# The machine's CA bundle replaces Debian's (minbase has no ca-certificates package anyway).
install -D -m 0644 "$ca_bundle" "$rootfs/etc/ssl/certs/ca-certificates.crt"
mkdir -p "$rootfs/usr/local/etc"
printf 'cafile=/etc/ssl/certs/ca-certificates.crt\n' > "$rootfs/usr/local/etc/npmrc"

# The official image's user: uid and gid 1000, home /home/node.
chroot "$rootfs" groupadd --gid 1000 node
chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node

# What a slim image does not keep: package lists, caches, documentation.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* "$rootfs"/var/log/*.log

"$rootfs/usr/local/bin/node" --version > /dev/null

echo "make-base: importing as $tag"
tar -C "$rootfs" --numeric-owner -cf - . | podman import \
  --change "ENV NODE_VERSION=${node_version#v}" \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL blog-api.node-version=$node_version" \
  --change 'CMD ["node"]' \
  --quiet - "$tag" > /dev/null
echo "make-base: $tag made with Node $node_version in $((SECONDS - started))s"
