#!/usr/bin/env bash
# The project's tests: type-check, unit tests, every suite against the reference implementation, Schemathesis against the OpenAPI
# document, the self-test of every deviation, fuzz, load smokes.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 2
passed=0; failed=0; failures=()
# Sets CPU to the CPU seconds (user + system) of every finished child process so far: `times` runs in this shell (in a pipe or
# a $(...) it would count a subshell's children) and writes to a file.
cpu_file=$(mktemp); beside_dir=$(mktemp -d); trap 'rm -rf "$cpu_file" "$beside_dir"' EXIT
cpu_now() { times > "$cpu_file"; CPU=$(awk 'END { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); s += t[1] * 60 + t[2] } printf "%d", s }' "$cpu_file"); }
# `beside NAME STEP cmd...` starts a command in the background beside the step named STEP, its output kept; `beside_result NAME`
# (a step's command) waits for it, prints its output and answers its exit code. Its time and CPU are counted in STEP.
beside() { local name=$1 where=$2; shift 2; echo "$where" > "$beside_dir/$name.where"; ( "$@" > "$beside_dir/$name.log" 2>&1; echo $? > "$beside_dir/$name.rc" ) & echo $! > "$beside_dir/$name.pid"; }
beside_result() {
  wait "$(cat "$beside_dir/$1.pid")"; cat "$beside_dir/$1.log"
  echo "($1 ran beside the $(cat "$beside_dir/$1.where"), from its start: its time and CPU are counted in that step)"; return "$(cat "$beside_dir/$1.rc")"
}
step() {
  local title=$1; shift
  printf '\n=== %s ===\n' "$title"
  local t0=$SECONDS c0; cpu_now; c0=$CPU
  if "$@"; then passed=$((passed + 1)); else failed=$((failed + 1)); failures+=("$title"); fi
  cpu_now
  printf '=== %s: %ss (CPU %ss) ===\n' "$title" $((SECONDS - t0)) $((CPU - c0))
}
# The type-check (about 3 s) beside the unit tests, which it would otherwise precede; its result is reported after them.
beside typecheck "unit tests" npx tsc --noEmit -p .
# Unit-test files run compiled (the code the package ships), several at a time, the longest first (their servers listen on port 0, their reports go to their own
# folders): most of their time is waiting on child processes and real-time limits, not CPU. scripts/unit-tests.mjs says how, and
# prints each file's CPU time. --elsewhere: the path-sensitive files run from a copy of the checkout at another depth (its own
# build, about 5 s; the files run there instead of here, beside the others).
# The unit tests that passed are recorded (CES_UNIT_PASSED): the self-test's --require-proofs credits an entry of
# fixtures/proofs.json only when its test passed in this same run.
export CES_UNIT_PASSED="$beside_dir/unit-tests-passed.json"
step "unit tests (compiled: dist/test; all but the few that run beside the self-test)" node scripts/unit-tests.mjs --elsewhere --main
step "type-check" beside_result typecheck
# The OpenAPI document and the server agree as Schemathesis judges them: every check, every phase, a fixed seed, 5 fuzzed cases
# per operation beside the coverage phase's ~4,000 (30-40 s; Schemathesis's own CPU, about 25 s, is most of it); only the
# exceptions listed with their reason in scripts/schemathesis/hooks.py are accepted. Beside the conformance run (its own `ces
# serve`; no real-time limit of its own to miss: about 40 s of CPU in 80 s), which alone keeps one core of two busy; its output
# printed when it has ended.
beside schemathesis "conformance run" bash scripts/schemathesis/run.sh --seed 20261123
# --no-allure: the Allure report is the main job's (`npm run main`); its making is tested by test/report-allure.test.ts (generation,
# masking, labels), check-evidence and report-run (Allure beside the other reports of a run). Here it cost about 10 CPU-s and 5 s
# (the reporter in every worker, then `allure generate`) and proved nothing about the checks.
step "conformance run against the reference implementation" node bin/ces.js test --no-allure
step "schemathesis: the REST API against its OpenAPI document" beside_result schemathesis
# The fuzzer runs beside the self-test: the self-test mostly waits for retries in real time (about 100 s of CPU in 120 s on 2
# cores). Checked: with the fuzzer beside it, the self-test's matrix (`--matrix`: which checks catch which deviation) is the
# same 318 (deviation, check) pairs as alone, so the load catches nothing by itself. The fuzzer's budget is wall time, so it ends
# on time either way (its event-loop figures then include the self-test's load). Its output is printed when it has ended.
# 20 s: the floor of 40 cases for each of the 48 operations takes about 18 s on an idle machine (the floor is reached whatever
# the budget), and each further second is about 1 CPU-s of the step's budget; a longer run is `ces fuzz --budget 2m`.
beside fuzz self-test node bin/ces.js fuzz --budget 20s --seed 20261123
# The package as a user gets it, beside the self-test too (no real-time limit of its own to miss; about 65 s of CPU in 60 s):
# packed, installed into an empty folder, `ces` run from there (version, embedded runs, a connector check and its re-run
# command, every `ces` command of docs/ci.md). Its output is printed when it has ended.
beside package self-test node scripts/package-test.mjs
# The unit-test files of scripts/unit-tests.mjs BESIDE (heavy on CPU, no proof of fixtures/proofs.json, no time limit that load
# could make them miss), beside the self-test too: the unit-test step keeps both cores busy, the self-test leaves one mostly idle
# while its retry checks wait. Their passes are not recorded for --require-proofs (they prove none). They start 40 s after the
# self-test: its webhook retry checks all begin in its first seconds and judge retry delays to the second (+1.5 s), and under
# the start of everything at once one came 0.7 s late (a whole-suite run of alternatives then ran again, about 70 s).
beside unit-beside self-test bash -c 'sleep 40; exec env -u CES_UNIT_PASSED node scripts/unit-tests.mjs --beside'
# One Playwright run; 12 lanes = 12 workers, each with its own embedded stack whose deviation it switches between checks (most of
# the run waits for retries in real time: 6 lanes took 149 s, 9 about 122 s; since the checks run as copies in one project,
# lib/selftest-copies.ts, alone on the idle machine: 9 lanes 213 s and 164 CPU-s, 12 lanes 188 s and 149 CPU-s, 16 lanes 179 s
# and 194 CPU-s). --wire: the wire faults in the same run, on
# the same stacks (each behind its wire proxy) and lanes, so their real-time waits overlap the deviations' (docs/wire.md).
# --require-proofs: a MUST clause that no assertion of its own proved (deviation, wire fault, or fixtures/proofs.json) fails it.
step "self-test: every deviation and every wire fault is caught" node bin/ces.js selftest --no-baseline --parallel 12 --wire --require-proofs
step "fuzz: generated REST and GraphQL requests against the reference implementation (a floor of 40 cases per operation, then up to 20 s in all)" beside_result fuzz
# After the two above: run alongside the 9-lane self-test (which then used both cores) the polling smoke missed its 1 s ± 10 %
# (LOAD-POLL-01). load/smoke.sh runs four scenarios at once, then the polling one alone.
step "load smoke: every k6 scenario for a few seconds" bash load/smoke.sh
step "package test: npm pack, install into an empty folder, ces from there" beside_result package
step "unit tests beside the self-test (scripts/unit-tests.mjs BESIDE)" beside_result unit-beside
printf '\n'
for f in "${failures[@]}"; do echo "FAILED: $f"; done
echo "steps: $passed passed, $failed failed"
[ "$failed" = 0 ]
