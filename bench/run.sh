#!/usr/bin/env bash
# Whole runs: wall time and peak memory of the full server and client suites
# against the reference peers, and of selftest (README, Performance).
#
#   bench/run.sh              # the working tree
#   bench/run.sh REV          # a git revision, built in a throwaway worktree
#                             # (figures "before" a change: bench/run.sh main~10)
#   BENCH_RUNS=3 bench/run.sh # each command three times
#
#   BENCH_COMMANDS="server client" bench/run.sh   # leave selftest out
#   BENCH_COMMANDS=gosdk bench/run.sh            # go-sdk v1.8.0's everything-server
#                             # over Streamable HTTP at every version (built
#                             # as interop/go-sdk-everything.sh builds it)
#
# Peak RSS is GNU time's maximum resident set size: that of the largest
# process of the run (mcpconform itself; the stdio reference processes it
# starts are smaller). Needs GNU time as /usr/bin/time (Debian: apt-get
# install time). The figures depend on the machine and on what else runs:
# the script prints the core count and the load average with them; compare
# figures taken back to back on a quiet machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! /usr/bin/time -v true >/dev/null 2>&1; then
	echo "bench/run.sh: GNU time is missing as /usr/bin/time (Debian: apt-get install time)" >&2
	exit 2
fi
rev=${1:-}
runs=${BENCH_RUNS:-1}
work=$(mktemp -d)
src=.
cleanup() {
	if [ -n "$rev" ]; then git worktree remove --force "$work/src" >/dev/null 2>&1 || true; fi
	rm -rf "$work"
}
trap cleanup EXIT
if [ -n "$rev" ]; then
	git worktree add --detach "$work/src" "$rev" >/dev/null 2>&1 || { echo "bench/run.sh: no revision $rev" >&2; exit 2; }
	src=$work/src
fi
label=$(git -C "$src" rev-parse --short HEAD)
[ -z "$rev" ] && [ -n "$(git status --porcelain --untracked-files=no)" ] && label="$label+changes"
(cd "$src" && go build -o "$work/mcpconform" ./cmd/mcpconform)

echo "mcpconform $label · $(nproc) cores · load average $(cut -d' ' -f1-3 /proc/loadavg) · $(date -u '+%Y-%m-%d %H:%M UTC')"
printf '%-58s %5s %9s %10s  %s\n' command exit wall "peak RSS" checks
measure() {
	local name=$1
	shift
	for _ in $(seq "$runs"); do
		local out=$work/out timing=$work/time code=0
		rm -rf "$work/reports"
		(cd "$work" && /usr/bin/time -v -o "$timing" "$work/mcpconform" "$@" >"$out" 2>&1) || code=$?
		local wall rss checks
		wall=$(sed -n 's/^\tElapsed (wall clock) time (h:mm:ss or m:ss): //p' "$timing")
		rss=$(sed -n 's/^\tMaximum resident set size (kbytes): //p' "$timing")
		checks=$(grep -Eo '^[0-9]+ checks' "$out" | tail -1 | cut -d' ' -f1 || true)
		printf '%-58s %5s %9s %7.1f MB  %s\n' "$name" "$code" "$wall" "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')" "${checks:--}"
	done
}
for c in ${BENCH_COMMANDS:-server client selftest}; do
	case $c in
	server | client)
		measure "$c --reference --transport all --spec-version all" $c --reference --transport all --spec-version all -o "$work/reports"
		;;
	selftest) measure selftest selftest ;;
	gosdk)
		gosdk=${MCPCONFORM_INTEROP_DIR:-${TMPDIR:-/tmp}/mcpconform-interop}/go-sdk-v1.8.0
		if [ ! -x "$gosdk/everything-server" ]; then
			mkdir -p "$gosdk"
			(cd "$gosdk" && { [ -f go.mod ] || go mod init interop.local/gosdk >/dev/null; } &&
				go get github.com/modelcontextprotocol/go-sdk/conformance/everything-server@v1.8.0 >/dev/null 2>&1 &&
				go build -o everything-server github.com/modelcontextprotocol/go-sdk/conformance/everything-server)
		fi
		port=$((20000 + RANDOM % 20000))
		"$gosdk/everything-server" -http "127.0.0.1:$port" >/dev/null 2>&1 &
		server=$!
		deadline=$((SECONDS + 20))
		until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
			((SECONDS < deadline)) || { echo "bench/run.sh: everything-server did not listen within 20 s" >&2; kill "$server"; exit 2; }
			sleep 0.1
		done
		measure "go-sdk everything-server over HTTP, --spec-version all" server --url "http://127.0.0.1:$port/" --spec-version all -o "$work/reports"
		kill "$server" 2>/dev/null || true
		wait "$server" 2>/dev/null || true
		;;
	*) echo "bench/run.sh: unknown command $c in BENCH_COMMANDS (server, client, selftest, gosdk)" >&2; exit 2 ;;
	esac
done
