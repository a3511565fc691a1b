#!/usr/bin/env bash
# Judge go-sdk v1.8.0's conformance/everything-server with mcpconform, over
# stdio and over Streamable HTTP on loopback. The server is built in a
# throwaway module so the project's go.mod never depends on the go-sdk.
#
# usage: interop/go-sdk-everything.sh [extra mcpconform server flags...]
# Reports land in mcpconform-results/go-sdk-{stdio,http,http-stateless}/.
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
# http_run NAME STATELESS: serve Streamable HTTP on a loopback port (stateful
# or stateless), wait for the listener with a deadline (a readiness probe, not
# a fixed wait), judge it into mcpconform-results/go-sdk-NAME, stop it.
pid=
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true' EXIT
http_run() {
  local name=$1 stateless=$2 port code=0
  shift 2
  # A port below the ephemeral range (32768-), where outgoing connections
  # take theirs; a port someone bound meanwhile makes the server exit, and
  # it starts again on another (five tries).
  local tries=0 listening=false
  while ((tries++ < 5)) && ! $listening; do
    port=$(( 20000 + RANDOM % 12000 ))
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && continue # taken
    "$bin" -http "127.0.0.1:$port" -stateless="$stateless" &
    pid=$!
    local deadline=$((SECONDS + 20))
    until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && listening=true; do
      if ! kill -0 "$pid" 2>/dev/null; then wait "$pid" 2>/dev/null || true; pid=; break; fi
      ((SECONDS < deadline)) || { echo "everything-server did not listen on :$port within 20 s" >&2; exit 2; }
      sleep 0.1
    done
  done
  $listening || { echo "everything-server exited before listening, five times" >&2; exit 2; }
  "$work/mcpconform" server -o "mcpconform-results/go-sdk-$name" "$@" --url "http://127.0.0.1:$port/" || code=$?
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  return "$code"
}
echo "== go-sdk everything-server over Streamable HTTP (stateful)"
http_run http false "$@" || status=$?
# go-sdk serves 2026-07-28 only from a stateless server: a stateful one
# leaves it out of server/discover's supportedVersions and refuses its
# requests with -32022, so only this run judges 2026-07-28 over HTTP.
echo "== go-sdk everything-server over Streamable HTTP (stateless)"
http_run http-stateless true "$@" || status=$?
exit "$status"
