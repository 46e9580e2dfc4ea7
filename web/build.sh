#!/usr/bin/env bash
# Builds the web UI into brain/api/web_dist (what `brain serve` answers at /), or into
# $BRAIN_WEB_OUT when set (make dist: a staging folder, so the checkout's bundle is left alone).
# Steps: Node >= 18 (the system's, else Node 22 from the npm registry, as lsp/vscode does),
# npm ci from the committed lockfile (skipped when node_modules matches it), esbuild bundle.
#   bash web/build.sh              build
#   bash web/build.sh --if-needed  build only when a source is newer than the built app
#   bash web/build.sh --check      also typecheck (tsc --strict) and run the unit tests
# Idempotent; safe on a clean clone.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
DIST=../brain/api/web_dist/index.html
log() { printf '[brain-web] %s\n' "$*"; }

if [[ "${1:-}" == "--if-needed" && -f "$DIST" ]] && [[ -z "$(find src index.html build.mjs package-lock.json ../graphql -newer "$DIST" -print -quit)" ]]; then
  log "up to date: brain/api/web_dist"
  exit 0
fi

NODE_VERSION=22.23.3
node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }
system_node="$(command -v node || true)"
if [[ -z "$system_node" ]]; then
  echo "web/build.sh: Node.js (18 or newer) and npm are needed to build the web UI: install them (e.g. apt-get install nodejs npm) and run make web" >&2
  exit 1
fi
if [[ "$(node_major "$system_node")" -lt 18 ]]; then
  platform="$("$system_node" -p 'process.platform + "-" + process.arch')"
  dir="$PWD/.tools/node-$NODE_VERSION"
  NODE_BIN="$dir/node_modules/node-$platform/bin/node"
  if [[ ! -x "$NODE_BIN" ]]; then
    log "fetching node-$platform@$NODE_VERSION from the npm registry"
    mkdir -p "$dir" && echo '{"private": true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
      --loglevel=error "node-$platform@$NODE_VERSION" >/dev/null
  fi
  export PATH="$(dirname "$NODE_BIN"):$PATH"
fi

stamp=node_modules/.brain-lock.sha256
lock_sum="$(node -p 'require("crypto").createHash("sha256").update(require("fs").readFileSync("package-lock.json")).digest("hex")')"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" ]]; then
  :
else
  log "npm ci (node $(node --version))"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$lock_sum" >"$stamp"
fi

if [[ "${1:-}" == "--check" ]]; then
  log "typecheck (tsc --noEmit, strict)"
  npx --no-install tsc --noEmit -p .
  log "unit tests"
  node build.mjs --tests
  node --test --test-reporter=spec out/test/
fi

log "bundle -> ${BRAIN_WEB_OUT:-brain/api/web_dist}"
node build.mjs
