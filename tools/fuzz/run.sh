#!/usr/bin/env bash
# Property-based fuzzing of the live API against its OpenAPI document with schemathesis:
# every operation, every check, as a user and then as an admin, with a fixed seed, a fixed number of
# examples per operation and a time limit. Exits non-zero on any failure.
#
#   bash tools/fuzz/run.sh            # builds, starts a server on 127.0.0.1, fuzzes, stops it
#
# Knobs (environment): FUZZ_MAX_EXAMPLES (default 60), FUZZ_SEED (default 20261123),
# FUZZ_TIME_LIMIT seconds per role (default 240), FUZZ_VENV (default .cache/fuzz-venv).
set -euo pipefail
cd "$(dirname "$0")/../.."

SCHEMATHESIS_VERSION=4.32.5
MAX_EXAMPLES=${FUZZ_MAX_EXAMPLES:-60}
SEED=${FUZZ_SEED:-20261123}
TIME_LIMIT=${FUZZ_TIME_LIMIT:-240}
VENV=${FUZZ_VENV:-$PWD/.cache/fuzz-venv}
REPORTS=$PWD/artifacts/fuzz
mkdir -p "$REPORTS"

if ! "$VENV/bin/st" --version 2>/dev/null | grep -q "$SCHEMATHESIS_VERSION"; then
  echo "fuzz: installing schemathesis $SCHEMATHESIS_VERSION into $VENV"
  python3 -m venv "$VENV"
  timeout 300 "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

echo "fuzz: building"
npm run --silent build

# Admins may register only with whitelisted emails; the fuzzer deletes accounts, so there are spares.
ADMIN_EMAILS=$(seq -f 'fuzz-admin-%g@example.com' 0 199 | paste -sd, -)
ready=$(mktemp)
rm -f "$ready"
# The fuzzer is one client failing many logins on purpose: the login throttle would turn most into 429s.
RATE_LIMIT_MAX=1000000 LOGIN_MAX_FAILURES_PER_IP=1000000 LOGIN_MAX_FAILURES_PER_ACCOUNT=1000000 \
  ADMIN_EMAILS=$ADMIN_EMAILS SITE_URL=https://blog.example LOG_LEVEL=error \
  node tools/live-server/start.js --ready-file "$ready" 2> "$REPORTS/server.log" &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -f "$ready"' EXIT

for _ in $(seq 1 120); do
  [[ -s $ready ]] && break
  kill -0 "$server" 2>/dev/null || { echo "fuzz: the server did not start"; cat "$REPORTS/server.log"; exit 1; }
  sleep 1
done
[[ -s $ready ]] || { echo "fuzz: the server did not start within 120 s"; exit 1; }
BASE_URL=$(cat "$ready")
echo "fuzz: server at $BASE_URL"

status=0
for role in user admin; do
  echo "fuzz: as $role (seed $SEED, $MAX_EXAMPLES examples per operation, ${TIME_LIMIT}s at most)"
  (
    cd tools/fuzz
    FUZZ_BASE_URL=$BASE_URL FUZZ_ROLE=$role FUZZ_ADMIN_EMAILS=$ADMIN_EMAILS \
      PYTHONPATH=. SCHEMATHESIS_HOOKS=fuzz_auth \
      timeout "$TIME_LIMIT" "$VENV/bin/st" --config-file schemathesis.toml run "$BASE_URL/api/v1/openapi.json" \
      --max-examples "$MAX_EXAMPLES" --seed "$SEED" --workers 1 --no-color \
      --generation-database none \
      --report junit --report-junit-path "$REPORTS/$role.junit.xml"
  ) || status=$?
  if [[ $status -ne 0 ]]; then
    echo "fuzz: the $role run failed (exit $status)"
    break
  fi
done
[[ $status -ne 0 ]] || echo "fuzz: passed as user and as admin (seed $SEED, reports in artifacts/fuzz)"
exit "$status"
