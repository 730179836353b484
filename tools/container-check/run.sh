#!/usr/bin/env bash
# The container check: builds the project's own Dockerfile with podman, runs the image against the
# embedded database on this host, and checks what operators rely on (docs/container-check.md):
#   /readyz 200; a registration and a blog with its banner work; the process runs as a non-root user;
#   the HEALTHCHECK's command succeeds inside the container; SIGTERM lets a request in flight finish
#   and the process exits 0; no secret and no .env in the image; its size.
#
#   bash tools/container-check/run.sh      (as root, or with sudo: installs podman when missing)
#
# Installs podman, runc and debootstrap when missing (Debian, bounded), makes the local node:<major>-slim
# once (make-base.sh), and caches only outside the repository (podman's own store; its configuration
# in ~/.cache/blog-api-container-check). Logs of each step go to artifacts/container-check/. Skips, with one line, only where podman cannot run at all.
set -euo pipefail
cd "$(dirname "$0")/../.."

say() { echo "container-check: $*"; }
skip() { say "SKIPPED: podman cannot run here ($*); nothing about the image was checked"; exit 0; }
fail() { say "FAILED: $*" >&2; exit 1; }

IMAGE=localhost/blog-api:check
# the base the Dockerfile names (node:<major>-slim), made locally by make-base.sh
BASE=docker.io/library/$(awk '$1 == "FROM" { print $2; exit }' Dockerfile)
CACHE=${CONTAINER_CHECK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/blog-api-container-check}

# ---- root, then podman, runc, debootstrap ----
as_root=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo > /dev/null 2>&1 && sudo -n true 2> /dev/null && as_root="sudo -n"
  # debootstrap (the base image) and podman as set up here (runc, cgroupfs) need root
  [[ -n $as_root ]] || skip "not root and no password-less sudo"
