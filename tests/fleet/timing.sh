#!/bin/bash
# The plan's figure is what a run takes: nbw-fleet run over 8 fake nodes (2 rails, 2
# drives, every pair: 7 rounds) whose tools take their windows' seconds (FAKE_SCALE=1,
# windows shortened to 0.5 s warm-up + 1 s so the test is fast; the fake probe its 5 s),
# each launch costing FAKE_SETUP=0.4 s more, through the ssh stand-in; then the plan of
# the same sweep with --setup 0.4. Nothing is slowed, so the isolate phase measures
# nothing: the run's screening phases (local, fabric, drive->remote: sweep.json's
# timing) are held against the plan's screening_s. The band: measured / plan within
# [0.9, 1.5] for the whole and [0.8, 1.8] for each phase (the host's own launch cost,
# the stand-in forking its shell and the fakes their awk, is not in --setup; on a
# loaded 2-core machine it adds up to about a third).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
nodes=$(seq -f 'n%g' 1 8 | paste -sd,)
win=(--duration 1 --warmup 0.5 --retest-duration 1 --retest-warmup 0.5)
S=$TMPD/sweep
FAKE_SCALE=1 FAKE_SETUP=0.4 "${FLEET[@]}" run --nodes "$nodes" --rail-devs mlx5_0,mlx5_1 \
	--launcher ssh --out "$S" "${win[@]}" >"$TMPD/out" 2>"$TMPD/err"
check_eq "run: exit" 0 $?
"${FLEET[@]}" plan --nodes 8 --rails 2 --drives 2 --launcher ssh --setup 0.4 "${win[@]}" \
	--json >"$TMPD/plan.json"
check_eq "plan: exit" 0 $?
check_eq "nothing slowed, nothing named" "[]" "$(json_get "$S/judge.json" 'd["suspects"]')"
check_eq "the run's steps are the plan's: local, fabric, drive->remote" \
	"$(json_get "$TMPD/plan.json" '"%d %d %d" % tuple(d["steps"][k] for k in ("local", "fabric", "remote"))')" \
	"$(json_get "$S/sweep.json" '"%d %d %d" % tuple(d["timing"][k]["steps"] for k in ("local", "fabric", "drive->remote"))')"
# ratios PHASE...: "measured plan ratio" of each phase, then of their sum.
ratios=$("$PYTHON3" - "$S/sweep.json" "$TMPD/plan.json" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1]))["timing"]
p = json.load(open(sys.argv[2]))["phases_s"]
pairs = [(t["local"]["seconds"], p["local_s"]), (t["fabric"]["seconds"], p["fabric_s"]),
         (t["drive->remote"]["seconds"], p["remote_s"])]
pairs.append((sum(m for m, _ in pairs), p["screening_s"]))
print(" ".join("%.2f/%.2f=%.2f" % (m, q, m / q) for m, q in pairs))
EOF
)
echo "# measured/plan (local fabric drive->remote all): $ratios"
read -r l f r all <<<"$ratios"
within() { awk -v x="${1##*=}" -v lo="$2" -v hi="$3" 'BEGIN { print (x >= lo && x <= hi) ? "yes" : "no: " x }'; }
check_eq "local: measured/plan in [0.8, 1.8]" yes "$(within "$l" 0.8 1.8)"
check_eq "fabric: measured/plan in [0.8, 1.8]" yes "$(within "$f" 0.8 1.8)"
check_eq "drive->remote: measured/plan in [0.8, 1.8]" yes "$(within "$r" 0.8 1.8)"
check_eq "the screening phases: measured/plan in [0.9, 1.5]" yes "$(within "$all" 0.9 1.5)"
finish
