#!/usr/bin/env bash
# Judge go-sdk v1.8.0's conformance/everything-server with mcpconform, over
# stdio and over Streamable HTTP on loopback. The server is built in a
# throwaway module so the project's go.mod never depends on the go-sdk.
#
# usage: interop/go-sdk-everything.sh [extra mcpconform server flags...]
# Reports land in mcpconform-results/go-sdk-{stdio,http}/.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/go-sdk-v1.8.0"
bin="$work/everything-server"
mkdir -p "$work"
if [[ ! -x "$bin" ]]; then
  (cd "$work" && [[ -f go.mod ]] || go mod init interop.local/gosdk >/dev/null)
  (cd "$work" && go get github.com/modelcontextprotocol/go-sdk/conformance/everything-server@v1.8.0 \
     && go build -o "$bin" github.com/modelcontextprotocol/go-sdk/conformance/everything-server)
fi
cd "$root"
go build -o "$work/mcpconform" ./cmd/mcpconform
status=0
echo "== go-sdk everything-server over stdio"
"$work/mcpconform" server -o mcpconform-results/go-sdk-stdio "$@" --stdio -- "$bin" || status=$?
echo "== go-sdk everything-server over Streamable HTTP (stateful)"
port=$(( 20000 + RANDOM % 20000 ))
"$bin" -http "127.0.0.1:$port" -stateless=false &
pid=$!
trap 'kill "$pid" 2>/dev/null || true' EXIT
# Poll the listener with a deadline (a readiness probe, not a fixed wait).
deadline=$((SECONDS + 20))
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "everything-server exited before listening" >&2; exit 2; }
  ((SECONDS < deadline)) || { echo "everything-server did not listen on :$port within 20 s" >&2; exit 2; }
  sleep 0.1
done
"$work/mcpconform" server -o mcpconform-results/go-sdk-http "$@" --url "http://127.0.0.1:$port/" || status=$?
exit "$status"
