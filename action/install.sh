#!/usr/bin/env bash
# Installs mcpconform for the GitHub Action (action.yml): builds the action's
# own checkout, so a workflow pinned to a tag runs that tag's code, or, when
# INPUT_VERSION names one, go-installs that version. Writes the binary's path
# as the step output "bin" and puts its directory on the job's PATH, so later
# steps can call mcpconform (e.g. report merge).
set -euo pipefail

version=${INPUT_VERSION:-}
dest=${RUNNER_TEMP:-$(mktemp -d)}/mcpconform-bin
mkdir -p "$dest"
if [[ -z $version ]]; then
  (cd "${GITHUB_ACTION_PATH:-$(dirname "$0")/..}" && go build -o "$dest/mcpconform" ./cmd/mcpconform)
else
  GOBIN=$dest go install "github.com/mcpconform/mcpconform/cmd/mcpconform@$version"
fi
"$dest/mcpconform" version
if [[ -n ${GITHUB_OUTPUT:-} ]]; then echo "bin=$dest/mcpconform" >>"$GITHUB_OUTPUT"; fi
if [[ -n ${GITHUB_PATH:-} ]]; then echo "$dest" >>"$GITHUB_PATH"; fi
