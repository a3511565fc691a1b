#!/bin/sh
# Hostile targets: wall time and peak memory of each case.
#
# Runs the hostile-target table of cmd/mcpconform/hostile_test.go (which
# builds mcpconform and internal/hostile itself, runs mcpconform against each
# hostile mode over real pipes and loopback sockets, and asserts each verdict)
# and prints, per case, the exit code, the wall time, mcpconform's peak RSS
# (getrusage of the exited process) and the size of its report directory.
# The test asserts verdicts, memory and report bounds; wall time is only
# measured, here.
#
#   bench/hostile.sh                    # every case
#   bench/hostile.sh 'flood|long-lines' # only the cases whose name matches
set -u
cd "$(dirname "$0")/.." || exit 2
focus=${1:-}
table=$(mktemp)
log=$(mktemp)
trap 'rm -f "$table"' EXIT
set -- ./cmd/mcpconform -run TestMcpconform -count=1 -timeout 60m --ginkgo.label-filter hostile --ginkgo.no-color
[ -n "$focus" ] && set -- "$@" --ginkgo.focus "$focus"
HOSTILE_BENCH=$table go test "$@" >"$log" 2>&1
status=$?
sort "$table"
echo
if [ $status -eq 0 ]; then
	echo "every verdict held"
	rm -f "$log"
else
	echo "some verdicts did not hold (go test exit $status):"
	grep -E 'part\(s\) of the verdict do not hold|^  - |HUNG|did not end by itself' "$log" | grep -v '^  - /' | sed 's/^  \[FAILED\] /\n/'
	echo
	echo "full log: $log"
fi
exit $status
