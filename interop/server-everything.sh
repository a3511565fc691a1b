#!/usr/bin/env bash
# Judge @modelcontextprotocol/server-everything (the TypeScript SDK's demo
# server, which implements 2025-11-25 tasks v1) with mcpconform at
# 2025-11-25, over stdio and over Streamable HTTP. The npm package lives in a
# throwaway directory, never in this repository or its go.mod.
#
# usage: interop/server-everything.sh [extra mcpconform server flags, e.g. --scenario ID -v]
# Reports land in mcpconform-results/server-everything-{stdio,http}/.
# Exit: 2 if mcpconform could not run; otherwise the worse of the two
# mcpconform exit codes (1 failed checks, 3 unjudged checks, 0 clean).
set -euo pipefail

# Newest release at the time of writing; it runs on Node 20 (its dependencies ask for Node >= 18).
version=2026.8.31
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/server-everything"
pkg="$work/node_modules/@modelcontextprotocol/server-everything"
entry="$pkg/dist/index.js"
config="$root/interop/server-everything.yaml"

installed=$(node -p "require('$pkg/package.json').version" 2>/dev/null || true)
if [[ "$installed" != "$version" ]]; then
  mkdir -p "$work"
  npm install --prefix "$work" --no-audit --no-fund "@modelcontextprotocol/server-everything@$version" >&2
fi
cd "$root"
go build -o "$work/mcpconform" ./cmd/mcpconform

# simulate-research-query, the only task tool, takes ~4 s and is polled every
# 1 s, which is too close to the default 5 s wait for one answer. Flags given
# to this script come later and so win.
judge=("$work/mcpconform" server --spec-version 2025-11-25 --config "$config" --response-timeout 10s)

# Private network namespaces with only loopback up: the server's HTTP mode
# listens on every interface, and gzip-file-as-resource would fetch from the
# internet if called; inside, nothing can leave the machine.
netns() { unshare -n -- bash -c 'ip link set lo up && exec "$@"' netns "$@"; }

# Runs inside a namespace: start the HTTP server, wait for its port with a
# deadline, judge it, stop it. The namespace is private, so the port is free.
http_run='
set -euo pipefail
port=3001 entry=$1 log=$2; shift 2
PORT=$port node "$entry" streamableHttp >"$log" 2>&1 &
pid=$!
trap "kill $pid 2>/dev/null || true" EXIT
deadline=$((SECONDS + 20))
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  kill -0 "$pid" 2>/dev/null || { echo "server-everything exited before listening; see $log" >&2; exit 2; }
  ((SECONDS < deadline)) || { echo "server-everything did not listen on :$port within 20 s; see $log" >&2; exit 2; }
  sleep 0.1
done
"$@" --url "http://127.0.0.1:$port/mcp"
'

# run OUT CMD...: run CMD (which writes its report to OUT) in a namespace and
# list what did not pass: a target's failed checks are findings, not a broken
# run. Without a fresh OUT/results.json mcpconform did not run: code 2.
codes=()
run() {
  local out=$1 code=0; shift
  echo "== ${out##*/}: server-everything $version"
  rm -f "$out/results.json"
  netns "$@" || code=$?
  [[ -f "$out/results.json" ]] || code=2
  node -e '
    for (const s of require(process.argv[1]).scenarios) for (const c of s.checks)
      if (["failed", "warning", "errored"].includes(c.status))
        console.log(`  ${c.status.toUpperCase()} ${c.level} ${c.id}: ${(c.message || "").split("\n").join(" / ").slice(0, 240)}`);
  ' "$root/$out/results.json" 2>/dev/null || true
  codes+=("$code")
}

out=mcpconform-results/server-everything-stdio
run "$out" "${judge[@]}" -o "$out" "$@" --stdio -- node "$entry" stdio
out=mcpconform-results/server-everything-http
run "$out" bash -c "$http_run" http_run "$entry" "$work/http-server.log" "${judge[@]}" -o "$out" "$@"

echo "== mcpconform exit codes: stdio ${codes[0]}, http ${codes[1]}"
# 2 (could not run) outranks 1 (failed checks), which outranks 3 (unjudged).
for c in 2 1 3; do
  [[ " ${codes[*]} " == *" $c "* ]] && exit "$c"
done
exit 0