fi
LOGS=artifacts/container-check
mkdir -p "$CACHE" "$LOGS"
: > "$LOGS/podman.log"
missing=()
for tool in podman runc debootstrap; do command -v "$tool" > /dev/null 2>&1 || missing+=("$tool"); done
if [[ ${#missing[@]} -gt 0 ]]; then
  command -v apt-get > /dev/null 2>&1 || skip "${missing[*]} missing, and no apt-get to install them"
  say "installing ${missing[*]} (Debian)"
  install_tools() {
    timeout 300 $as_root apt-get update -qq -o DPkg::Lock::Timeout=120 \
      && DEBIAN_FRONTEND=noninteractive timeout 600 $as_root apt-get install -y -qq -o DPkg::Lock::Timeout=120 \
        --no-install-recommends podman runc debootstrap uidmap fuse-overlayfs > "$LOGS/apt.log" 2>&1
  }
  # a second try: another apt run on the machine may clean the archives this one just downloaded
  # a failed install is a failure, not a skip: podman does run on these machines once installed
  install_tools || { sleep 5; install_tools; } || fail "installing ${missing[*]} failed: $(tail -n 1 "$LOGS/apt.log")"
fi

# What these machines need (docs/container-check.md): runc with cgroupfs (crun refuses hybrid
# cgroups), no default ulimits (setrlimit is refused), host networking, chroot isolation for builds.
export CONTAINERS_CONF=$CACHE/containers.conf
cat > "$CONTAINERS_CONF" <<'EOF'
[containers]
default_ulimits = []

[engine]
cgroup_manager = "cgroupfs"
runtime = "runc"
events_logger = "file"
EOF
podman() { timeout "${PODMAN_TIMEOUT:-120}" $as_root env CONTAINERS_CONF="$CONTAINERS_CONF" podman "$@"; }
podman info > "$LOGS/podman-info.log" 2>&1 || skip "podman info failed: $(tail -n 1 "$LOGS/podman-info.log")"
say "$(podman --version), runtime runc, cgroupfs"

# ---- the base image, then the project's Dockerfile as it is ----
timeout 900 $as_root env CONTAINERS_CONF="$CONTAINERS_CONF" bash tools/container-check/make-base.sh "$BASE"

previous=$(podman image inspect --format '{{.Id}}' "$IMAGE" 2> /dev/null || true)
say "building the Dockerfile (--format docker keeps its HEALTHCHECK)"
started=$SECONDS
PODMAN_TIMEOUT=900 podman build --format docker --network host --isolation chroot --cgroup-manager cgroupfs \
  --pull=never -t "$IMAGE" . > "$LOGS/build.log" 2>&1 \
  || { tail -n 30 "$LOGS/build.log"; fail "podman build failed (log: $LOGS/build.log)"; }
build_seconds=$((SECONDS - started))
current=$(podman image inspect --format '{{.Id}}' "$IMAGE")
# the image this build replaced is left untagged: remove it, so reruns do not pile images up
[[ -n $previous && $previous != "$current" ]] && { podman rmi "$previous" > /dev/null 2>&1 || true; }
image_bytes=$(podman image inspect --format '{{.Size}}' "$IMAGE")
image_mib=$((image_bytes / 1024 / 1024))
say "built in ${build_seconds}s: $IMAGE, ${image_mib} MiB"

# ---- nothing secret in the image ----
podman image inspect --format '{{json .Config.Env}}' "$IMAGE" > "$LOGS/env.json"
say "image environment: $(cat "$LOGS/env.json")"
grep -qiE 'SECRET|TOKEN|PASSWORD|PASSWD|MONGODB_URI|REDIS_URL|CLOUDINARY|API_KEY' "$LOGS/env.json" \
  && fail "the image's environment names a secret: $(cat "$LOGS/env.json")"
podman history --no-trunc --format '{{.CreatedBy}}' "$IMAGE" > "$LOGS/history.txt"
grep -qiE '(SECRET|TOKEN|PASSWORD|API_KEY)[A-Z_]*=' "$LOGS/history.txt" \
  && fail "a build step sets a secret: $(grep -iE '(SECRET|TOKEN|PASSWORD|API_KEY)[A-Z_]*=' "$LOGS/history.txt" | head -n 1)"
[[ $(podman image inspect --format '{{.Config.User}}' "$IMAGE") == node ]] || fail "the image's USER is not node"
healthcheck=$(podman image inspect --format '{{json .Config.Healthcheck}}' "$IMAGE")
[[ $healthcheck == *readyz* ]] || fail "the image has no HEALTHCHECK on /readyz: $healthcheck"
# Files: no .env anywhere, no private keys or npm credentials, and /app holds only what runs.
podman run --rm --network host --user root --entrypoint sh "$IMAGE" -c '
  find / -xdev \( -name ".env" -o -name ".env.*" -o -name "id_rsa*" -o -name "id_ed25519*" -o -name "*.key" \) -print 2>/dev/null
  grep -rlsE "_authToken|_auth *=" /root /home /app/.npmrc /usr/local/etc/npmrc /etc/npmrc 2>/dev/null
  ls -A /app | tr "\n" " "' > "$LOGS/files.txt" 2>> "$LOGS/podman.log"
app_listing=$(tail -n 1 "$LOGS/files.txt")
secret_files=$(head -n -1 "$LOGS/files.txt")
[[ -z $secret_files ]] || fail "secret-looking files in the image: $(echo "$secret_files" | tr '\n' ' ')"
[[ $app_listing == "dist node_modules package-lock.json package.json uploads " ]] || fail "/app holds more than it should: $app_listing"
say "no secret in the image's environment, history or files; /app: $app_listing"

# ---- a database on the host, the image against it ----
# (podman's complaints that it has no systemd to time the HEALTHCHECK go to podman.log: the check
# runs the HEALTHCHECK itself, below)
say "building dist/ for the embedded database"
timeout 300 npm run --silent build
ready=$(mktemp)
rm -f "$ready"
node tools/container-check/database.js --ready-file "$ready" 2> "$LOGS/database.log" &
database=$!
container=blog-api-check-$$
cleanup() {
  podman rm -f "$container" > /dev/null 2>&1 || true
  kill "$database" 2> /dev/null || true
  wait "$database" 2> /dev/null || true
  rm -f "$ready"
}
trap cleanup EXIT
for _ in $(seq 1 120); do
  [[ -s $ready ]] && break
  kill -0 "$database" 2> /dev/null || { cat "$LOGS/database.log"; fail "the database did not start"; }
  sleep 1
done
[[ -s $ready ]] || fail "the database did not start within 120 s"
say "database: $(tail -n 1 "$LOGS/database.log" | sed 's/^\[database\] //')"

port=$(node -e "require('./tools/lib/server').freePort().then(console.log)")
admin=admin@container-check.example
random_secret() { node -e "console.log(require('crypto').randomBytes(32).toString('hex'))"; }
# Fresh secrets for this run, passed at run time as an operator would; never written anywhere.
podman run -d --name "$container" --network host \
  -e PORT="$port" -e MONGODB_URI="$(cat "$ready")/container-check" \
  -e JWT_ACCESS_SECRET="$(random_secret)" -e JWT_REFRESH_SECRET="$(random_secret)" \
  -e PUBLIC_URL="http://127.0.0.1:$port" -e ADMIN_EMAILS="$admin" \
  -e SHUTDOWN_TIMEOUTS=readiness=2s,grace=15s \
  "$IMAGE" > /dev/null 2>> "$LOGS/podman.log" || fail "podman run failed: $(tail -n 1 "$LOGS/podman.log")"
base_url=http://127.0.0.1:$port

timeout 180 node tools/container-check/check.js "$base_url" "$admin" \
  || { podman logs "$container" 2>&1 | tail -n 20; fail "the API in the container did not behave"; }

uid=$(podman exec "$container" sh -c "awk '/^Uid:/ { print \$2 }' /proc/1/status")
[[ $uid != 0 ]] || fail "the API runs as root in the container"
say "the API process runs as uid $uid ($(podman exec "$container" sh -c 'id -un'))"

podman healthcheck run "$container" > "$LOGS/healthcheck.log" 2>&1 \
  || fail "the HEALTHCHECK command failed: $(cat "$LOGS/healthcheck.log")"
say "HEALTHCHECK command succeeds inside the container"

# SIGTERM while a request is in flight: it must still be answered, then the process exits 0 by itself.
timeout 60 $as_root env CONTAINERS_CONF="$CONTAINERS_CONF" node tools/container-check/drain.js "$base_url" "$container" \
  || { podman logs "$container" 2>&1 | tail -n 20; fail "SIGTERM did not drain the request in flight"; }
exit_code=$(PODMAN_TIMEOUT=30 podman wait "$container") || fail "the container did not stop within 30 s of SIGTERM"
[[ $exit_code == 0 ]] || { podman logs "$container" 2>&1 | tail -n 20; fail "the container exited $exit_code after SIGTERM"; }
podman logs "$container" 2>&1 | grep -q 'shutdown complete' || fail "no \"shutdown complete\" in the container's log"
say "SIGTERM: the request in flight was answered, \"shutdown complete\", exit 0"

say "passed: image ${image_mib} MiB built in ${build_seconds}s; readyz 200, register 201, blog upload 201, uid $uid, HEALTHCHECK ok, SIGTERM drained with exit 0, no secret or .env in the image"
