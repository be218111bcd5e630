#!/bin/bash
# One node can neither veto nor stall nbw-fleet run (the fakes of tests/fleet/fakes over
# the ssh stand-in). A node answering --version with another version is skipped, NOT
# MEASURED with the reason ("suite version X, the sweep's Y"), and the others are
# measured; versions in a tie still refuse. A node whose probe hangs (fake/hang.NODE:
# 60 s) in a sweep planned at 13 s (its preflight and judgement in) and admitted by
# --max-time 0:14 (Slurm's MM:SS): the run keeps its
# deadline (each step cut at the time left before it, less what the later steps were
# planned to take), the stalling node is NOT MEASURED with its reason, dropped from the
# later steps, and the judgement is written.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
win=(--duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 --isolate-budget 1)

# Another version on n4: n4 skipped, the others measured.
echo 0.2.0 >"$FAKE_DIR/version.n4"
V=$TMPD/version
"${FLEET[@]}" run --nodes n1,n2,n3,n4 --no-drives --out "$V" "${win[@]}" >"$TMPD/out" 2>"$TMPD/err"
check_eq "another version: exit 0" 0 $?
check_match "another version: said" "n4: skipped \\(suite version 0\\.2\\.0, the sweep's 0\\.1\\.0\\)" \
	"$(cat "$TMPD/err")"
check_eq "another version: NOT MEASURED with the reason, the others PASS" \
	"[('n1', 'PASS', ''), ('n2', 'PASS', ''), ('n3', 'PASS', ''), ('n4', 'NOT MEASURED', \"skipped: suite version 0.2.0, the sweep's 0.1.0\")]" \
	"$(json_get "$V/judge.json" 'sorted((v["node"], v["verdict"], v["what"]) for v in d["verdicts"])')"
check_eq "another version: the others' pairs measured" 6 "$(find "$V/fabric" -name '*.json' | wc -l)"
# A tie names no sweep's version: refused.
expect_exit 1 "^nbw-fleet: suite versions differ: 0\\.1\\.0 on n1; 0\\.2\\.0 on n4; none is the most nodes': refused" \
	"${FLEET[@]}" run --nodes n1,n4 --no-drives --out "$TMPD/tie"
rm -f "$FAKE_DIR/version.n4"

# n2's probe hangs 60 s; the sweep is planned at 13 s, admitted by --max-time 0:14.
"${FLEET[@]}" plan --nodes 4 --launcher ssh --setup 0.5 --drives 0 --no-remote "${win[@]}" \
	--json >"$TMPD/plan.json"
check_eq "the plan: 13 s" 13 "$(json_get "$TMPD/plan.json" 'round(d["phases_s"]["total_s"])')"
echo 60 >"$FAKE_DIR/hang.n2"
S=$TMPD/stall
t0=$(date +%s.%N)
"${FLEET[@]}" run --nodes n1,n2,n3,n4 --no-drives --launcher ssh --setup 0.5 --max-time 0:14 \
	--out "$S" "${win[@]}" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
took=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
check_eq "a stalling node: exit 0" 0 "$rc"
check_eq "the deadline kept: $took s, within 14 s + 3" yes "$(awk -v t="$took" 'BEGIN { print (t < 17) ? "yes" : "no" }')"
check_eq "judge.json written" yes "$([ -s "$S/judge.json" ] && echo yes || echo no)"
check_eq "the stalling node NOT MEASURED, the others PASS" \
	"[('n1', 'PASS'), ('n2', 'NOT MEASURED'), ('n3', 'PASS'), ('n4', 'PASS')]" \
	"$(json_get "$S/judge.json" 'sorted((v["node"], v["verdict"]) for v in d["verdicts"])')"
check_match "its reason: the step cut at the time left" \
	"stopped at the step's time limit \\([0-9]+ s: the time left before the sweep's deadline, --max-time 14 s\\)" \
	"$(json_get "$S/judge.json" '[v["what"] for v in d["verdicts"] if v["node"] == "n2"][0]')"
check_eq "its later parts not run, it named: its own with its failure and step, its partners' with its name" "3 3 n2" \
	"$(json_get "$S/sweep.json" '"%d %d %s" % (sum(f["reason"].startswith("stopped at the step\x27s time limit") and "at local: every node" in f["reason"] and f["reason"].endswith("not run: dropped from the later steps") for f in d["failed"]), sum(f["reason"].startswith("not run: n2 was dropped") for f in d["failed"]), sorted({f["node"] for f in d["failed"]})[0])')"
check_eq "the others' pairs measured" 6 "$(find "$S/fabric" -name '*.json' | wc -l)"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
