#!/usr/bin/env bash
# Judge the real server targets (go-sdk v1.8.0's everything-server over stdio,
# stateful and stateless Streamable HTTP, at 2025-11-25 and 2026-07-28;
# @modelcontextprotocol/server-everything over stdio and Streamable HTTP at
# 2025-11-25, the only one it implements), two protected servers (go-sdk v1.8.0
# and TypeScript SDK 1.32.2 resource servers, judged with mcpconform's own
# issuer: interop/auth-servers.sh), one real authorization server (ory/fosite
# v0.49.0 in interop/fosite-authserver, judged by `mcpconform authserver`:
# interop/authservers.sh) and one real client (go-sdk's
# everything-client on the authorization family), and compare every verdict with the expected
# results checked in under interop/expected/: one line per check,
# "transport version check-id status". A changed verdict fails the run, so a
# change in mcpconform that moves a real target's verdict shows in review.
# This is a CI step of its own (.ci/run); `go test ./...` needs no Node.
#
# usage: interop/expected.sh            compare (exit 1 on any change)
#        interop/expected.sh --update   rewrite interop/expected/ from this run
# Exit: 0 all verdicts as expected, 1 a verdict changed, 2 a target could not
# be judged at all (build, install or start failed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
update=false
case "${1:-}" in
  --update) update=true ;;
  "") ;;
  *) echo "usage: interop/expected.sh [--update]" >&2; exit 2 ;;
esac
command -v node >/dev/null || { echo "interop/expected.sh: node is required (Node 20 or newer)" >&2; exit 2; }

logs="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/logs"
mkdir -p "$logs" interop/expected
# A target's failed checks are findings (exit 1 or 3 of the scripts); only 2
# means it could not be judged.
judge() {
  local name=$1 code=0; shift
  echo "== $name"
  "$@" >"$logs/$name.log" 2>&1 || code=$?
  if ((code == 2)); then
    echo "interop/expected.sh: $name could not be judged (exit 2); its output:" >&2
    tail -40 "$logs/$name.log" >&2
    exit 2
  fi
}
# go-sdk also at 2026-07-28: its stateless server implements it (the stateful
# one does not, and says so in server/discover: one failure, as asked).
judge go-sdk interop/go-sdk-everything.sh --spec-version 2025-11-25,2026-07-28
judge server-everything interop/server-everything.sh
# Protected servers (OAuth resource servers) trusting mcpconform's issuer for
# the run: go-sdk stateful at 2025-06-18 and 2025-11-25, stateless at
# 2026-07-28; the TypeScript SDK at 2025-06-18 and 2025-11-25.
judge auth-servers interop/auth-servers.sh
# A real OAuth 2.1 authorization server (ory/fosite v0.49.0, auto-approving,
# PKCE S256 required, a pre-registered public client) at 2025-06-18,
# 2025-11-25 and 2026-07-28: interop/AUTHSERVERS.md.
judge authservers interop/authservers.sh
# go-sdk's everything-client on the authorization family (the official auth/*
# scenarios it implements, and mcpconform's own, which it does not know by
# name): deterministic flows against in-process fakes.
judge go-sdk-client interop/go-sdk-everything-client.sh --spec-version all --label-filter 'family: containsAny auth'

status=0
for out in go-sdk-stdio go-sdk-http go-sdk-http-stateless server-everything-stdio server-everything-http \
  go-sdk-auth-server go-sdk-auth-server-stateless ts-auth-server fosite-authserver go-sdk-client; do
  results="mcpconform-results/$out/results.json"
  [[ -f "$results" ]] || { echo "interop/expected.sh: no $results" >&2; exit 2; }
  expected="interop/expected/$out.txt"
  actual="$logs/$out.txt"
  node interop/verdicts.mjs "$results" >"$actual"
  if $update; then
    cp "$actual" "$expected"
    echo "   $expected: $(wc -l <"$expected") verdicts written"
  elif [[ ! -f "$expected" ]]; then
    echo "interop/expected.sh: $expected is missing; run interop/expected.sh --update and review it" >&2
    status=1
  elif ! diff -u --label "expected $out" --label "this run" "$expected" "$actual" >"$logs/$out.diff"; then
    echo "VERDICT CHANGED for $out (- expected, + this run):" >&2
    grep '^[-+][^-+]' "$logs/$out.diff" >&2
    status=1
  else
    echo "   $out: $(wc -l <"$expected") verdicts as expected"
  fi
done
if ((status != 0)); then
  echo "interop/expected.sh: verdicts changed. If the change is right (a fixed check, a new one), run" >&2
  echo "  interop/expected.sh --update   and commit interop/expected/ with the change that moved them." >&2
fi
exit "$status"
