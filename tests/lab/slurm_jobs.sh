#!/bin/bash
# Lab test of deploy/slurm/ under a real Slurm (Debian's slurm-wlm, brought up
# by scripts/vlab.d/slurm-up.sh in three nodes): sbatch --wait aggregate.sbatch
# ends 0 with a valid total (by the sink's rules as the node script loosens
# them for emulated nodes: SINK_ARGS in slurm_jobs_a.sh; or not valid for the
# samples' variation alone, never for a late source), both sides verified
# and their byte counts agreeing; fanin.sbatch with two sources the same, each
# source's row verified and the sum of the rows the sink's RDMA bytes;
# fleet.sbatch over two nodes finishing with a report (judge.json, judge.txt,
# report.html and junit.xml in its sweep's directory, no suspect on the clean lab,
# nothing drained with FLEET_DRAIN=1, the judgement printed) in one srun step per phase or round (slurmd's logs: the
# lab keeps no accounting for sacct), as many as the plan's, never one per
# pair or node; the steps ran where the job says (each node's slurmd logged a step of the job it
# served, and no other node did); each run recorded (nbw-results) with the job
# id in its note, the inventory of the job's nodes and the sink's total; a job
# with one node too few ends at once, one line, exit 2; an aggregate cancelled
# while its tools run is gone within 60 s and a step on each node finds no
# tool process; slurmctld never set a node DOWN and every node ends idle.
# slurmctld's completion log (jobcomp.txt) gives each job's state, nodes and
# times. Minutes: make check-slow (tests/Makemodule.am).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null || {
	echo "SKIP: slurm-wlm and munge are not installed (scripts/quickstart installs them)"
	exit 77
}
node=$srcdir/tests/lab/slurm_jobs_node.sh
run_lab --nodes 3 --drives 1 --drive-size 64M --timeout 2400 \
	--on-b "$node" --on-c "$node" "$srcdir/tests/lab/slurm_jobs_a.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
A=$WORK/a/out
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
# field JOB KEY: KEY of JOB's line in slurmctld's completion log (jobcomp.txt).
field() { grep "^JobId=$(cat "$A/$1.id") " "$A/jobcomp.txt" | sed -n "s/.* $2=\([^ ]*\).*/\1/p"; }
runtime() { echo $(($(date -d "$(field "$1" EndTime)" +%s) - $(date -d "$(field "$1" StartTime)" +%s))); }
hosts() { scontrol show hostnames "$(field "$1" NodeList)" 2>/dev/null || field "$1" NodeList | tr ',' '\n'; }
# ran_on JOB NODES...: each of NODES' slurmd launched a step of JOB; no other node's did.
ran_on() {
	local id n want=" ${*:2} "
	id=$(cat "$A/$1.id")
	for n in a b c; do
		if grep -q "launch task StepId=$id\.[0-9]" "$WORK/$n/out/slurmd.log"; then
			[[ $want == *" $n "* ]] || fail "$1: a step of job $id ran on $n (the job has${want% })"
		else
			[[ $want != *" $n "* ]] || fail "$1: no step of job $id on $n: $(grep -c 'launch task' "$WORK/$n/out/slurmd.log") steps there"
		fi
	done
}

[ -s "$A/jobcomp.txt" ] && [ -s "$A/slurmctld.log" ] || fail "no jobcomp.txt or slurmctld.log: not copied"
# Nodes up throughout: slurmctld set none DOWN, all idle at the end.
if grep -q 'setting DOWN' "$A/slurmctld.log"; then
	fail "slurmctld set nodes DOWN: $(grep -E 'not responding|DOWN' "$A/slurmctld.log" | tr '\n' ';')"
fi
[ "$(sort "$A/nodes.txt" | tr '\n' ' ')" = "a idle b idle c idle " ] ||
	fail "the nodes at the end: $(tr '\n' ';' <"$A/nodes.txt")"
note "nodes: none set DOWN, all idle at the end ($(grep -c 'not responding' "$A/slurmctld.log") 'not responding' lines in slurmctld.log)"

