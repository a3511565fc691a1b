#!/usr/bin/env bash
# Self-check of the TypeScript SDK protected MCP server in this folder:
# install the pinned npm packages (npm ci, into node_modules, which git
# ignores) when they are missing or stale, then run selfcheck.mjs, which plays
# mcpconform's authorization server (metadata + ES256 JWKS on a loopback
# port), starts server.mjs against it and prints the status and
# WWW-Authenticate it answers to each minted token.
#
# usage: interop/ts-auth-server/selfcheck.sh [--scopes "mcp:tools"]
# Exit: selfcheck.mjs's (0 all cases as the contract says, 1 some not, 2 could not run).
set -euo pipefail
dir="$(cd "$(dirname "$0")" && pwd)"
want=$(node -p "require('$dir/package.json').dependencies['@modelcontextprotocol/sdk']")
have=$(node -p "require('$dir/node_modules/@modelcontextprotocol/sdk/package.json').version" 2>/dev/null || true)
if [[ "$have" != "$want" ]]; then
  (cd "$dir" && npm ci --no-audit --no-fund >&2)
fi
exec node "$dir/selfcheck.mjs" "$@"
