#!/bin/bash
# The record and push benchmark (make check-slow; generating the sweep takes a few
# minutes, not timed): a fake sweep of 4096 nodes (tests/py/fleetgen.py: 8 rails, 8
# drives, one drive slowed, every document with the tools' provenance block) recorded
# (timed: its line's size, compact, within the record's 16 MiB, and show --node
# node4000's time, printed; that node's host, kernel, build and drive serials read
# back), then nbw-results export --openmetrics --push to
# Debian's prometheus-pushgateway started here on loopback (a free port, no persistence
# file), timed: the first push and a second that replaces it, each under 30 s (issue
# 62.5). Prints the times. Every node's figures land (their count read back from the
# gateway), each node's verdict too, the slowed drive's node SUSPECT. Skipped (77)
# without the package; a failure in CI (NBW_CI=1).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
PGW=$(command -v prometheus-pushgateway)
if [ -z "$PGW" ]; then
	why="prometheus-pushgateway not installed (Debian: apt-get install prometheus-pushgateway)"
	if [ "${NBW_CI:-0}" = 1 ]; then
		fail "$why"
		finish
		exit 1
	fi
	skip "$why"
fi
PID=
cleanup() {
	[ -n "$PID" ] && kill "$PID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMPD"
}
trap cleanup EXIT
unset NBW_RESULTS NBW_RESULTS_INDEX NBW_RESULTS_TEST_FSTYPE
NR() { "$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" "$@"; }
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(4096, 8, 8, pairs="auto", seed=3, provenance=int(sys.argv[2]),
      slow_drives=[("node1365", 1, 0.5)]).write(sys.argv[1])' \
	"$TMPD/sweep" "$(($(date +%s) - 3600))"
check_eq "the sweep generated" 0 $?
secs() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(date +%s.%N)
NR --db "$TMPD/db" record "$TMPD/sweep" >"$TMPD/rec" 2>&1
rs=$(secs "$t0")
check_match "recorded, every node's provenance" \
	"^recorded .*: 73728 figures of 4096 nodes, provenance of 4096," "$(cat "$TMPD/rec")"
bytes=$(head -n1 "$TMPD/db/runs.jsonl" | wc -c)
t0=$(date +%s.%N)
NR --db "$TMPD/db" show latest --node node4000 >"$TMPD/show" 2>&1
echo "# record of 4096 nodes x 8 rails x 8 drives: line $bytes bytes ($(awk -v b="$bytes" \
	'BEGIN { printf "%.1f", b / 1048576 }') MiB), recorded in $rs s; show --node node4000 in $(secs "$t0") s"
check_eq "the line within the record's 16 MiB" yes "$([ "$bytes" -le $((16 << 20)) ] && echo yes)"
check_match "show --node: the node's host, kernel and build" \
	"^node node4000: PASS, host node4000, kernel 6.1.0-18-amd64, build g1234abc" "$(cat "$TMPD/show")"
check_match "show --node: its drives' serials" "nvme7n1 ACME NVMe 3 firmware [0-9.]+ serial Snode400007" \
	"$(cat "$TMPD/show")"
check_eq "show --node: its 18 figures" 18 "$(grep -c '^fleet .* node4000 ' "$TMPD/show")"
rm -rf "$TMPD/sweep"
GWP=$("$PYTHON3" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$PGW" --web.listen-address="127.0.0.1:$GWP" --persistence.file="" >"$TMPD/pgw.log" 2>&1 &
PID=$!
metrics() {
	"$PYTHON3" -c 'import sys, urllib.request
sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=10).read().decode())' \
		"http://127.0.0.1:$GWP/metrics" 2>/dev/null
}
for _ in $(seq 40); do
	metrics >/dev/null && break
	sleep 0.5
done
for round in first second; do
	t0=$(date +%s.%N)
	NR --db "$TMPD/db" export --openmetrics --push "http://127.0.0.1:$GWP" --timeout 60 \
		2>"$TMPD/push.err"
	rc=$?
	s=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
	echo "# $round push of 4096 nodes: $s s (load $(cut -d' ' -f1 /proc/loadavg)): $(cat "$TMPD/push.err")"
	check_eq "$round push: exit 0" 0 "$rc"
	check_match "$round push: one line, every node" "^nbw-results: pushed 4096 of 4096 nodes \(73728 figures in all\) .* 8 groups" "$(cat "$TMPD/push.err")"
	check_eq "$round push: under 30 s" yes "$(awk -v s="$s" 'BEGIN { print s < 30 ? "yes" : "no: " s }')"
done
metrics >"$TMPD/gw.txt"
check_eq "every figure in the gateway" 73728 "$(grep -c '^nbw_throughput_bytes_per_second{' "$TMPD/gw.txt")"
check_eq "a verdict per node" 4096 "$(grep '^nbw_node_verdict{' "$TMPD/gw.txt" | grep -c '} 1$')"
check_match "the slowed drive's node: SUSPECT" 'node="node1365",verdict="suspect"} 1$' \
	"$(grep '^nbw_node_verdict{.*node="node1365"' "$TMPD/gw.txt")"
finish
