#!/usr/bin/env bash
# Schemathesis (every check, every phase) against `ces serve`: 0 failures beyond the exceptions listed in hooks.py, or exit 1.
# Usage: scripts/schemathesis/run.sh [--seed N] [--max-examples N] [--max-time S]; CES_SCHEMATHESIS (the `st` command) defaults to
# the pinned one that scripts/setup.sh installs under .cache/.
set -uo pipefail
cd "$(dirname "$0")/../.."
seed=20261123; examples=5; max_time=""
while [ $# -gt 0 ]; do
  case $1 in
    --seed) seed=$2; shift 2;; --max-examples) examples=$2; shift 2;; --max-time) max_time=$2; shift 2;;
    *) echo "run.sh: unknown option $1 (accepted: --seed N, --max-examples N, --max-time S)" >&2; exit 2;;
  esac
done
st=${CES_SCHEMATHESIS:-.cache/schemathesis/bin/st}
[ -x "$st" ] || { echo "run.sh: $st is missing: run scripts/setup.sh (it installs the pinned Schemathesis)" >&2; exit 2; }
work=$(mktemp -d); ready="$work/ready.json"
node bin/ces.js serve --ready-file "$ready" > "$work/serve.log" 2>&1 &
serve=$!
trap 'kill "$serve" 2>/dev/null; wait "$serve" 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 1 120); do [ -s "$ready" ] && break; kill -0 "$serve" 2>/dev/null || break; sleep 0.25; done
[ -s "$ready" ] || { echo "run.sh: ces serve did not start:" >&2; cat "$work/serve.log" >&2; exit 2; }
field() { node -e "process.stdout.write(String(JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'))[process.argv[2]]))" "$ready" "$1"; }
# The document is served behind the API key like every REST route: Schemathesis loads it with the key in X-API-Key.
# The hooks read the client's own ids (websites, skills, groups) for operator bodies through the same key.
export CES_API_KEY=$(field api_key) CES_REST_BASE_URL=$(field rest_base_url) CES_CA_FILE=$(field ca_file)
"$st" --config-file scripts/schemathesis/schemathesis.toml run "$(field rest_base_url)/openapi.json" \
  --header "X-API-Key: $CES_API_KEY" --tls-verify "$(field ca_file)" \
  --checks all --phases examples,coverage,fuzzing,stateful --seed "$seed" --max-examples "$examples" ${max_time:+--max-time "$max_time"} \
  --workers 2 --no-color --report junit --report-dir "${CES_REPORTS_DIR:-reports}/schemathesis"
