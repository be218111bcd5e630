#!/bin/bash
# nbw-fleet run inside a Slurm allocation, with srun and scontrol stand-ins
# (tests/fleet/fakes/: each rank of a --multi-prog configuration run on its node, the
# output labelled by rank) and the fake tools: ONE srun step per phase or round, never
# one per pair (the step count is the plan's: preflight, local, a round each, the
# retests), every step over its nodes in the allocation's order (the ranks), a node
# name holding % (srun's %t) passed unchanged; a node that dies after the local phase
# is NOT MEASURED with srun's word and the step, dropped from the later steps, its
# partners' runs end within their --timeout and --wait, the rounds go on, and nothing
# is called low; a node that hangs costs one --part-limit, is dropped, and its partner
# is re-paired.
# shellcheck disable=SC2012 # ls counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
cp "$abs_top_srcdir/tests/fleet/fakes/srun" "$abs_top_srcdir/tests/fleet/fakes/scontrol" "$TMPD/bin/"
unset LAUNCHER
export SLURM_JOB_ID=4242 SLURM_JOB_NODELIST='n[1-5],n%t6'
printf '%s\n' n4 n1 n%t6 n2 n3 n5 >"$TMPD/fake/allocation"
echo 0.5 >"$TMPD/fake/slow.n2.mlx5_1"
S=$TMPD/sweep
"${FLEET[@]}" run --rail-devs mlx5_0,mlx5_1 --out "$S" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
check_match "through srun" '^nbw-fleet: sweep of 6 nodes \(0 skipped\), 2 rails, pairs all: 5 rounds, through srun' "$(cat "$TMPD/err")"
check_eq "the allocation's nodes, in its order" "['n4', 'n1', 'n%t6', 'n2', 'n3', 'n5'] srun" \
	"$(json_get "$S/sweep.json" '"%s %s" % (d["nodes"], d["launcher"])')"
steps=$(json_get "$S/sweep.json" 'sum(v["steps"] for k, v in d["timing"].items() if k != "judge")')
check_eq "srun steps: the preflight and one a phase or round (local 1, fabric 5, remote 1, isolate)" \
	"$steps 1 5 1" "$(wc -l <"$TMPD/fake/srun.log") $(json_get "$S/sweep.json" '"%d %d %d" % tuple(d["timing"][k]["steps"] for k in ("local", "fabric", "drive->remote"))')"
check_eq "the preflight, local, each fabric round and drive->remote: one step over every node, in the allocation's order" \
	"8" "$(grep -c '^step n4,n1,n%t6,n2,n3,n5 6$' "$TMPD/fake/srun.log")"
check_eq "every pair's two documents (15 pairs)" 30 "$(ls "$S"/fabric/*/*.json | wc -l)"
check_eq "the slow rail, nothing else" "[('rail', 'n2', 'rail 1 (mlx5_1)', 'low')]" \
	"$(json_get "$S/judge.json" '[(s["kind"], s["node"], s["component"], s["state"]) for s in d["suspects"]]')"
check_match "a rank's task in the multi-program configuration" \
	"^1 sh -c 'eval \"\\\$NBW_FLEET_TASK\"' nbw-task 'n1' 'fabric/n1/[^']*\\.json' '[0-9]+' '[0-9]+' '$abs_top_srcdir/tests/fleet/fakes/nvme_write_bw_remote' '--bidir'" \
	"$(sed -n 3p "$S/steps/step0003.conf")"

# Of four nodes, n3 dies after the local phase (the preflight and local steps): its
# rounds' pairs are not measured, its partners' runs end within --timeout and --wait, the
# rest goes on.
rm -f "$TMPD/fake/srun.log" "$TMPD"/fake/slow.*
echo 2 >"$TMPD/fake/die.n3"
D=$TMPD/dies
t0=$(date +%s)
NET_TIMEOUT=2 "${FLEET[@]}" run --nodes n1,n2,n3,n4 --rail-devs mlx5_0 --no-remote --out "$D" --duration 1 --warmup 0 \
	--retest-duration 1 --retest-warmup 0 >"$TMPD/out" 2>"$TMPD/err"
