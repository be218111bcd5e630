#!/bin/bash
# Dead and hung nodes in a sweep of 64 fake nodes (the ssh stand-in, 1 rail, 2 drives,
# the defaults' ring and 4 random partners: 6 rounds): n7 dies at the fabric's round 2
# (fake/die.n7: its ssh answers the preflight, the local phase and round 1, then breaks),
# n20 hangs from its third round on, the plan's round 4 (fake/hangafter.n20: its ssh says
# nothing until killed).
# Each is dropped at its first failure: NOT MEASURED with the reason and the step, never
# contacted again (no later round waits for it: the hang costs one --part-limit, once,
# the death one partner's --timeout + --wait); their partners are re-paired with
# healthy nodes in a re-pair round after the fabric and the drive->remote phases, and
# every other node is measured (PASS). --fail-on unmeasured: exit 4, the JUnit XML
# written. Without the drop the sweep paid about 6 x 15 s more (a limit each round).
# shellcheck disable=SC2012 # ls counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
N=64 LIMIT=15
nodes=$(seq -f 'n%g' 1 "$N" | paste -sd,)
echo 3 >"$FAKE_DIR/die.n7"
echo 4 >"$FAKE_DIR/hangafter.n20"
S=$TMPD/sweep
t0=$(date +%s)
"${FLEET[@]}" run --nodes "$nodes" --rail-devs mlx5_0 --out "$S" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 --part-limit "$LIMIT" --fail-on unmeasured \
	--junit "$TMPD/junit.xml" >"$TMPD/out" 2>"$TMPD/err"
rc=$?
secs=$(($(date +%s) - t0))
check_eq "run: exit 4 (--fail-on unmeasured: two nodes not measured)" 4 "$rc"
echo "# $N nodes, one dead and one hung: $secs s; $(grep '^nbw-fleet: took ' "$TMPD/err")"
fab=$(json_get "$S/sweep.json" 'round(d["timing"]["fabric"]["seconds"])')
# The fabric's 6 rounds and its re-pair round take a few seconds each on a loaded
# 2-core machine; the hang adds one limit (15 s), the death its partner's wait (5 + 10 s).
check_eq "the fabric phase: at most 2 limits over its 7 steps' own (4 s each): $fab s" yes \
	"$([ "$fab" -le $((2 * LIMIT + 7 * 4)) ] && echo yes || echo "no: $fab s")"
check_eq "the sweep: under 2 limits + 60 s ($secs s)" yes \
	"$([ "$secs" -le $((2 * LIMIT + 60)) ] && echo yes || echo "no: $secs s")"
check_eq "n7 reached 4 times (preflight, local, rounds 1 and 2), n20 5 times: never again once dropped" \
	"4 5" "$(cat "$FAKE_DIR/calls.n7") $(cat "$FAKE_DIR/hcalls.n20")"
check_match "n7: NOT MEASURED, its reason and step" \
	"^NOT MEASURED\\|unreachable: Connection to n7 closed by remote host\\.[ ,(]+at fabric: round 2 of 6[;)]" \
	"$(json_get "$S/judge.json" '"%s|%s" % [(v["verdict"], v["what"]) for v in d["verdicts"] if v["node"] == "n7"][0]')"
check_match "n20: NOT MEASURED, hung, and the step" \
	"^NOT MEASURED\\|hung: no answer, stopped at the step's time limit[ ,(]+at fabric: round 4 of 6[;)]" \
	"$(json_get "$S/judge.json" '"%s|%s" % [(v["verdict"], v["what"]) for v in d["verdicts"] if v["node"] == "n20"][0]')"
check_eq "every other node measured: 62 PASS, nothing suspect" "62 0 2" \
	"$(json_get "$S/judge.json" '"%d %d %d" % tuple(d["verdict_counts"][k] for k in ("PASS", "SUSPECT", "NOT MEASURED"))')"
for phase in fabric "drive->remote"; do
	line=$(grep "^nbw-fleet: $phase: re-pair round for" "$TMPD/err")
	check_match "$phase: a re-pair round for the partners of the dropped" \
		"^nbw-fleet: $phase: re-pair round for the partners of n20, n7 \\(dropped\\): (n[0-9]+-n[0-9]+ ?)+\$" "$line"
	base=fabric
	[ "$phase" = fabric ] || base=remote
	kept=0 pairs=0
	for p in ${line##*: }; do
		pairs=$((pairs + 1))
		[ -s "$S/$base/${p%-*}/${p#*-}.json" ] && [ -s "$S/$base/${p#*-}/${p%-*}.json" ] && kept=$((kept + 1))
	done
	check_eq "$phase: every re-paired pair measured, both documents ($pairs pairs)" "$pairs" "$kept"
done
check_match "the JUnit XML: no failure, the two nodes' parts skipped" \
	'^<testsuites name="nbw-fleet" tests="[0-9]+" failures="0" errors="0" skipped="[2-9]"' \
	"$(grep '^<testsuites' "$TMPD/junit.xml")"
check_eq "the JUnit XML: a skipped testcase names n7, one n20" "yes yes" \
	"$(grep -A1 'testcase.*"n7' "$TMPD/junit.xml" | grep -q '<skipped' && echo yes) $(grep -A1 'testcase.*"n20' "$TMPD/junit.xml" | grep -q '<skipped' && echo yes)"
check_match "the time per phase beside the plan's" \
	"^nbw-fleet: took [0-9].* \\(plan .*\\): preflight .* \\(plan .*\\), local .* in 1 step \\(plan .*\\), fabric .* in 7 steps \\(plan .*\\), drive->remote .* in 2 steps \\(plan .*\\), .*judge .* \\(plan .*\\)$" \
	"$(grep '^nbw-fleet: took ' "$TMPD/err")"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
