#!/usr/bin/env bash
# Installs mcpconform for the GitHub Action (action.yml). By default it
# downloads the released binary for the runner's OS and architecture and
# verifies it against the release's checksums.txt before it is used: the
# release named by the version input, else the action's own ref when that is
# a release tag (vX.Y.Z), else the latest release. With from-source true it
# builds the action's own checkout instead (or go-installs the version input
# when one is given). Writes the binary's path as the step output "bin" and
# puts its directory on the job's PATH, so later steps can call mcpconform
# (e.g. report merge).
#
# MCPCONFORM_RELEASES is where releases are fetched from (default the
# project's GitHub releases); the tests point it at archives built locally.
set -euo pipefail

version=${INPUT_VERSION:-}
from_source=${INPUT_FROM_SOURCE:-false}
releases=${MCPCONFORM_RELEASES:-https://github.com/mcpconform/mcpconform/releases}
dest=${RUNNER_TEMP:-$(mktemp -d)}/mcpconform-bin
mkdir -p "$dest"
fail() { echo "mcpconform install: $*" >&2; exit 2; }

exe=mcpconform
case ${RUNNER_OS:-$(uname -s)} in
  Linux | linux) os=linux ;;
  macOS | Darwin) os=darwin ;;
  Windows | MINGW* | MSYS* | CYGWIN*) os=windows exe=mcpconform.exe ;;
  *) fail "no release for this OS (${RUNNER_OS:-$(uname -s)}): set from-source: true" ;;
esac
case ${RUNNER_ARCH:-$(uname -m)} in
  X64 | x86_64 | amd64) arch=amd64 ;;
  ARM64 | aarch64 | arm64) arch=arm64 ;;
  *) fail "no release for this architecture (${RUNNER_ARCH:-$(uname -m)}): set from-source: true" ;;
esac

sha256() {
  if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi
}

download_release() {
  # The release: by tag, or the latest one (whose checksums.txt names the
  # archives, and so the version).
  local tag=$1 base work sums line want name got
  if [[ -n $tag ]]; then base=$releases/download/$tag; else base=$releases/latest/download; fi
  work=$(mktemp -d)
  local why
  why=$(curl --fail --silent --show-error --location --proto '=https,http' --max-time 120 -o "$work/checksums.txt" "$base/checksums.txt" 2>&1) ||
    fail "cannot download $base/checksums.txt (is ${tag:-the latest release} a release of mcpconform?): ${why#curl: }"
  local ext=tar.gz
  [[ $os == windows ]] && ext=zip
  line=$(grep -E "  mcpconform_[^ ]+_${os}_${arch}\.${ext}\$" "$work/checksums.txt" | head -n 1) ||
    fail "checksums.txt of ${tag:-the latest release} lists no archive for ${os}/${arch}"
  want=${line%% *}
  name=${line##* }
  why=$(curl --fail --silent --show-error --location --proto '=https,http' --max-time 300 -o "$work/$name" "$base/$name" 2>&1) ||
    fail "cannot download $base/$name: ${why#curl: }"
  got=$(sha256 "$work/$name")
  [[ $got == "$want" ]] || fail "$name: checksum mismatch (want $want from checksums.txt, got $got): not installed"
  echo "mcpconform install: $name verified against checksums.txt (sha256 $got)"
  if [[ $ext == zip ]]; then
    unzip -q -o "$work/$name" "$exe" -d "$dest"
  else
    tar -xzf "$work/$name" -C "$dest" "$exe"
  fi
  chmod +x "$dest/$exe"
  rm -rf "$work"
}

if [[ $from_source == true ]]; then
  if [[ -z $version ]]; then
    (cd "${GITHUB_ACTION_PATH:-$(dirname "$0")/..}" && go build -o "$dest/$exe" ./cmd/mcpconform)
  else
    GOBIN=$dest go install "github.com/mcpconform/mcpconform/cmd/mcpconform@$version"
  fi
elif [[ $from_source != false ]]; then
  fail "from-source must be true or false, got '$from_source'"
else
  if [[ -z $version && ${ACTION_REF:-} =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then
    version=$ACTION_REF
  fi
  [[ -z $version || $version =~ ^v[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$ ]] ||
    fail "version '$version' is no release tag (vX.Y.Z): name one, or set from-source: true to build a branch or commit"
  download_release "$version"
fi
"$dest/$exe" version
if [[ -n ${GITHUB_OUTPUT:-} ]]; then echo "bin=$dest/$exe" >>"$GITHUB_OUTPUT"; fi
if [[ -n ${GITHUB_PATH:-} ]]; then echo "$dest" >>"$GITHUB_PATH"; fi
