#!/bin/bash
# nbw-fleet's command line: plan's text and JSON at 4096 nodes (4095 rounds of 2048
# pairs), shown rounds, usage errors (exit 2, one line naming the tool), and the
# options of every command's --help against man/nbw-fleet.1 both ways.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
export PYTHONDONTWRITEBYTECODE=1
FLEET=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet")
PAGE=$abs_top_srcdir/man/nbw-fleet.1

# --- plan -------------------------------------------------------------------
"${FLEET[@]}" plan --nodes 4096 --rails 8 --drives 8 --pairs all --json >"$TMPD/plan.json"
check_eq "plan 4096: exit" 0 $?
check_eq "plan 4096: rounds, pairs per round, pairs" "4095 2048 8386560" \
	"$(json_get "$TMPD/plan.json" '"%d %d %d" % (d["rounds"], d["pairs_per_round"], d["pair_count"])')"
check_eq "plan 4096: fabric phase = rounds x rails x 2 directions x 28 s windows" \
	"$((4095 * 8 * 2 * 28))" "$(json_get "$TMPD/plan.json" 'int(d["phases_s"]["fabric_s"])')"
"${FLEET[@]}" plan --nodes 6 --pairs ring --seed 2 --show-rounds all >"$TMPD/ring.txt"
check_eq "ring of 6: two rounds of three pairs" "2 3 3" \
	"$(grep -c '^round' "$TMPD/ring.txt") $(grep '^round 1:' "$TMPD/ring.txt" | wc -w | awk '{print $1 - 2}') $(grep '^round 2:' "$TMPD/ring.txt" | wc -w | awk '{print $1 - 2}')"
check_match "text: the rounds line" '^  rounds +2 \(3 pairs each\)$' "$(grep 'rounds' "$TMPD/ring.txt")"
"${FLEET[@]}" plan --nodes a,b,c --show-rounds 1-3 --json >"$TMPD/abc.json"
check_eq "named nodes a,b,c: three rounds, each one pair and one idle" "[(1, 1), (1, 1), (1, 1)]" \
	"$(json_get "$TMPD/abc.json" '[(len(r["pairs"]), len(r["idle"])) for r in d["shown_rounds"]]')"

expect_exit 2 '^nbw-fleet plan: argument --pairs: 0: at least 1 partner \(try --help\)$' "${FLEET[@]}" plan --nodes 4 --pairs 0
expect_exit 2 "^nbw-fleet plan: argument --nodes: node name 'a/b'" "${FLEET[@]}" plan --nodes a/b,c
expect_exit 2 '^nbw-fleet plan: argument --nodes: a node is named twice' "${FLEET[@]}" plan --nodes a,b,a
expect_exit 2 '^nbw-fleet: --show-rounds 9: the plan has rounds 1 to 3' \
	"${FLEET[@]}" plan --nodes 4 --show-rounds 9
expect_exit 2 '^nbw-fleet plan: argument --duration: 1x: not a duration' "${FLEET[@]}" plan --nodes 4 --duration 1x
expect_exit 2 '^nbw-fleet: a command is needed' "${FLEET[@]}"

# --- the page -----------------------------------------------------------------
opts_man() { sed -e 's/\\f[BIRP]//g' -e 's/\\//g' "$1" | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u; }
fleet_help() {
	local v
	for v in "" plan; do "${FLEET[@]}" $v --help; done | grep -oE -- '--[a-z][a-z0-9_-]+' | sort -u
}
check_eq "--help options missing from the man page" "" "$(comm -23 <(fleet_help) <(opts_man "$PAGE") | tr '\n' ' ')"
check_eq "man page options unknown to --help" "" "$(comm -13 <(fleet_help) <(opts_man "$PAGE") | tr '\n' ' ')"
finish
