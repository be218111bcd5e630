#!/bin/bash
# nbw-fleet's command line: plan's text and JSON at 4096 nodes (4095 rounds of 2048
# pairs), shown rounds, usage errors (exit 2, one line naming the tool), and the
# options of every command's --help against man/nbw-fleet.1 both ways.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
export PYTHONDONTWRITEBYTECODE=1
FLEET=("$PYTHON3" "$abs_top_srcdir/scripts/nbw-fleet")
PAGE=$abs_top_srcdir/man/nbw-fleet.1

# --- plan -------------------------------------------------------------------
"${FLEET[@]}" plan --nodes 4096 --rails 8 --drives 8 --pairs all --json >"$TMPD/plan.json"
check_eq "plan 4096: exit" 0 $?
check_eq "plan 4096: rounds, pairs per round, pairs" "4095 2048 8386560" \
	"$(json_get "$TMPD/plan.json" '"%d %d %d" % (d["rounds"], d["pairs_per_round"], d["pair_count"])')"
check_eq "plan 4096 all: a step per round, every rail and both directions in one run of 7 s + the set-up" \
	"4095 $((4095 * (7 + 10)))" "$(json_get "$TMPD/plan.json" '"%d %d" % (d["steps"]["fabric"], round(d["phases_s"]["fabric_s"]))')"
# The defaults: the targets of a maintenance window, each answered at once.
for size in "4096 8 8 1800" "64 8 6 900" "8 8 6 600"; do
	read -r n r dr target <<<"$size"
	t0=$(date +%s%N)
	"${FLEET[@]}" plan --nodes "$n" --rails "$r" --drives "$dr" --json >"$TMPD/p.json"
	ms=$((($(date +%s%N) - t0) / 1000000))
	check_eq "plan ${n}x${r}x${dr} with the defaults: within $target s" True \
		"$(json_get "$TMPD/p.json" 'd["phases_s"]["total_s"] <= '"$target")"
	echo "# plan ${n}x${r}x${dr}: $(json_get "$TMPD/p.json" '"%s, %d rounds, %.0f s" % (d["pairs_mode"], d["rounds"], d["phases_s"]["total_s"])') (answered in $ms ms)"
