#!/usr/bin/env bash
# Builds a release locally, as a tag would, and proves it: GoReleaser's
# snapshot (every archive of .goreleaser.yaml and checksums.txt), the OCI
# image from its Linux binaries (release/image), and the GitHub Action's
# install step downloading this machine's archive from a loopback server and
# verifying it. Nothing is published.
#
# usage: release/check.sh   (from anywhere; writes dist/ at the repository root)
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
goreleaser() { go tool -modfile=release/go.mod goreleaser "$@"; }

goreleaser check
goreleaser release --snapshot --clean --skip=publish
version=$(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' dist/metadata.json | head -n 1)
[[ -n $version ]] || { echo "release/check.sh: no version in dist/metadata.json" >&2; exit 1; }
echo "== archives of $version"
for os in linux darwin windows; do
  for arch in amd64 arm64; do
    ext=tar.gz
    [[ $os == windows ]] && ext=zip
    f=dist/mcpconform_${version}_${os}_${arch}.$ext
    [[ -f $f ]] || { echo "release/check.sh: missing $f" >&2; exit 1; }
    grep -q "  ${f#dist/}\$" dist/checksums.txt || { echo "release/check.sh: $f not in checksums.txt" >&2; exit 1; }
    ls -l "$f"
  done
done
(cd dist && sha256sum --check --ignore-missing checksums.txt)

echo "== OCI image"
(cd release && go test -count=1 ./...)
(cd release && go run ./image -dist ../dist -version "$version" -out ../dist/oci)
du -sh dist/oci

echo "== the Action's install step against these archives"
serve=$(mktemp -d)
mkdir -p "$serve/download/v$version"
cp dist/*.tar.gz dist/*.zip dist/checksums.txt "$serve/download/v$version/"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server --bind 127.0.0.1 --directory "$serve" "$port" >/dev/null 2>&1 &
server=$!
trap 'kill $server 2>/dev/null || true; rm -rf "$serve"' EXIT
for _ in $(seq 50); do
  curl --silent --fail "http://127.0.0.1:$port/download/v$version/checksums.txt" >/dev/null && break
  sleep 0.1 # polling a readiness probe, bounded by the loop
done
runner=$(mktemp -d)
out=$(MCPCONFORM_RELEASES="http://127.0.0.1:$port" INPUT_VERSION="v$version" INPUT_FROM_SOURCE=false RUNNER_TEMP="$runner" \
  action/install.sh)
echo "$out"
grep -q "verified against checksums.txt" <<<"$out"
"$runner/mcpconform-bin/mcpconform" version | grep -q "$version" || { echo "release/check.sh: the installed binary is not $version" >&2; exit 1; }
rm -rf "$runner"
echo "release/check.sh: ok ($version)"
