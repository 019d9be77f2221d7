#!/usr/bin/env bash
# Idempotent set-up for a fresh machine: npm packages, Debian's Chromium, a pinned k6 built with Go, and a pinned Schemathesis in its
# own Python virtual environment. Fast when already done.
set -euo pipefail
cd "$(dirname "$0")/.."
K6_VERSION="v1.8.1"
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

# 3. k6, pinned, built from the Go module proxy once per machine (kept outside the clone so fresh clones reuse it),
#    linked into .cache/bin/k6 where `ces load` looks for it.
K6_HOME="${CES_CACHE:-$HOME/.cache/ces}/k6-${K6_VERSION}"
if [ "${CES_SKIP_K6:-0}" != 1 ]; then
  if ! [ -x "$K6_HOME/k6" ]; then
    if ! command -v go >/dev/null; then
      log "Go is missing: install Go (https://go.dev) to build k6 ${K6_VERSION}, or set CES_SKIP_K6=1 to skip load tests"; exit 2
    fi
    log "building k6 ${K6_VERSION} with go install (one time per machine, a few minutes)"
    mkdir -p "$K6_HOME"
    GOBIN="$K6_HOME" go install "go.k6.io/k6@${K6_VERSION}"
  fi
  mkdir -p .cache/bin
  ln -sf "$K6_HOME/k6" .cache/bin/k6
fi
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
