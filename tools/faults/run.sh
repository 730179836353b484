#!/usr/bin/env bash
# The fault suite (tools/faults/run.ts): the real API with its database cut, silenced, killed, and its
# storage hanging, trickling or full. Scenarios by name as arguments, all by default.
# Knobs: FAULTS_SOAK_SECONDS (120), FAULTS_CUTS (10), FAULTS_RECOVERY_BOUND_MS (20000),
# FAULTS_OUTAGE_ANSWER_BOUND_MS (9000), FAULTS_SCHEDULED_POSTS (1000). Needs tools/mongo-standin/target/classpath.txt (.ci/run makes it).
set -euo pipefail
cd "$(dirname "$0")/../.."
exec node --require tsx/cjs tools/faults/run.ts "$@"