done
# deploy/slurm/fleet.sbatch's --time agrees with the plan of the size it states: the plan
# with its whole retest budget, and 10 to 30 minutes for the job around it.
SB=$abs_top_srcdir/deploy/slurm/fleet.sbatch
sb_nodes=$(sed -n 's/^#SBATCH --nodes=//p' "$SB")
IFS=: read -r h m s <<<"$(sed -n 's/^#SBATCH --time=//p' "$SB")"
sb_secs=$((10#$h * 3600 + 10#$m * 60 + 10#$s))
"${FLEET[@]}" plan --nodes "$sb_nodes" --rails 8 --drives 8 --json >"$TMPD/sb.json"
plan_secs=$(json_get "$TMPD/sb.json" 'round(d["phases_s"]["total_s"])')
check_eq "fleet.sbatch: --time covers the plan of $sb_nodes x 8 x 8 with 10 to 30 min around it" yes \
	"$([ $((plan_secs + 600)) -le "$sb_secs" ] && [ "$sb_secs" -le $((plan_secs + 1800)) ] && echo yes || echo "no: plan $plan_secs s, --time $sb_secs s")"
check_match "fleet.sbatch: its comment quotes the plan's figure" \
	"nbw-fleet plan --nodes $sb_nodes --rails 8 --drives 8: $(json_get "$TMPD/sb.json" '"%d min %02d s" % divmod(round(d["phases_s"]["total_s"]), 60)')" \
	"$(grep -A1 'nbw-fleet plan --nodes' "$SB" | tr '\n' ' ' | sed 's/# *//g; s/  */ /g')"
expect_exit 3 '^nbw-fleet: the plan takes .* more than --max-time 6 min 30 s: would fit: --isolate-budget 1 ' \
	"${FLEET[@]}" plan --nodes 64 --rails 8 --drives 6 --max-time 6:30
"${FLEET[@]}" plan --nodes 6 --pairs ring --seed 2 --show-rounds all >"$TMPD/ring.txt"
check_eq "ring of 6: two rounds of three pairs" "2 3 3" \
	"$(grep -c '^round' "$TMPD/ring.txt") $(grep '^round 1:' "$TMPD/ring.txt" | wc -w | awk '{print $1 - 2}') $(grep '^round 2:' "$TMPD/ring.txt" | wc -w | awk '{print $1 - 2}')"
check_match "text: the rounds line" '^  rounds +2 \(3 pairs each\), 6 pairs$' "$(grep 'rounds' "$TMPD/ring.txt")"
"${FLEET[@]}" plan --nodes a,b,c --show-rounds 1-3 --json >"$TMPD/abc.json"
check_eq "named nodes a,b,c: three rounds, each one pair and one idle" "[(1, 1), (1, 1), (1, 1)]" \
	"$(json_get "$TMPD/abc.json" '[(len(r["pairs"]), len(r["idle"])) for r in d["shown_rounds"]]')"

expect_exit 2 '^nbw-fleet plan: argument --pairs: 0: at least 1 partner \(try --help\)$' "${FLEET[@]}" plan --nodes 4 --pairs 0
expect_exit 2 '^nbw-fleet plan: argument --pairs: ring\+x: all, ring, auto' "${FLEET[@]}" plan --nodes 4 --pairs ring+x
expect_exit 2 "^nbw-fleet plan: argument --nodes: node name 'a/b'" "${FLEET[@]}" plan --nodes a/b,c
expect_exit 2 '^nbw-fleet plan: argument --nodes: a node is named twice' "${FLEET[@]}" plan --nodes a,b,a
expect_exit 2 '^nbw-fleet: --show-rounds 9: the plan has rounds 1 to 3' \
	"${FLEET[@]}" plan --nodes 4 --show-rounds 9
expect_exit 2 '^nbw-fleet plan: argument --duration: 1x: not a duration' "${FLEET[@]}" plan --nodes 4 --duration 1x
expect_exit 2 '^nbw-fleet: a command is needed' "${FLEET[@]}"

# --- judge ------------------------------------------------------------------
mkdir "$TMPD/empty"
expect_exit 1 "^nbw-fleet: $TMPD/empty: not a sweep directory" "${FLEET[@]}" judge "$TMPD/empty"
expect_exit 2 '^nbw-fleet judge: argument --threshold: 1.5: a ratio between 0 and 1' \
	"${FLEET[@]}" judge "$TMPD/empty" --threshold 1.5
# A generated fleet of 24 nodes with one slow drive: named in text, JSON and the page.
PYTHONPATH="$abs_top_srcdir/python:$abs_top_srcdir/tests/py" "$PYTHON3" -c '
import sys
from fleetgen import Fleet
Fleet(24, 2, 3, pairs="all", seed=3, slow_drives=[("node017", 2, 0.5)]).write(sys.argv[1])
' "$TMPD/sweep"
"${FLEET[@]}" judge "$TMPD/sweep" --json --html "$TMPD/sweep.html" >"$TMPD/judge.json"
check_eq "judge: exit" 0 $?
check_eq "judge --json: the one suspect" "[('drive', 'node017', 'nvme2n1', 'low')]" \
	"$(json_get "$TMPD/judge.json" '[(s["kind"], s["node"], s["component"], s["state"]) for s in d["suspects"]]')"
check_match "judge text: the suspect's line" '^  drive +node017 +nvme2n1 +low +5[01]% +below its peers and its floor: nvme2n1 alone' \
	"$("${FLEET[@]}" judge "$TMPD/sweep" | grep node017)"
check_eq "judge --html: the page names it (its suspect, its node), draws 276 pairs x 2 cells" "2 552" \
	"$(grep -c '<td>node017</td>' "$TMPD/sweep.html") $(grep -o '<rect x=' "$TMPD/sweep.html" | wc -l)"
check_eq "judge --html: the page names nothing outside itself (the PNG inside it, as data:)" "" \
	"$(sed 's|xmlns="http://www.w3.org/2000/svg"||' "$TMPD/sweep.html" | grep -Eoi '(https?|ftp|wss?)://|(src|href|action)="[^d#][^"]*"|<(script|link|iframe|object)|url\(')"
if command -v gnuplot >/dev/null; then
	check_eq "judge --html: the heat map's PNG inside the page and beside it" "1 89504e470d0a1a0a" \
		"$(grep -c '<img src="data:image/png;base64,' "$TMPD/sweep.html") $(head -c 8 "$TMPD/sweep.html.png" | od -An -tx1 | tr -d ' \n')"
fi

# --- the page -----------------------------------------------------------------
# The page names other tools' options too (nvme_read_bw --baseline, the remote tool's
# --source, the probe's --expect-speed, vlab's --slow-drive and --slow-nic): left out here.
opts_man() {
	sed -e 's/\\f[BIRP]//g' -e 's/\\//g' "$1" | grep -oE -- '--[a-z][a-z0-9_-]+' |
		grep -vxE -- '--(baseline|source|expect-speed|expect|expect-file|slow-drive|slow-nic)' | LC_ALL=C sort -u
}
fleet_help() {
	local v
	for v in "" plan judge run; do "${FLEET[@]}" $v --help; done | grep -oE -- '--[a-z][a-z0-9_-]+' | LC_ALL=C sort -u
}
check_eq "--help options missing from the man page" "" "$(LC_ALL=C comm -23 <(fleet_help) <(opts_man "$PAGE") | tr '\n' ' ')"
check_eq "man page options unknown to --help" "" "$(LC_ALL=C comm -13 <(fleet_help) <(opts_man "$PAGE") | tr '\n' ' ')"
finish
