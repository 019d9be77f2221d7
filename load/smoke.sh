#!/usr/bin/env bash
# CI smoke of every k6 load scenario against the embedded reference implementation: a few seconds each, thresholds decide.
# Four scenarios run at once (each with its own embedded stack; their thresholds have a margin of 10× and more on a loaded
# 2-core machine), then availability-polling alone: its 1 s ± 10 % interval (LOAD-POLL-01) is the one figure a busy machine can
# move. Each scenario's output is printed whole, in this order, once it has ended.
set -uo pipefail
cd "$(dirname "$0")/.."
duration="${CES_SMOKE_DURATION:-5s}"
logs=$(mktemp -d); trap 'rm -rf "$logs"' EXIT
status=0
run() { node bin/ces.js load "$1" --duration "$duration" > "$logs/$1.log" 2>&1; echo $? > "$logs/$1.rc"; }
show() {
  printf '\n=== load smoke: %s ===\n' "$1"
  cat "$logs/$1.log"
  local rc; rc=$(cat "$logs/$1.rc")
  if [ "$rc" != 0 ]; then echo "FAILED: ces load $1 (exit $rc)"; status=1; fi
}
together=(rest-read graphql-read message-path webhook-fanout)
for scenario in "${together[@]}"; do run "$scenario" & done
wait
for scenario in "${together[@]}"; do show "$scenario"; done
run availability-polling
show availability-polling
exit $status