# One node too few: at once, one line, exit 2 (the job's; sbatch --wait passes it on).
[ "$(cat "$A/few.rc")" = 2 ] || fail "too few nodes: sbatch --wait exit $(cat "$A/few.rc"): $(cat "$A/few.out" "$A/few.err")"
[ "$(grep -c '' "$A/few.out")" = 1 ] &&
	grep -Eq '^aggregate\.sbatch: job [0-9]+ has 1 node \([abc]\), aggregate \(a sink and a source\) needs 2: sbatch --nodes=2$' "$A/few.out" ||
	fail "too few nodes: $(cat "$A/few.out")"
[ "$(field few JobState) $(field few ExitCode)" = "FAILED 2:0" ] ||
	fail "too few nodes: slurmctld says $(field few JobState) $(field few ExitCode)"
# At once: no step of the job started anywhere, no results, and the job ran
# (slurmctld's start to end) under 30 s: the batch script's start alone takes
# 10-15 s in these emulated nodes on a loaded host.
ran_on few
[ ! -e "$A/results/slurm-$(cat "$A/few.id")" ] || fail "too few nodes: a results directory"
rt=$(runtime few)
[ "$rt" -lt 30 ] || fail "too few nodes: the job ran $rt s"
note "too few nodes: exit 2, no step, the job ran $rt s (sbatch --wait returned after $(cat "$A/few.secs") s): $(cat "$A/few.out")"

