#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: npm packages, Debian's Chromium, then `ces setup` (the compiled JavaScript, the pinned k6, the checks), and a
# pinned Schemathesis in its own Python virtual environment. Fast when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
SCHEMATHESIS_VERSION="4.32.5"
log() { printf 'setup: %s\n' "$*" >&2; }

# 1. npm packages, exactly as the lock file says; node-gyp builds better-sqlite3 against the local Node headers (no download).
if [ -d /usr/include/node ] && [ -z "${npm_config_nodedir:-}" ]; then export npm_config_nodedir=/usr; fi
stamp=node_modules/.ces-lock-stamp
if [ ! -f "$stamp" ] || ! cmp -s package-lock.json "$stamp"; then
  log "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
  cp package-lock.json "$stamp"
fi
node -e "require('better-sqlite3')" 2>/dev/null || { log "rebuilding better-sqlite3"; npm rebuild better-sqlite3 --loglevel=error; }

# 2. Chromium from Debian (Playwright cannot download its own browser here).
if [ ! -x /usr/bin/chromium ]; then
  log "installing Debian's chromium"
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

# 3. The compiled JavaScript (dist/, from the TypeScript: bin/ces.js builds what changed) and the optional parts: `ces setup`
#    finds Chromium and k6 at the pinned version (downloads k6's release, or builds it with Go where the download fails, once per
#    machine into ~/.cache/ces, outside the clone so fresh clones reuse it) and checks the SQLite build. A missing part fails the
#    set-up (exit 2): in CI nothing is skipped silently. CES_SKIP_K6=1 leaves k6 out (no load tests).
parts=sqlite,chromium,k6
if [ "${CES_SKIP_K6:-0}" = 1 ]; then parts=sqlite,chromium; fi
node bin/ces.js setup --only "$parts" >&2 || { log "ces setup: a part is missing (above)"; exit 2; }
# 4. Schemathesis, pinned, from PyPI into its own virtual environment under .cache/ (git-ignored): the project's Schemathesis step
#    (scripts/schemathesis/run.sh) checks the REST API against its OpenAPI document with it.
ST_HOME=.cache/schemathesis
if [ "${CES_SKIP_SCHEMATHESIS:-0}" != 1 ] && [ "$("$ST_HOME/bin/st" --version 2>/dev/null)" != "st, version ${SCHEMATHESIS_VERSION}" ]; then
  command -v python3 >/dev/null || { log "python3 is missing: install Python 3.10+ for Schemathesis, or set CES_SKIP_SCHEMATHESIS=1"; exit 2; }
  log "installing Schemathesis ${SCHEMATHESIS_VERSION} into $ST_HOME (Python virtual environment)"
  rm -rf "$ST_HOME"
  python3 -m venv "$ST_HOME"
  "$ST_HOME/bin/pip" install --quiet --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}"
fi
log "ready"
