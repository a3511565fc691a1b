#!/usr/bin/env bash
# Judge go-sdk v1.8.0's conformance/everything-client with `mcpconform client`
# on the official client scenarios (label origin: official), the ones it
# knows by id; go-sdk-client.sh judges go-sdk's client on the others.
# The client is built in a throwaway module (shared with
# go-sdk-everything.sh) so the project's go.mod never depends on the go-sdk.
#
# HTTP only: the everything-client takes exactly one argument and always
# dials it with mcp.StreamableClientTransport. Given the stdio relay command
# line it POSTs to the command as if it were a URL ("unsupported protocol
# scheme"), and a ws:// URL the same way; both exit 1 before connecting, so
# those runs would judge nothing about the client. See interop/CLIENTS.md.
#
# usage: interop/go-sdk-everything-client.sh [extra mcpconform client flags, e.g. --spec-version all -v]
# Reports land in mcpconform-results/go-sdk-client/.
# MCPCONFORM_SRC=DIR builds mcpconform from another checkout (e.g. a clean
# worktree) instead of this one.
# Exit: mcpconform's (0 clean, 1 failed checks, 2 could not run, 3 unjudged).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${MCPCONFORM_SRC:-$root}"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/go-sdk-v1.8.0"
bin="$work/everything-client"
pkg=github.com/modelcontextprotocol/go-sdk/conformance/everything-client
mkdir -p "$work"
if [[ ! -x "$bin" ]]; then
  (
    cd "$work"
    [[ -f go.mod ]] || go mod init interop.local/gosdk >/dev/null
    go get "$pkg@v1.8.0"
    go build -o "$bin" "$pkg"
  )
fi
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)
cd "$root"
out=mcpconform-results/go-sdk-client
echo "== go-sdk v1.8.0 everything-client over Streamable HTTP"
rm -f "$out/results.json"
code=0
"$work/mcpconform" client -o "$out" --transport http --label-filter 'origin: containsAny official' "$@" -- "$bin" || code=$?
[[ -f "$out/results.json" ]] || exit 2
# Counts per transport and version, then what did not pass, one line each
# (a client's failed checks are findings, not a broken run).
if command -v node >/dev/null; then
  node "$root/interop/summarize-results.mjs" "$root/$out/results.json" || true
fi
exit "$code"
