#!/usr/bin/env bash
# Judge go-sdk v1.8.0's client with `mcpconform client` on mcpconform's own
# client scenarios (label origin: mcpconform), through interop/go-sdk-client:
# a harness on go-sdk's mcp.Client that follows the official launch contract
# and makes the calls an mcpconform scenario lists in MCP_CONFORMANCE_CONTEXT.
# The official scenarios are go-sdk's own everything-client's affair (it knows
# them by id): go-sdk-everything-client.sh. The harness is a module of its own, so the
# project's go.mod never depends on go-sdk. go-sdk v1.8.0 has no WebSocket
# client transport: stdio and HTTP only.
#
# usage: interop/go-sdk-client.sh [extra mcpconform client flags, e.g. --spec-version all]
# Reports land in mcpconform-results/go-sdk-client-harness{,-no-sampling}/.
# MCPCONFORM_SRC=DIR builds mcpconform from another checkout.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${MCPCONFORM_SRC:-$root}"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/go-sdk-client"
mkdir -p "$work"
(cd "$root/interop/go-sdk-client" && go build -o "$work/go-sdk-client" .)
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)
cd "$root"
status=0
for variant in default no-sampling; do
  out=mcpconform-results/go-sdk-client-harness
  env=()
  if [[ $variant == no-sampling ]]; then
    # The same client without the sampling capability (and handler): what
    # go-sdk does when a server asks for an input type it did not declare.
    out=$out-no-sampling
    env=(GO_SDK_CLIENT_NO_SAMPLING=1)
  fi
  echo "== go-sdk v1.8.0 client harness ($variant) over stdio and Streamable HTTP"
  code=0
  env "${env[@]}" "$work/mcpconform" client -o "$out" --transport stdio,http --label-filter 'origin: containsAny mcpconform' "$@" -- "$work/go-sdk-client" || code=$?
  if command -v node >/dev/null && [[ -f "$out/results.json" ]]; then
    node "$root/interop/summarize-results.mjs" "$root/$out/results.json" || true
  fi
  (( code > status )) && status=$code
done
exit "$status"
