#!/usr/bin/env bash
# The main job: set up, then run every suite against the embedded reference implementation; writes reports/index.html.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec node bin/ces.js test "$@"
