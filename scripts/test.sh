#!/usr/bin/env bash
# The project's tests: type-check, unit tests, every suite against the reference implementation, the self-test of every deviation, load smokes.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 2
passed=0; failed=0; failures=()
step() {
  local title=$1; shift
  printf '\n=== %s ===\n' "$title"
  local t0=$SECONDS
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$title"); fi
  printf '=== %s: %ss ===\n' "$title" $((SECONDS - t0))
}
step "type-check" npx tsc --noEmit -p .
# Unit-test files run 3 at a time (their servers listen on port 0, their reports go to their own folders): most of their time is
# waiting on child processes and real-time limits, not CPU.
step "unit tests" node --import tsx --test --test-concurrency=3 test/*.test.ts
step "conformance run against the reference implementation" node bin/ces.js test
# One Playwright run; 6 lanes = 6 workers, each with its own embedded stack whose deviation it switches between checks.
step "self-test: every deviation is caught" node bin/ces.js selftest --no-baseline --parallel 6
step "load smoke: every k6 scenario for a few seconds" bash load/smoke.sh
step "fuzz: generated REST and GraphQL requests against the reference implementation (60 s after a floor of 40 cases per operation)" node bin/ces.js fuzz --budget 60s --seed 20261123
printf '\n'
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "steps: $passed passed, $failed failed"
[ "$failed" = 0 ]
