#!/bin/bash
# One bad leaf-to-spine uplink, through the whole sweep: 64 fake nodes in 4 racks of 16
# (the hostfile's rack=: every rail of a node hangs off its rack's leaf), 4 rails, and
# rack r1's uplink on rail 3 carrying its share of the cross-rack pairs at 50% (the fake
# tool's uplink.LEAF.DEV: a quarter of the pairs crossing it, as ECMP would hash them).
# The judgement names the uplink exactly and no NIC, no link and no node; the plan gave
# every leaf pairs inside it and each uplink at least 3 crossing pairs a rail; JUnit's
# uplinks suite fails that one testcase.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
N=64
for i in $(seq 1 $N); do
	echo "n$i rack=r$(((i - 1) / 16))"
	echo "r$(((i - 1) / 16))" >"$TMPD/fake/leaf.n$i"
done >"$TMPD/hosts"
echo 0.5 >"$TMPD/fake/uplink.r1.mlx5_3"
printf 'n1 rack=r0\nn2 rack=r0 leaf3=r9 leaf3=r8\n' >"$TMPD/bad"
"${FLEET[@]}" run --hostfile "$TMPD/hosts" --fabric-topology "$TMPD/bad" --out "$TMPD/no" \
	>"$TMPD/out" 2>"$TMPD/err"
check_eq "a topology that contradicts itself: exit 2" 2 $?
check_eq "in one line naming its file and line" \
	"nbw-fleet: $TMPD/bad:2: n2 rail 3 hangs off r8 here, off r9 on line 2: which?" "$(cat "$TMPD/err")"
check_eq "nothing made" no "$([ -e "$TMPD/no" ] && echo yes || echo no)"
S=$TMPD/sweep
t0=$(date +%s)
"${FLEET[@]}" run --hostfile "$TMPD/hosts" --rail-devs mlx5_0,mlx5_1,mlx5_2,mlx5_3 --out "$S" \
	--duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 --no-drives \
	>"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
echo "# $N nodes: $(($(date +%s) - t0)) s"
check_eq "the uplink, exactly, and nothing else" \
	"[('uplink', 'r1', 'uplink of leaf r1, rail 3', 'low')]" \
	"$(json_get "$S/judge.json" '[(s["kind"], s["node"], s["component"], s["state"]) for s in d["suspects"]]')"
check_eq "every node PASS: no NIC named" "64 0" \
	"$(json_get "$S/judge.json" '"%d %d" % (d["verdict_counts"]["PASS"], d["verdict_counts"]["SUSPECT"])')"
check_eq "the text says it in one line" 1 \
	"$(grep -c "uplink of leaf r1, rail 3: [0-9]* of [0-9]* cross-leaf pairs low, 0 of [0-9]* inside" "$TMPD/out")"
check_eq "the sweep kept its topology" "hostfile $TMPD/hosts 64" \
	"$(json_get "$S/sweep.json" '"%s %d" % (d["topology"]["source"], len(d["topology"]["ports"]))')"
check_eq "each leaf: pairs inside, 3 or more across its uplink on every rail" "yes" \
	"$(json_get "$S/judge.json" '"yes" if all(u["inside"] >= 1 and u["cross"] >= 3 for u in d["uplinks"]) and len(d["uplinks"]) == 16 else d["uplinks"]')"
"${FLEET[@]}" judge "$S" --junit "$TMPD/j.xml" --fail-on suspect >/dev/null
check_eq "judge --fail-on suspect: exit 3 for the uplink" 3 $?
check_eq "JUnit: the uplinks suite fails leaf r1 rail 3 only" 'tests="16" failures="1"' \
	"$(grep -o 'name="nbw-fleet.uplinks" tests="[0-9]*" failures="[0-9]*"' "$TMPD/j.xml" | cut -d' ' -f2-)"
check_eq "JUnit: the failing case" 1 "$(grep -c 'testcase name="leaf r1 rail 3"' "$TMPD/j.xml")"
if command -v xmllint >/dev/null; then
	check_eq "xmllint: the XML is valid against junit.xsd" "$TMPD/j.xml validates" \
		"$(xmllint --noout --schema "$abs_top_srcdir/tests/fixtures/junit.xsd" "$TMPD/j.xml" 2>&1 | tail -n1)"
fi
"${FLEET[@]}" judge "$S" --html "$TMPD/p.html" >/dev/null
check_eq "the page names it" 1 "$(grep -c 'uplink of leaf r1, rail 3: ' "$TMPD/p.html")"
finish
