#!/usr/bin/env bash
# The project's tests: type-check, unit tests, every suite against the reference implementation, the self-test of every deviation, load smokes.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 2
passed=0; failed=0; failures=()
# Sets CPU to the CPU seconds (user + system) of every finished child process so far: `times` runs in this shell (in a pipe or
# a $(...) it would count a subshell's children) and writes to a file.
cpu_file=$(mktemp); trap 'rm -f "$cpu_file"' EXIT
cpu_now() { times > "$cpu_file"; CPU=$(awk 'END { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$cpu_file"); }
step() {
  local title=$1; shift
  printf '\n=== %s ===\n' "$title"
  local t0=$SECONDS c0; cpu_now; c0=$CPU
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$title"); fi
  cpu_now
  printf '=== %s: %ss (CPU %ss) ===\n' "$title" $((SECONDS - t0)) $((CPU - c0))
}
step "type-check" npx tsc --noEmit -p .
# Unit-test files run several at a time, the longest first (their servers listen on port 0, their reports go to their own
# folders): most of their time is waiting on child processes and real-time limits, not CPU. scripts/unit-tests.mjs says how.
step "unit tests" node --import tsx scripts/unit-tests.mjs
step "conformance run against the reference implementation" node bin/ces.js test
# The load smoke runs alongside the self-test, its output kept apart and printed after: both mostly wait (the self-test used
# 100 s of CPU in 149 s, the smoke 26 s in 43 s), and the self-test's verdicts are deviations caught, not timings of the
# reference implementation. The conformance run and the fuzz keep the machine to themselves.
smoke_out=$(mktemp)
bash -c 'bash load/smoke.sh; rc=$?; printf "\n(the load smoke took %ss, alongside the self-test)\n" "$SECONDS"; exit $rc' > "$smoke_out" 2>&1 & smoke_pid=$!
# One Playwright run; 9 lanes = 9 workers, each with its own embedded stack whose deviation it switches between checks (most of
# the run waits for retries in real time: 6 lanes took 149 s, 9 take about 120 s).
step "self-test: every deviation is caught" node bin/ces.js selftest --no-baseline --parallel 9
smoke_rc=0; wait "$smoke_pid" || smoke_rc=$?
step "load smoke: every k6 scenario for a few seconds (ran alongside the self-test; its CPU is counted there)" bash -c 'cat "$1"; exit "$2"' _ "$smoke_out" "$smoke_rc"
rm -f "$smoke_out"
step "fuzz: generated REST and GraphQL requests against the reference implementation (60 s after a floor of 40 cases per operation)" node bin/ces.js fuzz --budget 60s --seed 20261123
printf '\n'
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "steps: $passed passed, $failed failed"
[ "$failed" = 0 ]
