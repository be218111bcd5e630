#!/bin/bash
# Lab test of deploy/slurm/ under a real Slurm (Debian's slurm-wlm, brought up
# by scripts/vlab.d/slurm-up.sh in three nodes): sbatch --wait aggregate.sbatch
# ends 0 with a valid total (by the sink's rules as the node script loosens
# them for emulated nodes: SINK_ARGS in slurm_jobs_a.sh) and both sides verified; fanin.sbatch with two
# sources the same, each source's row verified; the steps ran where the job
# says (each node's slurmd logged a step of the job it served, and no other
# node did); a job with one node too few ends at once, one line, exit 2; an
# aggregate cancelled while its tools run is gone within 60 s and leaves no
# tool process on any node. Minutes: make check-slow (deploy/Makemodule.am).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab-lib.sh"
command -v slurmctld >/dev/null && command -v slurmd >/dev/null && command -v munged >/dev/null || {
	echo "SKIP: slurm-wlm and munge are not installed (scripts/quickstart installs them)"
	exit 77
}
node=$srcdir/tests/lab/slurm_jobs_node.sh
run_lab --nodes 3 --drives 1 --drive-size 64M --timeout 600 \
	--on-b "$node" --on-c "$node" "$srcdir/tests/lab/slurm_jobs_a.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
A=$WORK/a/out
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" "$A/$1.job"; } # field JOB KEY: from scontrol show job
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

# One node too few: at once, one line, exit 2 (the job's; sbatch --wait passes it on).
[ "$(cat "$A/few.rc")" = 2 ] || fail "too few nodes: sbatch --wait exit $(cat "$A/few.rc"): $(cat "$A/few.out" "$A/few.err")"
[ "$(grep -c '' "$A/few.out")" = 1 ] &&
	grep -Eq '^aggregate\.sbatch: job [0-9]+ has 1 node \([abc]\), aggregate \(a sink and a source\) needs 2: sbatch --nodes=2$' "$A/few.out" ||
	fail "too few nodes: $(cat "$A/few.out")"
# At once: no step of the job started anywhere, no results, and the job ran
# (slurmctld's RunTime) under a minute: the batch script's start alone takes
# 10-15 s in these emulated nodes on a loaded host (sbatch --wait polls too).
ran_on few
[ ! -e "$A/results/slurm-$(cat "$A/few.id")" ] || fail "too few nodes: a results directory"
rt=$(field few RunTime)
[[ $rt =~ ^00:00:[0-5][0-9]$ ]] || fail "too few nodes: the job ran $rt"
note "too few nodes: exit 2, no step, the job ran $rt (sbatch --wait returned after $(cat "$A/few.secs") s): $(cat "$A/few.out")"

# aggregate: the sink and the source of the job's two nodes, both verified.
[ "$(cat "$A/agg.rc")" = 0 ] || fail "aggregate: exit $(cat "$A/agg.rc"): $(tail -n5 "$A/agg.out")"
mapfile -t h < <(hosts agg)
[ "${#h[@]}" = 2 ] || fail "aggregate: the job's nodes: ${h[*]}"
R=$A/results/slurm-$(cat "$A/agg.id")
S=$R/aggregate-${h[0]}.json
[ "$(jq_ "$S" 'd["role"] == "sink" and d["ok"] is True and d["verify"] == "pass" and d["total_valid"] is True and d["total"]["gb_per_s"] > 0 and d["rdma"]["bytes"] > 0 and d["local"]["bytes"] > 0')" = True ] ||
	fail "aggregate: sink on ${h[0]}: $(cat "$S")"
[ "$(jq_ "$R/aggregate-${h[1]}.json" 'd["role"] == "source" and d["verify"] == "pass" and d["rdma"]["bytes"] > 0')" = True ] ||
	fail "aggregate: source on ${h[1]}: $(cat "$R/aggregate-${h[1]}.json")"
grep -q "sink on ${h[0]}:" "$A/agg.out" && grep -q "source on ${h[1]} (try 1)" "$A/agg.out" ||
	fail "aggregate: the job's output: $(cat "$A/agg.out")"
ran_on agg "${h[@]}"
note "aggregate: job $(cat "$A/agg.id") on ${h[*]} in $(cat "$A/agg.secs") s: total $(jq_ "$S" 'd["total"]["gb_per_s"]') GB/s (valid), sink and source verify pass"

# fan-in: the first node the sink, the two others its sources.
[ "$(cat "$A/fan.rc")" = 0 ] || fail "fan-in: exit $(cat "$A/fan.rc"): $(tail -n5 "$A/fan.out")"
mapfile -t h < <(hosts fan)
[ "${#h[@]}" = 3 ] || fail "fan-in: the job's nodes: ${h[*]}"
F=$A/results/slurm-$(cat "$A/fan.id")/aggregate-${h[0]}.json
addr() { echo "10.77.0.$(($(printf '%d' "'$1") - 96))"; }
[ "$(jq_ "$F" 'sorted((s["peer"], s["ok"], s["verify"]) for s in d["sources"])')" = \
	"[('$(addr "${h[1]}")', True, 'pass'), ('$(addr "${h[2]}")', True, 'pass')]" ] &&
	[ "$(jq_ "$F" 'd["verify"] == "pass" and d["total_valid"] is True and d["total"]["gb_per_s"] > 0')" = True ] ||
	fail "fan-in: $(cat "$F")"
ran_on fan "${h[@]}"
note "fan-in: job $(cat "$A/fan.id") on ${h[*]} in $(cat "$A/fan.secs") s: total $(jq_ "$F" 'd["total"]["gb_per_s"]') GB/s (valid), $(jq_ "$F" '", ".join("%s %s" % (s["peer"], s["verify"]) for s in d["sources"])')"

# scancel while the tools ran: gone within 60 s, no tool left anywhere.
grep -Eq '^[0-9]+\.[0-9]+ ' "$A/cancel.steps" || fail "cancel: no step was running: $(cat "$A/cancel.steps")"
[ "$(field cancel JobState)" = CANCELLED ] || fail "cancel: state $(field cancel JobState)"
[ "$(cat "$A/cancel.secs")" -le 60 ] || fail "cancel: the job took $(cat "$A/cancel.secs") s to end"
[ "$(cat "$A/left.rc")" = 1 ] && [ ! -s "$A/left.txt" ] ||
	fail "cancel: tool processes left (pgrep exit $(cat "$A/left.rc")): $(cat "$A/left.txt" "$A/left.err")"
note "cancel: job $(cat "$A/cancel.id") ($(grep -c '' "$A/cancel.steps") lines of steps) gone $(cat "$A/cancel.secs") s after scancel; no tool process on a, b or c"
echo "PASS: $test_name"
