#!/usr/bin/env bash
# Judge the TypeScript SDK's OAuth client (@modelcontextprotocol/sdk, the
# exact version pinned in interop/ts-auth-client/package.json and its lock
# file) with `mcpconform client` on the authorization scenarios (label
# family: auth), over Streamable HTTP. The client is
# interop/ts-auth-client/client.mjs, which follows the official runner's
# launch contract and scenario ids (see that file and
# interop/ts-auth-client/README.md, which also has its results on the
# official suite). Its npm packages are installed with `npm ci` into
# interop/ts-auth-client/node_modules, which git ignores.
#
# HTTP only: authorization is defined for HTTP transports alone, and the
# harness takes nothing but an http(s):// URL.
#
# usage: interop/ts-auth-client.sh [extra mcpconform client flags, e.g. --spec-version all -v]
# Reports land in mcpconform-results/ts-auth-client/.
# MCPCONFORM_SRC=DIR builds mcpconform from another checkout (e.g. a clean
# worktree) instead of this one.
# Exit: 2 if mcpconform could not run (also when this mcpconform has no
# check labelled family auth); otherwise mcpconform's (1 failed checks,
# 3 unjudged checks, 0 clean).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
src="${MCPCONFORM_SRC:-$root}"
dir="$root/interop/ts-auth-client"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/ts-auth-client"
mkdir -p "$work"

want=$(node -p "require('$dir/package.json').dependencies['@modelcontextprotocol/sdk']")
have=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true)
if [[ "$have" != "$want" ]]; then
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
fi
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)
cd "$root"

out=mcpconform-results/ts-auth-client
echo "== TypeScript SDK $want OAuth client over Streamable HTTP"
rm -f "$out/results.json"
code=0
"$work/mcpconform" client -o "$out" --transport http --label-filter 'family: containsAny auth' "$@" \
  -- node interop/ts-auth-client/client.mjs || code=$?
# Without a fresh results.json mcpconform did not run.
[[ -f "$out/results.json" ]] || exit 2
# Counts per transport and version, then what did not pass, one line each
# (a client's failed checks are findings, not a broken run).
node interop/summarize-results.mjs "$out/results.json" || true
exit "$code"
