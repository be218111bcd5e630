#!/bin/bash
# nbw-fleet run acting on its verdict (the fakes of tests/fleet/fakes over the ssh
# stand-in, the scontrol stand-in on PATH): 4 nodes, n2's rail at half its peers'.
# --fail-on suspect: exit 3; --junit: the XML written, n2's rails a failure; --drain:
# exactly `scontrol update nodename=n2 state=drain reason=nbw: ...` (one argv, no
# shell), said, recorded in sweep.json; inside a Slurm job (SLURM_JOB_ID) LAUNCHER=ssh
# overriding srun is said in one line; a node hung from the preflight is skipped within
# --part-limit. A drain that fails (slurmctld refusing): said,
# judge.json still written, exit 1 without --fail-on. --max-time takes Slurm's formats
# (plan: 1-00 is a day) and refuses another in one line, exit 2.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/lib.sh"
cp "$FAKES/scontrol" "$TMPD/bin/scontrol"
win=(--duration 1 --warmup 0 --retest-duration 1 --retest-warmup 0)
echo 0.5 >"$FAKE_DIR/slow.n2.mlx5_0"
S=$TMPD/sweep
SLURM_JOB_ID=99 "${FLEET[@]}" run --nodes n1,n2,n3,n4 --no-drives --rail-devs mlx5_0 --out "$S" \
	"${win[@]}" --drain --fail-on suspect --junit "$TMPD/junit.xml" >"$TMPD/out" 2>"$TMPD/err"
check_eq "--fail-on suspect: exit 3" 3 $?
check_eq "SUSPECT n2, the others PASS" "[('n1', 'PASS'), ('n2', 'SUSPECT'), ('n3', 'PASS'), ('n4', 'PASS')]" \
	"$(json_get "$S/judge.json" 'sorted((v["node"], v["verdict"]) for v in d["verdicts"])')"
check_eq "the drain: scontrol's exact argv, once" \
	"update|nodename=n2|state=drain|reason=nbw: rail 0 (mlx5_0) 50% (below its peers and its floor)|--" \
	"$(tr '\n' '|' <"$FAKE_DIR/scontrol.log" | sed 's/|$//')"
check_match "the drain said" '^nbw-fleet: drained n2 \(reason "nbw: rail 0 \(mlx5_0\) 50% \(below its peers and its floor\)"\)$' "$(cat "$TMPD/err")"
check_eq "the drain in sweep.json" "[('n2', True, None)]" \
	"$(json_get "$S/sweep.json" '[(x["node"], x["ok"], x["error"]) for x in d["drained"]]')"
check_match "the JUnit XML: n2's rails a failure" \
	'^<testsuites name="nbw-fleet" tests="[0-9]+" failures="1" ' "$(grep '^<testsuites' "$TMPD/junit.xml")"
check_eq "the JUnit XML: the failure is n2's rails" "n2 nbw-fleet.rails" \
	"$(grep -B1 '<failure' "$TMPD/junit.xml" | sed -n 's/.*testcase name="\([^"]*\)" classname="\([^"]*\)".*/\1 \2/p')"
check_eq "inside a Slurm job, LAUNCHER=ssh overriding srun: said in one line" 1 \
	"$(grep -c '^nbw-fleet: inside Slurm job 99, LAUNCHER=ssh overrides srun: ' "$TMPD/err")"

# slurmctld refusing: the drain said, the verdict still written; exit 1 (no --fail-on).
touch "$FAKE_DIR/scontrol.fail"
rm -f "$S/judge.json" "$FAKE_DIR/scontrol.log"
"${FLEET[@]}" run --resume "$S" --drain >"$TMPD/out" 2>"$TMPD/err"
check_eq "a drain that fails: exit 1" 1 $?
check_match "said in one line, the verdict standing" \
	"^nbw-fleet: drain of n2 failed: scontrol exit status 1: slurm_update error: Invalid node name specified; the verdict stands$" \
	"$(cat "$TMPD/err")"
check_eq "outside a Slurm job: the launcher not said" 0 "$(grep -c 'overrides srun' "$TMPD/err")"
check_eq "the verdict written all the same" SUSPECT \
	"$(json_get "$S/judge.json" '[v["verdict"] for v in d["verdicts"] if v["node"] == "n2"][0]')"
check_eq "the failed drain in sweep.json" "[('n2', False)]" \
	"$(json_get "$S/sweep.json" '[(x["node"], x["ok"]) for x in d["drained"]]')"
# No --drain: scontrol never called.
rm -f "$FAKE_DIR/scontrol.log"
"${FLEET[@]}" run --resume "$S" >/dev/null 2>&1
check_eq "without --drain: exit 0, scontrol not called" "0 no" "$? $([ -e "$FAKE_DIR/scontrol.log" ] && echo yes || echo no)"

# A node that hangs from its first connection (the preflight): skipped within
# --part-limit (not the preflight's 120 s), NOT MEASURED, the others measured.
echo 0 >"$FAKE_DIR/hangafter.n5"
t0=$(date +%s)
"${FLEET[@]}" run --nodes n1,n3,n4,n5 --no-drives --rail-devs mlx5_0 --out "$TMPD/pre" "${win[@]}" \
	--part-limit 4 >"$TMPD/out" 2>"$TMPD/err"
check_eq "a node hung at the preflight: exit 0" 0 $?
secs=$(($(date +%s) - t0))
check_eq "its wait: --part-limit 4 s, not 120 ($secs s in all)" yes "$([ "$secs" -lt 30 ] && echo yes || echo "no: $secs s")"
check_eq "n5 NOT MEASURED (skipped at the preflight), the others PASS" \
	"[('n1', 'PASS'), ('n3', 'PASS'), ('n4', 'PASS'), ('n5', 'NOT MEASURED', \"skipped: stopped at the step's time limit\")]" \
	"$(json_get "$TMPD/pre/judge.json" 'sorted((v["node"], v["verdict"]) + ((v["what"],) if v["verdict"] != "PASS" else ()) for v in d["verdicts"])')"

# --max-time in Slurm's formats.
check_eq "plan --max-time 1-00: a day" 86400.0 \
	"$("${FLEET[@]}" plan --nodes 4 --max-time 1-00 --json | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["limit_s"])')"
check_eq "plan --max-time 30: 30 minutes" 1800.0 \
	"$("${FLEET[@]}" plan --nodes 4 --max-time 30 --json | "$PYTHON3" -c 'import json, sys; print(json.load(sys.stdin)["limit_s"])')"
expect_exit 2 "^nbw-fleet plan: argument --max-time: 1:99: not a time: minutes, MM:SS, H:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS" \
	"${FLEET[@]}" plan --nodes 4 --max-time 1:99
expect_exit 2 "^nbw-fleet run: argument --max-time: 5x: not a time" \
	"${FLEET[@]}" run --nodes n1,n2 --max-time 5x --out "$TMPD/never"
check_eq "refused: no directory made" no "$([ -e "$TMPD/never" ] && echo yes || echo no)"
check_eq "no process left behind" "" "$(pgrep -f "$TMPD" | grep -v "^$$\$" || true)"
finish