check_eq "run with a node that dies: exit" 0 $?
secs=$(($(date +%s) - t0))
check_match "n3: NOT MEASURED, with srun's word and the step it failed at; nothing low" \
	"^NOT MEASURED\\|unreachable: srun: error: n3: task 3: Unable to launch: node down[ ,(]+at fabric: round 1 of 3[;)].*\\|\\[\\]\$" \
	"$(json_get "$D/judge.json" '"%s|%s|%s" % ([(v["verdict"], v["what"]) for v in d["verdicts"] if v["node"] == "n3"][0] + (d["suspects"],))')"
check_eq "n3 dropped at its first failure: in no later step (3 steps before: preflight, local, round 1)" \
	"3 " "$(grep -c n3 "$TMPD/fake/srun.log") $(sed -n '4,$p' "$TMPD/fake/srun.log" | grep n3)"
check_eq "its 3 pairs not measured (both documents each), the other 3 measured" "6 6" \
	"$(json_get "$D/judge.json" 'len([m for m in d["not_measured_parts"] if m["part"].startswith("fabric/")])') $(ls "$D"/fabric/*/*.json | wc -l)"
check_match "its partners: kept only with it, and PASS" \
	"^  n4 +PASS \\(2 parts not measured because of a partner \\(n3\\)\\)$" "$(cat "$TMPD/out")"
# Each round with n3 ends when its partner gives up: --timeout 2 + --wait 10 s and the
# fakes' own start, not the step's limit.
check_eq "the sweep was not held by the dead node (3 rounds with it, under 90 s)" yes \
	"$([ "$secs" -lt 90 ] && echo yes || echo "no: $secs s")"

# Of six nodes in a ring, n2 hangs from the step after the third (the preflight, local
# and round 1): its rank says nothing until the step is killed at --part-limit. n2 is
# dropped at round 2 (hung, the step named) and in no later step; its partner of round 2
# waited for it, is not dropped, and meets a healthy node in the re-pair round.
rm -f "$TMPD/fake/srun.log" "$TMPD/fake/die.n3"
printf '%s\n' n1 n2 n3 n4 n5 n6 >"$TMPD/fake/allocation"
echo 3 >"$TMPD/fake/hangafter.n2"
H=$TMPD/hangs
t0=$(date +%s)
NET_TIMEOUT=2 "${FLEET[@]}" run --nodes n1,n2,n3,n4,n5,n6 --pairs ring --rail-devs mlx5_0 --no-remote \
	--out "$H" --duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0 --part-limit 20 \
	>"$TMPD/out" 2>"$TMPD/err"
check_eq "run with a node that hangs: exit" 0 $?
secs=$(($(date +%s) - t0))
check_match "n2: NOT MEASURED, hung, the step" \
	"^NOT MEASURED\\|hung: no answer, stopped at the step's time limit[ ,(]+at fabric: round 2 of 2[;)]" \
	"$(json_get "$H/judge.json" '"%s|%s" % [(v["verdict"], v["what"]) for v in d["verdicts"] if v["node"] == "n2"][0]')"
check_eq "n2 in no step after round 2 (preflight, local, rounds 1 and 2)" "4 " \
	"$(grep -c n2 "$TMPD/fake/srun.log") $(sed -n '5,$p' "$TMPD/fake/srun.log" | grep n2)"
check_match "a re-pair round for n2's partner, said" \
	"^nbw-fleet: fabric: re-pair round for the partners of n2 \\(dropped\\): n[0-9]-n[0-9]\$" "$(cat "$TMPD/err")"
check_eq "the others PASS" "5 1" \
	"$(json_get "$H/judge.json" '"%d %d" % (d["verdict_counts"]["PASS"], d["verdict_counts"]["NOT MEASURED"])')"
check_eq "the hang cost one --part-limit, once (under 20 s + 25 s)" yes \
	"$([ "$secs" -lt 45 ] && echo yes || echo "no: $secs s")"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
