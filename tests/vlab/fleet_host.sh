#!/bin/bash
# vlab fleet on the host (scripts/vlab.d/fleet-host.sh) over a generated sweep (4 nodes,
# one drive of node002 at half, lab.json beside it as fleet-a.sh leaves it): judged
# again there (judge.txt, judge.json, report.html naming the slow drive), recorded in
# the host's nbw-results as one fleet run with the lab's note, its judgement kept; the
# last lines name the judgement, the record, the HTML page and, last, the sweep. A
# record that cannot be made (the record on a 9p mount) is said, with the command
# that records it later, and the exit status is 1.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
HOST=$abs_top_srcdir/scripts/vlab.d/fleet-host.sh
NR=$abs_top_srcdir/scripts/nbw-results
D=$TMPD/nbw-fleet-20260101-120000
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(4, 1, 2, pairs="all", seed=5, slow_drives=[("node002", 1, 0.5)]).write(sys.argv[1])' "$D"
check_eq "generated" 0 $?
echo '{"nodes": {"a": "10.0.2.15"}, "slowed": []}' >"$D/lab.json"
NBW_RESULTS=$TMPD/record GNUPLOT=/nonexistent/gnuplot "$HOST" "$D" >"$TMPD/out" 2>&1
check_eq "exit status" 0 $?
uuid=$(sed -n 's/^recorded \([0-9a-f-]*\): .*/\1/p' "$D/record.txt")
check_match "recorded: one run, a figure per part, each node's provenance said" "^recorded [0-9a-f-]{36}: [0-9]+ figures of [0-9]+ nodes, provenance of [0-9]+.*, in $TMPD/record" \
	"$(cat "$D/record.txt")"
check_eq "the last lines: the judgement, the record, the page, the sweep" \
	"fleet: the judgement: $D/judge.txt (judge.json beside it)
fleet: the record: run $uuid in $TMPD/record/runs.jsonl ($NR show $uuid)
fleet: the report: $D/report.html
fleet: the sweep: $D" "$(tail -n4 "$TMPD/out")"
check_eq "judged on the host: the slow drive, nothing else" "[('drive', 'node002', 'nvme1n1')]" \
	"$(json_get "$D/judge.json" 'sorted((s["kind"], s["node"], s["component"]) for s in d["suspects"])')"
check_match "the judge's text printed" "^nbw-fleet judge: 4 nodes: 3 PASS, 1 SUSPECT, 0 NOT MEASURED" "$(cat "$TMPD/out")"
check_match "the HTML page names the slow drive" "node002" "$(cat "$D/report.html" 2>/dev/null)"
tail -n1 "$TMPD/record/runs.jsonl" >"$TMPD/run.json"
check_eq "the record: this run, mode fleet, the lab's note, the sweep as its source" \
	"$uuid|fleet|vlab fleet: virtual lab (qemu TCG), not hardware figures|['$D']" \
	"$(json_get "$TMPD/run.json" '"%s|%s|%s|%s" % (d["uuid"], d["mode"], d["note"], d["sources"])')"
check_eq "the judgement kept with the run" "[('drive', 'node002')]" \
	"$(json_get "$TMPD/run.json" 'sorted((s["kind"], s["node"]) for s in d["documents"]["judge.json"]["suspects"])')"
check_eq "no log left" "" "$(ls "$D"/*.log 2>/dev/null)"

# The record refused (a record of runs on 9p): said, with the command for later; the
# sweep still judged and named last.
rm -f "$D/record.txt"
NBW_RESULTS=$TMPD/record9p NBW_RESULTS_TEST_FSTYPE=9p GNUPLOT=/nonexistent/gnuplot "$HOST" "$D" >"$TMPD/out" 2>&1
check_eq "a record refused: exit status" 1 $?
check_match "a record refused: said, with the command for later" \
	"^fleet: the record: not recorded: .*9p.* \\(later: $NR record $D\\)$" "$(tail -n3 "$TMPD/out" | head -n1)"
check_eq "a record refused: the page and the sweep still named" "fleet: the report: $D/report.html
fleet: the sweep: $D" "$(tail -n2 "$TMPD/out")"
check_eq "a record refused: nothing written on 9p" "no" "$([ -e "$TMPD/record9p/runs.jsonl" ] && echo yes || echo no)"
check_match "a record refused: its log kept" "9p" "$(cat "$D/record.log" 2>/dev/null)"
finish
