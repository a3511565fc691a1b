#!/usr/bin/env bash
# Judge a real OAuth 2.1 authorization server with `mcpconform authserver`:
# interop/fosite-authserver, built on github.com/ory/fosite v0.49.0 (its own
# go.mod, so the project's go.mod never depends on fosite), serving on a
# loopback port with an authorization endpoint that approves at once as a test
# user, PKCE S256 required, and one pre-registered public client
# (mcpconform-public, redirect URI http://127.0.0.1:47831/callback). fosite has
# no dynamic registration, so the client is given with --client-id.
# Judged at 2025-06-18, 2025-11-25 and 2026-07-28 (the versions whose pages ask
# authorization server metadata). interop/AUTHSERVERS.md explains the verdicts.
#
# usage: interop/authservers.sh [extra mcpconform authserver flags, e.g. --scenario ID -v]
# Reports land in mcpconform-results/fosite-authserver/.
# Exit: 2 if the target could not be judged at all (build or start failed,
# mcpconform could not run, or it judged nothing); otherwise mcpconform's exit
# code (1 failed checks, 3 unjudged checks, 0 clean).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/authservers"
mkdir -p "$work"
cd "$root"

echo "== building fosite-authserver (interop/fosite-authserver/go.mod) and mcpconform"
(cd interop/fosite-authserver && go build -o "$work/fosite-authserver" .) || { echo "authservers.sh: fosite-authserver did not build" >&2; exit 2; }
go build -o "$work/mcpconform" ./cmd/mcpconform || { echo "authservers.sh: mcpconform did not build" >&2; exit 2; }

# A loopback port nothing listens on, below the ephemeral range (32768-).
# Whatever binds it next may lose a race; then the run ends with 2.
port=
for ((tries = 0; tries < 200; tries++)); do
  p=$(( 20000 + RANDOM % 12000 ))
  if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then port=$p; break; fi
done
[[ -n "$port" ]] || { echo "authservers.sh: no free loopback port found" >&2; exit 2; }

name=fosite-authserver
out="mcpconform-results/$name"
log="$work/$name.log"
issuer="http://127.0.0.1:$port"
pid=
trap '[[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true' EXIT

echo "== $name: issuer $issuer (target log: $log)"
"$work/fosite-authserver" -http "127.0.0.1:$port" >"$log" 2>&1 &
pid=$!
deadline=$((SECONDS + 30))
until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "authservers.sh: $name exited before listening; its log:" >&2
    tail -20 "$log" >&2
    pid=; exit 2
  fi
  if ((SECONDS >= deadline)); then
    echo "authservers.sh: $name did not listen on 127.0.0.1:$port within 30 s; its log:" >&2
    tail -20 "$log" >&2
    exit 2
  fi
  sleep 0.1
done

code=0
rm -f "$out/results.json"
"$work/mcpconform" authserver --url "$issuer" --client-id mcpconform-public \
  -o "$out" --spec-version 2025-06-18,2025-11-25,2026-07-28 "$@" || code=$?
kill "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
pid=

# Without a fresh results.json mcpconform did not run; a run that passed
# nothing judged nothing (the server did not answer as an authorization
# server at all).
if [[ ! -f "$out/results.json" ]]; then
  echo "authservers.sh: mcpconform wrote no $out/results.json" >&2
  code=2
elif [[ $(node -p "require('$root/$out/results.json').counts.passed === 0" 2>/dev/null || echo true) == true ]]; then
  echo "authservers.sh: mcpconform judged nothing of $name (see $out/summary.md and $log)" >&2
  code=2
fi
node "$root/interop/summarize-results.mjs" "$root/$out/results.json" 2>/dev/null || true
echo "== $name: mcpconform exit code $code"
exit "$code"
