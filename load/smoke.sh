#!/usr/bin/env bash
# CI smoke of every k6 load scenario against the embedded reference implementation: a few seconds each, thresholds decide.
set -uo pipefail
cd "$(dirname "$0")/.."
status=0
for scenario in rest-read graphql-read availability-polling message-path webhook-fanout; do
  printf '\n=== load smoke: %s ===\n' "$scenario"
  node bin/ces.js load "$scenario" --duration "${CES_SMOKE_DURATION:-5s}" || { echo "FAILED: ces load $scenario (exit $?)"; status=1; }
done
exit $status