# rec JOB EXPR: EXPR on the record's run of JOB (r: nbw-results show --json)
# must be True. The run is the one whose note names the job.
rec() {
	local got
	got=$("$PY" "$srcdir/scripts/nbw-results" --db "$A/record" --index "$WORK/index.sqlite" list --json |
		"$PY" -c 'import json, subprocess, sys
runs = [r for r in json.load(sys.stdin) if r["note"] == "slurm job " + sys.argv[1]]
assert len(runs) == 1, "%d runs noted slurm job %s" % (len(runs), sys.argv[1])
r = json.loads(subprocess.check_output([sys.executable, sys.argv[3], "--db", sys.argv[4],
    "--index", sys.argv[5], "show", runs[0]["uuid"], "--json"]))
fig = lambda rung, node: [f["gb_per_s"] for f in r["figures"] if f["rung"] == rung and f["node"] == node and f["drive"] is None]
ok = eval(sys.argv[2])
print(True if ok is True else "%s: inventory of %s, exit status %s, figures %s" % (ok, sorted(r["inventory"]),
    r["exit_status"], [(f["rung"], f["node"], f["drive"], f["gb_per_s"]) for f in r["figures"]]))' "$(cat "$A/$1.id")" "$2" "$srcdir/scripts/nbw-results" "$A/record" "$WORK/index.sqlite" 2>&1)
	[ "$got" = True ] || fail "$1: the record ($2): $got"
}

# The sink's verdict on its total is given: valid, or not valid with its reason. Which
# it is rests on the 1 s samples' variation and the windows' overlap, that is on the
# emulator's timing (a starved emulated node reads nothing for whole seconds: the local
# drive's samples of one run varied 110%), so the lab proves the verdict and that every
# source's overlap was measured; the rule itself is proven on results built in memory
# (tests/remote/printer.sh) and over the fake fabric.
VALID='(d["total_valid"] is True and d["total_invalid_reason"] is None or d["total_valid"] is False and bool(d["total_invalid_reason"])) and all(0 < s["overlap_pct"] <= 100 for s in d["streams"] if s["name"] == "rdma")'
verdict() { jq_ "$1" '"valid" if d["total_valid"] else "not valid: " + d["total_invalid_reason"]'; }

# aggregate: the sink and the source of the job's two nodes, both verified.
[ "$(cat "$A/agg.rc")" = 0 ] || fail "aggregate: exit $(cat "$A/agg.rc"): $(tail -n5 "$A/agg.out")"
[ "$(field agg JobState) $(field agg ExitCode)" = "COMPLETED 0:0" ] ||
	fail "aggregate: slurmctld says $(field agg JobState) $(field agg ExitCode)"
mapfile -t h < <(hosts agg)
[ "${#h[@]}" = 2 ] || fail "aggregate: the job's nodes: ${h[*]}"
R=$A/results/slurm-$(cat "$A/agg.id")
S=$R/aggregate-${h[0]}.json
[ "$(jq_ "$S" 'd["role"] == "sink" and d["ok"] is True and d["verify"] == "pass" and '"$VALID"' and d["rdma"]["bytes"] > 0 and d["local"]["bytes"] > 0 and d["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"] and d["params"]["chunk"] == 262144 and d["params"]["duration_s"] == 6')" = True ] ||
	fail "aggregate: sink on ${h[0]}: $(cat "$S")"
# The source's count of the bytes it wrote is the sink's count of what arrived.
[ "$("$PY" -c 'import json,sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); print(b["role"] == "source" and b["verify"] == "pass" and b["rdma"]["bytes"] == a["rdma"]["bytes"] > 0)' "$S" "$R/aggregate-${h[1]}.json")" = True ] ||
	fail "aggregate: source on ${h[1]}: $(cat "$R/aggregate-${h[1]}.json")"
grep -q "sink on ${h[0]}:" "$A/agg.out" && grep -q "source on ${h[1]} (try 1)" "$A/agg.out" ||
	fail "aggregate: the job's output: $(cat "$A/agg.out")"
ran_on agg "${h[@]}"
total=$(jq_ "$S" 'd["total"]["gb_per_s"]')
rec agg "sorted(r[\"inventory\"]) == sorted(\"${h[*]}\".split()) and r[\"exit_status\"] == 0 and fig(\"end to end\", \"${h[0]}\") == [$total]"
note "aggregate: job $(cat "$A/agg.id") on ${h[*]} in $(cat "$A/agg.secs") s: total $total GB/s ($(verdict "$S"); overlap $(jq_ "$S" 'd["streams"][1]["overlap_pct"]')%), sink and source verify pass, recorded with both nodes' inventory"

# fan-in: the first node the sink, the two others its sources.
[ "$(cat "$A/fan.rc")" = 0 ] || fail "fan-in: exit $(cat "$A/fan.rc"): $(tail -n5 "$A/fan.out")"
mapfile -t h < <(hosts fan)
[ "${#h[@]}" = 3 ] || fail "fan-in: the job's nodes: ${h[*]}"
F=$A/results/slurm-$(cat "$A/fan.id")/aggregate-${h[0]}.json
addr() { echo "10.77.0.$(($(printf '%d' "'$1") - 96))"; }
[ "$(jq_ "$F" 'sorted((s["peer"], s["ok"], s["verify"]) for s in d["sources"])')" = \
	"[('$(addr "${h[1]}")', True, 'pass'), ('$(addr "${h[2]}")', True, 'pass')]" ] &&
	[ "$(jq_ "$F" 'd["verify"] == "pass" and '"$VALID"' and d["total"]["gb_per_s"] > 0 and d["rdma"]["bytes"] == sum(s["rdma"]["bytes"] for s in d["sources"]) and all(s["rdma"]["bytes"] > 0 for s in d["sources"])')" = True ] ||
	fail "fan-in: $(cat "$F")"
ran_on fan "${h[@]}"
total=$(jq_ "$F" 'd["total"]["gb_per_s"]')
rec fan "sorted(r[\"inventory\"]) == sorted(\"${h[*]}\".split()) and fig(\"end to end\", \"${h[0]}\") == [$total]"
note "fan-in: job $(cat "$A/fan.id") on ${h[*]} in $(cat "$A/fan.secs") s: total $total GB/s ($(verdict "$F"); overlaps $(jq_ "$F" '[s["overlap_pct"] for s in d["streams"] if s["name"] == "rdma"]')), $(jq_ "$F" '", ".join("%s %s %d bytes" % (s["peer"], s["verify"], s["rdma"]["bytes"]) for s in d["sources"])')"

# fleet.sbatch: nbw-fleet run over the job's two nodes, every part measured (one
# round: each node's probe and read, both directions from memory, both nodes' drives
# -> the other's DRAM), finished with a report: judge.json (a suspects list, empty on
# this clean lab), judge.txt and report.html in the sweep's directory, the judgement
# at the end of the job's output, the sweep recorded as one fleet run.
[ "$(cat "$A/fleet.rc")" = 0 ] || fail "fleet: exit $(cat "$A/fleet.rc"): $(tail -n 20 "$A/fleet.out")"
[ "$(field fleet JobState) $(field fleet ExitCode)" = "COMPLETED 0:0" ] ||
	fail "fleet: slurmctld says $(field fleet JobState) $(field fleet ExitCode)"
mapfile -t h < <(hosts fleet)
[ "${#h[@]}" = 2 ] || fail "fleet: the job's nodes: ${h[*]}"
W=$A/fleet-$(cat "$A/fleet.id")
[ -s "$W/sweep.json" ] || fail "fleet: no sweep in $W: $(ls "$A")"
[ "$(jq_ "$W/sweep.json" '(sorted(d["nodes"]), d["state"], d["failed"], d["skipped"])')" = \
	"($(printf "['%s', '%s']" "${h[@]}"), 'done', [], [])" ] ||
	fail "fleet: the sweep: $(jq_ "$W/sweep.json" '(d["nodes"], d["state"], d["failed"], d["skipped"])')"
# shellcheck disable=SC2012 # a count of the parts' files, whose names are ours
parts=$(cd "$W" && ls nodes/*/probe.json nodes/*/read.json fabric/*/*.json remote/*/*.json 2>/dev/null | wc -l)
[ "$parts" = 8 ] || fail "fleet: $parts of 8 parts measured: $(cd "$W" && find . -name '*.json' | sort | tr '\n' ' ')"
[ "$(jq_ "$W/judge.json" '(isinstance(d["suspects"], list), d["suspects"], d["failed"], d["not_measured"], d["nodes"], d["measured_nodes"])')" = \
	"(True, [], [], [], 2, 2)" ] || fail "fleet: the judgement: $(cat "$W/judge.json")"
grep -q '^no suspect: no part below 25% of its kind.s median$' "$W/judge.txt" &&
	grep -q '^no suspect: ' "$A/fleet.out" && grep -q '<html' "$W/report.html" ||
	fail "fleet: no report: judge.txt $(head -n3 "$W/judge.txt" 2>&1), report.html $(wc -c <"$W/report.html" 2>&1)"
# The verdict reaching Slurm: the job exits by it (0: no suspect, every part measured),
# its JUnit XML beside the sweep, FLEET_DRAIN=1 draining nothing on a clean lab.
grep -q '^<testsuites name="nbw-fleet" tests="[0-9]*" failures="0" errors="0" skipped="0"' "$W/junit.xml" &&
	[ "$(jq_ "$W/sweep.json" 'd.get("drained")')" = "[]" ] ||
	fail "fleet: junit.xml $(head -c 300 "$W/junit.xml" 2>&1); drained $(jq_ "$W/sweep.json" 'd.get("drained")')"
ran_on fleet "${h[@]}"
# The job's steps (the lab keeps no accounting, sacct has none: each slurmd logs the
# steps it launched): one srun step per phase or round over the job's nodes (srun
# --multi-prog), never one per pair or per node. Each step a slurmd launched is one of
# the sweep's multi-program configurations (steps/stepNNNN.conf): the preflight, then
# each phase's steps (sweep.json's timing), local, fabric and drive->remote as many as
# the plan's for these nodes (1, its rounds, 1: a step per node or per pair would be 2,
# 1 and 2 here), the retests (isolate) at most the plan's isolate_max. Every step but a
# retest ran on both nodes.
fid=$(cat "$A/fleet.id")
launched() { sed -n "s/.*launch task StepId=$fid\.\([0-9]*\)[^0-9].*/\1/p" "$WORK/$1/out/slurmd.log" | sort -un; }
steps=$(for n in a b c; do launched $n; done | sort -un | wc -l)
# shellcheck disable=SC2012 # a count of the configurations nbw-fleet wrote
confs=$(ls "$W"/steps/step*.conf 2>/dev/null | wc -l)
phase_steps=$(jq_ "$W/sweep.json" '" ".join(str(d["timing"].get(k, {}).get("steps", 0)) for k in ("local", "fabric", "drive->remote", "isolate"))')
plan=$("$PY" "$srcdir/scripts/nbw-fleet" plan --nodes "$(IFS=,; echo "${h[*]}")" --drives 1 \
	--duration 6 --warmup 2 --json | "$PY" -c 'import json, sys; s = json.load(sys.stdin)["steps"]; print(s["local"], s["fabric"], s["remote"], s["isolate_max"])')
read -r p_local p_fabric p_remote p_isolate <<<"$plan"
read -r s_local s_fabric s_remote s_isolate <<<"$phase_steps"
[ "$s_local $s_fabric $s_remote" = "$p_local $p_fabric $p_remote" ] && [ "$s_isolate" -le "$p_isolate" ] ||
	fail "fleet: the sweep's steps (local fabric drive->remote isolate) $phase_steps, the plan's $plan"
[ "$steps" = "$confs" ] && [ "$steps" = $((1 + s_local + s_fabric + s_remote + s_isolate)) ] ||
	fail "fleet: the slurmds launched $steps steps of job $fid, the sweep wrote $confs configurations, its phases ran 1 + $phase_steps: $(grep -h "launch task StepId=$fid\." "$WORK"/[abc]/out/slurmd.log | tr '\n' ';')"
both=$(comm -12 <(launched "${h[0]}") <(launched "${h[1]}") | wc -l)
[ "$both" -ge $((steps - s_isolate)) ] || fail "fleet: $both of the $steps steps ran on both nodes"
note "fleet: $steps job steps (slurmd's logs), as many as the sweep's configurations: preflight 1, local $s_local, fabric $s_fabric, drive->remote $s_remote, isolate $s_isolate (the plan: $p_local, $p_fabric, $p_remote, isolate at most $p_isolate); $both over both nodes"
note "fleet: the judgement (judge.txt): $(head -n 12 "$W/judge.txt" | tr '\n' '|')"
rec fleet "r[\"mode\"] == \"fleet\" and r[\"exit_status\"] == 0 and len(r[\"figures\"]) > 0"
note "fleet: job $(cat "$A/fleet.id") on ${h[*]} in $(cat "$A/fleet.secs") s: $parts parts, no suspect, $(jq_ "$W/judge.json" '", ".join("%s %s %s %.3f GB/s" % (p["kind"], p["node"], p["component"], p["figure_gb_per_s"]) for p in d["parts"] if p.get("figure_gb_per_s") is not None)')"

# scancel while the tools ran: gone within 60 s, no tool left anywhere.
grep -Eq '^[0-9]+\.[0-9]+ ' "$A/cancel.steps" || fail "cancel: no step was running: $(cat "$A/cancel.steps")"
[ "$(field cancel JobState)" = CANCELLED ] || fail "cancel: state $(field cancel JobState)"
[ "$(cat "$A/cancel.secs")" -le 60 ] || fail "cancel: the job took $(cat "$A/cancel.secs") s to end"
[ "$(cat "$A/left.rc")" = 0 ] && [ "$(sort "$A/left.txt" | tr '\n' ' ')" = "vlab-a 0 vlab-b 0 vlab-c 0 " ] ||
	fail "cancel: tool processes left, or a node not asked (srun exit $(cat "$A/left.rc")): $(cat "$A/left.txt" "$A/left.err")"
note "cancel: job $(cat "$A/cancel.id") ($(grep -c '' "$A/cancel.steps") lines of steps) gone $(cat "$A/cancel.secs") s after scancel; no tool process on a, b or c"
echo "PASS: $test_name"
