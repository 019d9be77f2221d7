#!/usr/bin/env bash
# The quick tier for contributors (`npm run test:quick`): the type-check and the unit tests that start no server (scripts/unit-tests.mjs
# --quick), under 2 minutes; `npm test` stays the whole suite and what CI runs. Each step prints its time.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
npx tsc --noEmit -p . || { echo "test:quick: the type-check failed"; exit 1; }
echo "type-check: $((SECONDS - t0)) s"
node scripts/unit-tests.mjs --quick || { echo "test:quick: a unit test failed ($((SECONDS - t0)) s)"; exit 1; }
echo "test:quick: passed in $((SECONDS - t0)) s (npm test runs the whole suite)"
