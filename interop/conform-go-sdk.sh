#!/usr/bin/env bash
# The conform package's example: go test in interop/conform-go-sdk, a module
# of its own that judges a go-sdk v1.8.0 server inside its tests.
set -euo pipefail
cd "$(dirname "$0")/conform-go-sdk"
go test -count=1 ./...
