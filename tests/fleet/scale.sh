#!/bin/bash
# The host's own cost of a sweep at scale: nbw-fleet run over N fake nodes with 2
# rails and 2 drives each, through the ssh stand-in (a process per node, --fanout 256 at
# once) and the fake tools (tests/fleet/fakes), the defaults (the ring and 4 random
# partners: a step per round), 1 s windows. The test slows one rail of one node and one
# drive of another, chosen at random here and known to nothing else, and the judgement
# must name exactly those two, in under 5 minutes on a 2-core machine. Every node gets a
# verdict line; the sweep's steps are the plan's. N is FLEET_SCALE_NODES: 64 in the fast
# suite (about 40 s), 128 in make check-slow (tests/fleet/scale_128.sh: 80 s measured on
# a 2-core machine under a load of 40).
# shellcheck disable=SC2012 # ls counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
N=${FLEET_SCALE_NODES:-64}
nodes=$(seq -f 'n%g' 1 "$N" | paste -sd,)
rail_node=n$((RANDOM % N + 1)) rail=$((RANDOM % 2))
drive_node=n$((RANDOM % N + 1)) drive=$((RANDOM % 2))
while [ "$drive_node" = "$rail_node" ]; do drive_node=n$((RANDOM % N + 1)); done
echo 0.5 >"$TMPD/fake/slow.$rail_node.mlx5_$rail"
echo 0.6 >"$TMPD/fake/slow.$drive_node.nvme${drive}n1"
echo "# slowed: $rail_node's rail $rail (mlx5_$rail), $drive_node's nvme${drive}n1"
S=$TMPD/sweep
t0=$(date +%s)
"${FLEET[@]}" run --nodes "$nodes" --rail-devs mlx5_0,mlx5_1 --out "$S" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
secs=$(($(date +%s) - t0))
echo "# $N nodes: $secs s; $(json_get "$S/sweep.json" '", ".join("%s %d steps %.0f s" % (k, v["steps"], v["seconds"]) for k, v in d["timing"].items())')"
check_eq "under 5 minutes" yes "$([ "$secs" -lt 300 ] && echo yes || echo "no: $secs s")"
check_eq "exactly the two slowed parts, both low" \
	"[('drive', '$drive_node', 'nvme${drive}n1', 'low'), ('rail', '$rail_node', 'rail $rail (mlx5_$rail)', 'low')]" \
	"$(json_get "$S/judge.json" 'sorted((s["kind"], s["node"], s["component"], s["state"]) for s in d["suspects"])')"
check_eq "a verdict per node: 2 SUSPECT, the others PASS" "$N 2 $((N - 2))" \
	"$(json_get "$S/judge.json" '"%d %d %d" % (len(d["verdicts"]), d["verdict_counts"]["SUSPECT"], d["verdict_counts"]["PASS"])')"
check_eq "steps: local 1, a fabric step per round of the plan, drive->remote 1" \
	"1 $("${FLEET[@]}" plan --nodes "$N" --json | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["rounds"])') 1" \
	"$(json_get "$S/sweep.json" '"%d %d %d" % tuple(d["timing"][k]["steps"] for k in ("local", "fabric", "drive->remote"))')"
check_eq "every pair measured: both documents of each" \
	"$("${FLEET[@]}" plan --nodes "$N" --json | "$PYTHON3" -c 'import json, sys; print(2 * json.load(sys.stdin)["pair_count"])')" \
	"$(ls "$S"/fabric/*/*.json | wc -l)"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
