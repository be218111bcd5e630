#!/bin/bash
# A fleet sweep recorded in nbw-results as one run (nbw-results record SWEEP_DIR): one
# figure per part (each drive, each node's drives together, each node's rail, each
# node's drive -> remote share), mode fleet, the judgement kept; two sweeps of one
# generated fleet, the second with a drive and a rail slowed, compared: exactly those
# two parts moved (large), every other part noise; a sweep with other files refused;
# an unfinished sweep recorded as failed; list counts a fleet's nodes beyond 8 and trend
# draws the spread of a run's parts (min, median, max) beyond 8 series.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
NR=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-results" --db "$TMPD/db")
gen() {
	PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
slow = sys.argv[2] == "slow"
Fleet(int(sys.argv[3]) if len(sys.argv) > 3 else 8, 2, 2, pairs="all", seed=3,
      slow_drives=[("node005", 1, 0.5)] if slow else [],
      slow_rails=[("node002", 1, 0.5)] if slow else []).write(sys.argv[1])' "$@"
}
gen "$TMPD/s1" healthy && gen "$TMPD/s2" slow
check_eq "generated" 0 $?
"${NR[@]}" record --note "first sweep" "$TMPD/s1" >"$TMPD/r1" 2>"$TMPD/err"
check_eq "record a sweep: exit" 0 $?
# 8 nodes: 16 drives + 8 together + 8 x 2 rails + 8 drive->remote
check_match "record: one run, a figure per part, each node's provenance said" '^recorded [0-9a-f-]+: 48 figures of 8 nodes, provenance of 0; without provenance: node000,.*,node007, in ' "$(cat "$TMPD/r1")"
"${NR[@]}" record "$TMPD/s2" >"$TMPD/r2" 2>>"$TMPD/err"
a=$(awk '{print $2}' "$TMPD/r1" | tr -d :) b=$(awk '{print $2}' "$TMPD/r2" | tr -d :)
"${NR[@]}" show --json "$a" >"$TMPD/show.json"
check_eq "the run: mode fleet, its rungs" \
	"fleet ['fleet drive', 'fleet drive->remote', 'fleet drives together', 'fleet rail 0', 'fleet rail 1']" \
	"$(json_get "$TMPD/show.json" '"%s %s" % (d["mode"], sorted({f["rung"] for f in d["figures"]}))')"
"${NR[@]}" compare "$a" "$b" --json >"$TMPD/cmp.json"
# The slow drive moves its node's drives together, not the drive -> remote parts it
# feeds (a part's figure is its lower way's median, of shares of the source's drives
# together: node005 sends its share, its partners receive theirs); the slow rail moves
# node002's rail 1 (its partners' medians hold: one low transfer of seven).
check_eq "compare two sweeps: the parts that moved, nothing else" \
	"[('fleet drive', 'node005', 'nvme1n1'), ('fleet drives together', 'node005', None), ('fleet rail 1', 'node002', None)]" \
	"$(json_get "$TMPD/cmp.json" 'sorted((r["rung"], r["node"], r["drive"]) for r in d["figures"] if r["class"] == "large")')"
check_eq "compare: every other part within the noise" 45 \
	"$(json_get "$TMPD/cmp.json" 'len([r for r in d["figures"] if r["class"] == "noise"])')"
check_match "compare: the summary names the part that moved most" 'fleet (drive|rail 1) on node00[25]' \
	"$(json_get "$TMPD/cmp.json" 'd["summary"][0]')"
check_eq "the judgement kept with the run" "[('drive', 'node005'), ('rail', 'node002')]" \
	"$(tail -n1 "$TMPD/db/runs.jsonl" | "$PYTHON3" -c 'import json, sys
d = json.load(sys.stdin)
print(sorted((s["kind"], s["node"]) for s in d["documents"]["judge.json"]["suspects"]))')"
expect_exit 2 "^nbw-results: $TMPD/s1: a fleet sweep is recorded on its own, one run per sweep" \
	"${NR[@]}" record "$TMPD/s1" "$TMPD/s2"
"${NR[@]}" trend "fleet drive" --json >"$TMPD/trend.json"
check_eq "trend of 16 drives: each run's spread (count, min, median, max), not 16 lines" \
	"[(16, 3.5, 3.6, 3.6), (16, 1.8, 3.6, 3.6)]" \
	"$(json_get "$TMPD/trend.json" '[(r["count"], round(r["min"], 1), round(r["median"], 1), round(r["max"], 1)) for r in d["spread"]]')"
if command -v gnuplot >/dev/null; then
	"${NR[@]}" trend "fleet drive" --out "$TMPD/trend.png" >"$TMPD/trend.txt"
	check_match "trend --out: the spread's plot" "plot: $TMPD/trend.png" "$(cat "$TMPD/trend.txt")"
	check_eq "the plot is a PNG" PNG "$(head -c 4 "$TMPD/trend.png" | tail -c 3)"
fi
gen "$TMPD/s12" healthy 12 && "${NR[@]}" record "$TMPD/s12" >/dev/null 2>>"$TMPD/err"
check_match "list: a fleet of 12 counted, one of 8 named" \
	"12 nodes \(node0[0-9]+ \.\. node0[0-9]+\).*node000,node001,node002,node003,node004,node005,node006,node007|node000,node001,node002,node003,node004,node005,node006,node007.*12 nodes \(node0[0-9]+ \.\. node0[0-9]+\)" \
	"$("${NR[@]}" list | tr '\n' ' ')"
# An interrupted sweep: recorded as failed, never compared.
"$PYTHON3" -c 'import json, sys
p = sys.argv[1] + "/sweep.json"; d = json.load(open(p)); d["state"] = "interrupted"
json.dump(d, open(p, "w"))' "$TMPD/s2"
"${NR[@]}" record "$TMPD/s2" >"$TMPD/r3" 2>>"$TMPD/err"
check_match "an interrupted sweep: recorded as failed" \
	"recorded [0-9a-f-]+ as FAILED \\(the sweep is interrupted \\(nbw-fleet run --resume $TMPD/s2\\)\\)" "$(cat "$TMPD/r3")"
finish
