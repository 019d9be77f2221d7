#!/usr/bin/env bash
# The project's tests: type-check, unit tests, every suite against the reference implementation, and the self-test of every deviation.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 2
status=0
step() { printf '\n=== %s ===\n' "$1"; shift; "$@" || { echo "FAILED: $*"; status=1; }; }
step "type-check" npx tsc --noEmit -p .
step "unit tests" node --import tsx --test --test-concurrency=1 test/*.test.ts
step "conformance run against the reference implementation" node bin/ces.js test
step "self-test: every deviation is caught" node bin/ces.js selftest
exit $status
