#!/usr/bin/env bash
# Self-check of the go-sdk v1.8.0 protected MCP server in this folder: build
# it and ./mint into a throwaway directory, then let mint play mcpconform's
# authorization server (metadata + ES256 JWKS on a loopback port), start the
# target against it and print the status and WWW-Authenticate it answers to
# each minted token (see mint/main.go).
#
# usage: interop/go-sdk-auth-server/selfcheck.sh [-scopes "mcp:tools"]
# Exit: mint's (0 all cases as the contract says, 1 some not, 2 could not run).
set -euo pipefail
dir="$(cd "$(dirname "$0")" && pwd)"
work="${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/go-sdk-auth-server"
mkdir -p "$work"
(cd "$dir" && go build -o "$work/go-sdk-auth-server" . && go build -o "$work/mint" ./mint)
exec "$work/mint" "$@" -- "$work/go-sdk-auth-server" -http '{addr}' -issuer '{issuer}' -scopes '{scopes}'
