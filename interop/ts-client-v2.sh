#!/usr/bin/env bash
# Judge a client on the newest TypeScript SDK client package
# (@modelcontextprotocol/client, the exact version pinned in
# interop/ts-client-v2/package.json and its lock file) with `mcpconform
# client`, over stdio and Streamable HTTP (the package has no WebSocket
# transport), with the SDK's 2026-07-28 version negotiation on: pinned at
# 2026-07-28, `auto` (probe, then fall back) at the other versions. The
# client is interop/ts-client-v2/client.mjs (see that file and
# interop/CLIENTS.md); its npm packages are installed with `npm ci` into
# interop/ts-client-v2/node_modules, which git ignores.
#
# usage: interop/ts-client-v2.sh [extra mcpconform client flags, e.g. --spec-version all -v]
# Reports land in mcpconform-results/ts-client-v2/. MCPCONFORM_SRC=DIR builds
# mcpconform from another checkout. MCPCONFORM_TS_CLIENT_NEGOTIATION=auto|legacy|pin
# overrides the negotiation mode.
# Exit: 2 if mcpconform could not run; otherwise its exit code (1 failed
# checks, 3 unjudged checks, 0 clean).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${MCPCONFORM_SRC:-$root}"
dir="$root/interop/ts-client-v2"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/ts-client-v2"
mkdir -p "$work"

want=$(node -p "require('$dir/package.json').dependencies['@modelcontextprotocol/client']")
have=$(node -p "require('$dir/node_modules/@modelcontextprotocol/client/package.json').version" 2>/dev/null || true)
if [[ "$have" != "$want" ]]; then
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
fi
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)
cd "$root"

out=mcpconform-results/ts-client-v2
echo "== ts-client-v2: TypeScript SDK client $want ($*)"
rm -f "$out/results.json"
code=0
"$work/mcpconform" client -o "$out" --transport stdio,http "$@" -- node interop/ts-client-v2/client.mjs || code=$?
[[ -f "$out/results.json" ]] || code=2
node interop/summarize-results.mjs "$out/results.json" 2>/dev/null || true
exit "$code"
