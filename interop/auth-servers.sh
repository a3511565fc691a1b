#!/usr/bin/env bash
# Judge two real protected MCP servers (OAuth 2.1 resource servers) with
# mcpconform, each started against the authorization server mcpconform serves
# for the run (--auth-listen): interop/go-sdk-auth-server (go-sdk v1.8.0 behind
# auth.RequireBearerToken) and interop/ts-auth-server (TypeScript SDK 1.32.2
# behind requireBearerAuth). Both find the issuer's jwks_uri lazily, on the
# first token, so each target starts first, pointed at the issuer address the
# judge is about to serve. Runs, all over Streamable HTTP on loopback:
#   go-sdk-auth-server            stateful,  2025-06-18 and 2025-11-25
#   go-sdk-auth-server-stateless  -stateless, 2026-07-28 (go-sdk serves
#                                 2026-07-28 only from a stateless server)
#   ts-auth-server                stateful,  2025-06-18 and 2025-11-25 (the TS
#                                 SDK implements no 2026-07-28)
# The go-sdk target is built from its own go.mod (so the project's go.mod
# never depends on go-sdk) into a throwaway directory; the TS target gets
# `npm ci` when its node_modules is missing.
#
# usage: interop/auth-servers.sh [extra mcpconform server flags, e.g. --scenario ID -v]
# Reports land in mcpconform-results/{go-sdk-auth-server,go-sdk-auth-server-stateless,ts-auth-server}/.
# Exit: 2 if a target could not be judged at all (build, install or start
# failed, mcpconform could not run, or it judged nothing: e.g. the target did
# not trust the issuer); otherwise the worse of mcpconform's exit codes
# (1 failed checks, 3 unjudged checks, 0 clean).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/auth-servers"
mkdir -p "$work"
cd "$root"

echo "== building go-sdk-auth-server (interop/go-sdk-auth-server/go.mod) and mcpconform"
(cd interop/go-sdk-auth-server && go build -o "$work/go-sdk-auth-server" .) || { echo "auth-servers.sh: go-sdk-auth-server did not build" >&2; exit 2; }
go build -o "$work/mcpconform" ./cmd/mcpconform || { echo "auth-servers.sh: mcpconform did not build" >&2; exit 2; }
ts_dir="$root/interop/ts-auth-server"
if [[ ! -f "$ts_dir/node_modules/@modelcontextprotocol/sdk/package.json" ]]; then
  echo "== npm ci in interop/ts-auth-server"
  (cd "$ts_dir" && npm ci --no-audit --no-fund >&2) || { echo "auth-servers.sh: npm ci failed in interop/ts-auth-server" >&2; exit 2; }
fi

# free_port VAR: set VAR to a loopback port nothing listens on (and not one
# taken already in this run). Whatever binds it next may lose a race; then
# that run ends with 2.
taken=" "
free_port() {
  local p tries=0
  while ((tries++ < 200)); do
    p=$(( 20000 + RANDOM % 12000 )) # below the ephemeral range (32768-)
    [[ "$taken" == *" $p "* ]] && continue
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      taken+="$p "
      printf -v "$1" %s "$p"
      return 0
    fi
  done
  echo "auth-servers.sh: no free loopback port found" >&2
  return 1
}

pid=
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true' EXIT

# run NAME SPEC_VERSIONS CMD...: start CMD (a target; {port} and {issuer} in
# its arguments are replaced) on a free loopback port, wait for its listener
# with a deadline, judge it into mcpconform-results/NAME with mcpconform's
# issuer on another free port, stop it by its PID, and list what did not
# pass. Sets the run's code in codes[].
codes=()
names=()
run() {
  local name=$1 versions=$2 code=0 port iport a log
  shift 2
  names+=("$name")
  free_port port && free_port iport || { codes+=(2); return; }
  local issuer="http://127.0.0.1:$iport" cmd=()
  for a in "$@"; do
    a=${a//\{port\}/$port}
    cmd+=("${a//\{issuer\}/$issuer}")
  done
  log="$work/$name.log"
  local out="mcpconform-results/$name"
  echo "== $name: target on 127.0.0.1:$port, issuer $issuer (target log: $log)"
  "${cmd[@]}" >"$log" 2>&1 &
  pid=$!
  local deadline=$((SECONDS + 30))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "auth-servers.sh: $name exited before listening; its log:" >&2
      tail -20 "$log" >&2
      pid=; codes+=(2); return
    fi
    if ((SECONDS >= deadline)); then
      echo "auth-servers.sh: $name did not listen on 127.0.0.1:$port within 30 s; its log:" >&2
      tail -20 "$log" >&2
      kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
      pid=; codes+=(2); return
    fi
    sleep 0.1
  done
  rm -f "$out/results.json"
  "$work/mcpconform" server -o "$out" --url "http://127.0.0.1:$port/mcp" --auth-listen "127.0.0.1:$iport" \
    --spec-version "$versions" "${extra[@]}" || code=$?
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  pid=
  # Without a fresh results.json mcpconform did not run; a run that passed
  # nothing and left checks unjudged judged nothing (the handshake was
  # refused: the target does not trust the issuer, or did not start right).
  if [[ ! -f "$out/results.json" ]]; then
    code=2
  elif [[ $(node -p "const c = require('$root/$out/results.json').counts; c.passed === 0 && c.errored > 0" 2>/dev/null || echo true) == true ]]; then
    echo "auth-servers.sh: mcpconform judged nothing of $name (see $out/summary.md and $log)" >&2
    code=2
  fi
  node "$root/interop/summarize-results.mjs" "$root/$out/results.json" 2>/dev/null || true
  codes+=("$code")
}

extra=("$@")
run go-sdk-auth-server 2025-06-18,2025-11-25 \
  "$work/go-sdk-auth-server" -http '127.0.0.1:{port}' -issuer '{issuer}'
run go-sdk-auth-server-stateless 2026-07-28 \
  "$work/go-sdk-auth-server" -http '127.0.0.1:{port}' -issuer '{issuer}' -stateless
run ts-auth-server 2025-06-18,2025-11-25 \
  node "$ts_dir/server.mjs" --port '{port}' --issuer '{issuer}'

summary=
for i in "${!names[@]}"; do summary+=" ${names[$i]} ${codes[$i]},"; done
echo "== mcpconform exit codes:${summary%,}"
# 2 (could not be judged) outranks 1 (failed checks), which outranks 3 (unjudged).
for c in 2 1 3; do
  [[ " ${codes[*]} " == *" $c "* ]] && exit "$c"
done
exit 0
