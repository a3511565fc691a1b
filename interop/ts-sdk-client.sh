#!/usr/bin/env bash
# Judge a client on the TypeScript SDK (@modelcontextprotocol/sdk, the exact
# version pinned in interop/ts-sdk-client/package.json and its lock file)
# with `mcpconform client`, over stdio, Streamable HTTP and WebSocket. The
# client is interop/ts-sdk-client/client.mjs, a generic harness that follows
# the official runner's launch contract (see that file and
# interop/CLIENTS.md). Its npm packages are installed with `npm ci` into
# interop/ts-sdk-client/node_modules, which git ignores.
#
# usage: interop/ts-sdk-client.sh [extra mcpconform client flags, e.g. --spec-version all --transport http -v]
# Reports land in mcpconform-results/ts-sdk-client/ (one run over every
# transport; on a Node without any WebSocket client, stdio and http run
# apart into mcpconform-results/ts-sdk-client-{stdio,http}/).
# MCPCONFORM_SRC=DIR builds mcpconform from another checkout (e.g. a clean
# worktree) instead of this one. MCPCONFORM_TS_CLIENT_TASKS=1 makes the
# client declare and serve client-side tasks (2025-11-25 tasks v1).
# Exit: 2 if mcpconform could not run; otherwise the worse of the
# mcpconform exit codes (1 failed checks, 3 unjudged checks, 0 clean).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${MCPCONFORM_SRC:-$root}"
dir="$root/interop/ts-sdk-client"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/ts-sdk-client"
mkdir -p "$work"

want=$(node -p "require('$dir/package.json').dependencies['@modelcontextprotocol/sdk']")
have=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true)
if [[ "$have" != "$want" ]]; then
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
fi
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)
cd "$root"

# The SDK's WebSocketClientTransport uses the global WebSocket: Node 22+ has
# it, Node 20 behind --experimental-websocket.
client=(node)
ws=yes
if ! node -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null; then
  if node --experimental-websocket -e 'process.exit(typeof WebSocket === "function" ? 0 : 1)' 2>/dev/null; then
    client+=(--experimental-websocket)
  else
    ws=no
  fi
fi
client+=(interop/ts-sdk-client/client.mjs)

# run OUT FLAGS...: judge the client into OUT and summarize; a client's failed
# checks are findings, not a broken run. Without a fresh OUT/results.json
# mcpconform did not run: code 2.
codes=()
run() {
  local out=$1 code=0
  shift
  echo "== ${out##*/}: TypeScript SDK $want client ($*)"
  rm -f "$out/results.json"
  "$work/mcpconform" client -o "$out" "$@" -- "${client[@]}" || code=$?
  [[ -f "$out/results.json" ]] || code=2
  node interop/summarize-results.mjs "$out/results.json" 2>/dev/null || true
  codes+=("$code")
}
if [[ $ws == yes ]]; then
  run mcpconform-results/ts-sdk-client --transport all "$@"
else
  echo "note: this Node ($(node --version)) has no WebSocket client; judging stdio and http only" >&2
  run mcpconform-results/ts-sdk-client-stdio --transport stdio "$@"
  run mcpconform-results/ts-sdk-client-http --transport http "$@"
fi

# 2 (could not run) outranks 1 (failed checks), which outranks 3 (unjudged).
for c in 2 1 3; do
  [[ " ${codes[*]} " == *" $c "* ]] && exit "$c"
done
exit 0
