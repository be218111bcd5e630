#!/bin/bash
# The batch scripts of deploy/slurm/ against a fake scontrol and a fake srun:
# the sink and the sources picked from the allocation (first node the sink;
# aggregate and ladder the second as source, fanin every other node), the
# LAUNCHER (srun --nodes=1 --ntasks=1 --overlap -w HOST, argv unquoted), the
# results in the submit directory under slurm-JOBID, run_bench.sh's exit
# status passed on, too few nodes one line and exit 2 at once, nbw-results
# given the run with the job id as note, the sink's address from RDMA_NETDEV;
# then aggregate and fan-in end to end through the real run_bench.sh with
# the fake nvme_write_bw_remote, every step on the node it names. The real
# srun is proved in the lab (tests/lab/slurm_jobs.sh, make check-slow).
# shellcheck disable=SC2010,SC2012 # ls lists and counts the files this test made
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/scripts/lib.sh"
make_fakes
D=$abs_top_srcdir/deploy/slurm
SUBMIT=$TMPD/submit
mkdir -p "$SUBMIT" "$TMPD/spool"

# scontrol: show hostnames LIST (comma list, no ranges) | show job -o ID.
cat >"$TMPD/bin/scontrol" <<SH
#!/bin/bash
case "\$1 \$2" in
"show hostnames") tr ',' '\n' <<<"\$3" ;;
"show job") echo "JobId=\$4 JobName=x UserId=root(0) Command=$D/\${FAKE_SCRIPT:-aggregate.sbatch} WorkDir=$SUBMIT" ;;
*) echo "scontrol: unexpected \$*" >&2; exit 1 ;;
esac
SH
# srun: records argv (NUL-separated) in calls/srun.N (created exclusively: two steps
# at once never write one file); wants exactly --nodes=1 --ntasks=1 --overlap -w
# HOST before the command; runs it.
cat >"$TMPD/bin/srun" <<'SH'
#!/bin/bash
d=$(cd "$(dirname "$0")/.." && pwd)
n=$(ls "$d/calls" | wc -l)
until (set -C; printf '%s\0' "$@" >"$d/calls/srun.$n") 2>/dev/null; do n=$((n + 1)); done
# nbw-fleet run's step over its nodes (--multi-prog): the fleet tests' srun runs it.
case " $* " in *" --multi-prog "*) exec "$abs_top_srcdir/tests/fleet/fakes/srun" "$@" ;; esac
[ "$1 $2 $3 $4" = "--nodes=1 --ntasks=1 --overlap -w" ] && [ -n "$5" ] ||
	{ echo "srun: unexpected options: $*" >&2; exit 2; }
export FAKE_NODE=$5 # the node, for tests/fleet/fakes
shift 5
exec "$@"
SH
# ip -4 -o addr show dev IF (the sink's address for RDMA_NETDEV).
cat >"$TMPD/bin/ip" <<'SH'
#!/bin/bash
[ "$*" = "-4 -o addr show dev ib0" ] || exit 1
d=$(cd "$(dirname "$0")/.." && pwd)
[ -e "$d/fake/ip.answer" ] && exec cat "$d/fake/ip.answer"
echo "4: ib0    inet 10.9.0.7/24 brd 10.9.0.255 scope global ib0\\       valid_lft forever"
SH
# A run_bench.sh stand-in: its mode and the settings it got, one a line.
cat >"$TMPD/bin/run_bench.sh" <<'SH'
#!/bin/bash
[ "$1" = --help ] && { echo "Usage: run_bench.sh"; exit 0; }
d=$(cd "$(dirname "$0")/.." && pwd)
{
	echo "mode=$1"
	for v in SINK_NODE SRC_NODE SRC_NODES SINK_ADDR LAUNCHER LAUNCHER_QUOTE RESULTS_DIR RUN_NAME; do
		echo "$v=${!v-(unset)}"
	done
} >"$d/fake/rb.env"
mkdir -p "$RESULTS_DIR/$RUN_NAME"
exit "$(cat "$d/fake/rb.rc" 2>/dev/null || echo 0)"
SH
cat >"$TMPD/bin/nbw-results" <<'SH'
#!/bin/bash
d=$(cd "$(dirname "$0")/.." && pwd)
printf '%s\n' "$@" >"$d/fake/nbw-results.argv"
SH
chmod +x "$TMPD/bin/"*
export PATH=$TMPD/bin:$PATH
unset SLURM_JOB_NODELIST SLURM_JOB_ID SINK_ADDR SRC_NODE SRC_NODES RESULTS_DIR RUN_NAME NOTE RDMA_NETDEV
export SLURM_SUBMIT_DIR=$SUBMIT SLURM_JOB_ID=77
env_of() { sed -n "s/^$1=//p" "$TMPD/fake/rb.env"; }

# job SCRIPT NODELIST: run the batch script as slurmd would, a copy in the spool.
job() {
	cp "$D/$1" "$TMPD/spool/slurm_script"
	(cd "$SUBMIT" && FAKE_SCRIPT=$1 SLURM_JOB_NODELIST=$2 timeout 120 bash "$TMPD/spool/slurm_script") \
		>"$TMPD/out" 2>"$TMPD/err"
}

# --- node picking with the run_bench.sh stand-in ---------------------------------
export RUN_BENCH=$TMPD/bin/run_bench.sh
expect_exit 2 '^aggregate.sbatch: not inside a Slurm job' bash "$D/aggregate.sbatch"
for s in aggregate ladder fanin; do
	reset_fakes
	n=2
	[ $s = fanin ] && n=3
	few=n1
	[ $s = fanin ] && few=n1,n2
	job $s.sbatch $few
	check_eq "$s, too few nodes: exit 2" 2 $?
	check_match "$s, too few nodes: one line" \
		"^$s\\.sbatch: job 77 has $((n - 1)) nodes? \\(${few//,/ }\\), .* needs $n: sbatch --nodes=$n\$" "$(cat "$TMPD/err")"
	check_eq "$s, too few nodes: nothing started" "no no" \
		"$([ -e "$TMPD/fake/rb.env" ] && echo yes || echo no) $(ls "$TMPD/calls" | grep -q srun && echo yes || echo no)"
done

reset_fakes
job aggregate.sbatch n1,n2,n3
check_eq "aggregate: exit status" 0 $?
check_eq "aggregate: mode, sink, source, no SRC_NODES, address" "aggregate n1 n2 (unset) n1" \
	"$(env_of mode) $(env_of SINK_NODE) $(env_of SRC_NODE) $(env_of SRC_NODES) $(env_of SINK_ADDR)"
check_eq "LAUNCHER: one srun step on the named node, overlapping" \
	"srun --nodes=1 --ntasks=1 --overlap -w|no" "$(env_of LAUNCHER)|$(env_of LAUNCHER_QUOTE)"
check_eq "results: the submit directory, slurm-JOBID" "$SUBMIT/results slurm-77" "$(env_of RESULTS_DIR) $(env_of RUN_NAME)"
check_eq "nbw-results: the run recorded with the job id as note" \
	"record --note slurm job 77 $SUBMIT/results/slurm-77" "$(tr '\n' ' ' <"$TMPD/fake/nbw-results.argv" | sed 's/ $//')"
check_match "the job's output names the nodes" '^aggregate.sbatch: job 77 on n1 n2 n3: aggregate, sink n1 \(n1\), source\(s\) n2$' \
	"$(cat "$TMPD/err")"

reset_fakes
echo 1 >"$TMPD/fake/rb.rc"
SRC_NODES="x y" RDMA_NETDEV=ib0 job fanin.sbatch n4,n5,n6,n7
check_eq "fanin: run_bench.sh's failure is the job's exit status" 1 $?
check_eq "fanin: sink, sources (all the others; SRC_NODES from outside replaced)" "aggregate n4 (unset) n5 n6 n7" \
	"$(env_of mode) $(env_of SINK_NODE) $(env_of SRC_NODE) $(env_of SRC_NODES)"
check_eq "RDMA_NETDEV=ib0: the sink's address on it, asked on the sink" "10.9.0.7 n4" \
	"$(env_of SINK_ADDR) $(nth_call srun 1 | sed -n 5p)"

# The sink's answer is its word: a word that is no numeric IPv4 address (one a tool
# would read as an option) skips the job with one line, nothing run.
reset_fakes
printf '4: ib0    inet --dump-slice=.bashrc/24 scope global ib0\n' >"$TMPD/fake/ip.answer"
RDMA_NETDEV=ib0 job fanin.sbatch n4,n5,n6
check_eq "RDMA_NETDEV=ib0, the sink answers an option: exit 1" 1 $?
check_match "... said in one line" "^fanin\\.sbatch: RDMA_NETDEV=ib0: n4 answered '--dump-slice=\\.bashrc', not a numeric IPv4 address: skipped\$" \
	"$(cat "$TMPD/err")"
check_eq "... run_bench.sh not run" no "$([ -e "$TMPD/fake/rb.env" ] && echo yes || echo no)"
rm -f "$TMPD/fake/ip.answer"

reset_fakes
SRC_NODE=zz job ladder.sbatch n1,n2
check_eq "ladder: mode, sink, source" "ladder n1 n2" "$(env_of mode) $(env_of SINK_NODE) $(env_of SRC_NODE)"
RESULTS_DIR=$TMPD/elsewhere RUN_NAME=mine job ladder.sbatch n1,n2
check_eq "RESULTS_DIR and RUN_NAME from outside kept" "$TMPD/elsewhere mine" "$(env_of RESULTS_DIR) $(env_of RUN_NAME)"
reset_fakes
RUN_BENCH=/nonexistent/run_bench.sh NBW_SLURM_DIR=$D job aggregate.sbatch n1,n2
check_eq "RUN_BENCH that is not there: exit 1, one line" \
	"1 aggregate.sbatch: RUN_BENCH=/nonexistent/run_bench.sh: not an executable file" "$? $(cat "$TMPD/err")"

# --- fleet.sbatch with an nbw-fleet stand-in: its argv and LAUNCHER -------------
# (run: its argv in fleet.argv; with fake/fleet.judged, a judge.json in --out, as a
# sweep judged; judge: its argv in fleet.judge.argv, a line of judgement on stdout)
cat >"$TMPD/bin/nbw-fleet" <<'SH'
#!/bin/bash
d=$(cd "$(dirname "$0")/.." && pwd)
if [ "$1" = judge ]; then
	printf '%s\n' "$@" >"$d/fake/fleet.judge.argv"
	echo "nbw-fleet judge: no suspect"
	exit 0
fi
{ printf '%s\n' "$@"; echo "LAUNCHER=$LAUNCHER|$LAUNCHER_QUOTE|${NBW_RUN_BENCH-(unset)}"; } >"$d/fake/fleet.argv"
[ ! -e "$d/fake/fleet.judged" ] || { mkdir -p "$5" && echo '{"suspects": []}' >"$5/judge.json"; }
exit "$(cat "$d/fake/fleet.rc" 2>/dev/null || echo 0)"
SH
chmod +x "$TMPD/bin/nbw-fleet"
export NBW_FLEET=$TMPD/bin/nbw-fleet
reset_fakes
job fleet.sbatch n1
check_eq "fleet, one node: exit 2, one line, nothing run" \
	"2|fleet.sbatch: job 77 has 1 node (n1), a fleet sweep (pairs of nodes) needs 2: sbatch --nodes=2|no" \
	"$?|$(cat "$TMPD/err")|$([ -e "$TMPD/fake/fleet.argv" ] && echo yes || echo no)"
reset_fakes
FAKE_SCRIPT=fleet.sbatch job fleet.sbatch n1,n2,n3,n4
check_eq "fleet: exit status" 0 $?
check_eq "fleet: every node of the job, the sweep in the submit directory, its JUnit XML there, the job failing by the verdict, no launcher set (nbw-fleet run steps the allocation itself)" \
	"run|--nodes|n1,n2,n3,n4|--out|$SUBMIT/fleet-77|--junit|$SUBMIT/fleet-77/junit.xml|--fail-on|suspect,unmeasured|LAUNCHER=||(unset)" \
	"$(tr '\n' '|' <"$TMPD/fake/fleet.argv" | sed 's/|$//')"
check_match "fleet: the job's output names the nodes and the sweep" \
	"^fleet.sbatch: job 77 on n1 n2 n3 n4: nbw-fleet run, the sweep in $SUBMIT/fleet-77\$" "$(cat "$TMPD/err")"
check_eq "fleet: no judgement (no judge.json), nothing judged again nor recorded" "no no" \
	"$([ -e "$TMPD/fake/fleet.judge.argv" ] && echo yes || echo no) $([ -e "$TMPD/fake/nbw-results.argv" ] && echo yes || echo no)"
# A sweep judged: its text and page beside judge.json, recorded with the job id as note
# (into RESULTS; RESULTS=none: not recorded).
reset_fakes
rm -rf "$SUBMIT/fleet-77"
touch "$TMPD/fake/fleet.judged"
RESULTS=$TMPD/rec job fleet.sbatch n1,n2
check_eq "fleet judged: exit status" 0 $?
check_eq "fleet judged: judged again into the sweep's directory, its text there" \
	"judge --html $SUBMIT/fleet-77/report.html $SUBMIT/fleet-77|nbw-fleet judge: no suspect" \
	"$(tr '\n' ' ' <"$TMPD/fake/fleet.judge.argv" | sed 's/ $//')|$(cat "$SUBMIT/fleet-77/judge.txt")"
check_eq "fleet judged: recorded into RESULTS with the job id as note" \
	"record --db $TMPD/rec --note slurm job 77 $SUBMIT/fleet-77" "$(tr '\n' ' ' <"$TMPD/fake/nbw-results.argv" | sed 's/ $//')"
reset_fakes
rm -rf "$SUBMIT/fleet-77"
touch "$TMPD/fake/fleet.judged"
job fleet.sbatch n1,n2
check_eq "fleet judged, RESULTS=none: judged, not recorded" "0 yes no" \
	"$? $([ -s "$SUBMIT/fleet-77/judge.txt" ] && echo yes || echo no) $([ -e "$TMPD/fake/nbw-results.argv" ] && echo yes || echo no)"
# A SUSPECT node: nbw-fleet run's exit 3 (--fail-on) is the job's, the report still made.
reset_fakes
rm -rf "$SUBMIT/fleet-77"
touch "$TMPD/fake/fleet.judged"
echo 3 >"$TMPD/fake/fleet.rc"
job fleet.sbatch n1,n2
check_eq "fleet, a suspect: the job exits 3, judged again" "3 yes" \
	"$? $([ -s "$SUBMIT/fleet-77/judge.txt" ] && echo yes || echo no)"
reset_fakes
echo 130 >"$TMPD/fake/fleet.rc"
RAIL_DEVS=mlx5_0,mlx5_1 RDMA_NETDEV=ib0 FLEET_ARGS="--pairs 2 --duration 10" FLEET_DIR=$TMPD/sw \
	FLEET_FAIL_ON=suspect FLEET_DRAIN=1 job fleet.sbatch n1,n2
check_eq "fleet: nbw-fleet's status is the job's; rails, netdev, FLEET_FAIL_ON, FLEET_DRAIN, FLEET_ARGS and FLEET_DIR passed" \
	"130|run --nodes n1,n2 --out $TMPD/sw --rail-devs mlx5_0,mlx5_1 --rdma-netdev ib0 --junit $TMPD/sw/junit.xml --fail-on suspect --drain --pairs 2 --duration 10" \
	"$?|$(sed '$d' "$TMPD/fake/fleet.argv" | tr '\n' ' ' | sed 's/ $//')"
reset_fakes
NBW_FLEET=/nonexistent/nbw-fleet job fleet.sbatch n1,n2
check_eq "fleet: NBW_FLEET that is not there: exit 1, one line" \
	"1 fleet.sbatch: NBW_FLEET=/nonexistent/nbw-fleet: not an executable file" "$? $(cat "$TMPD/err")"
unset NBW_FLEET
rm "$TMPD/bin/nbw-fleet"

# --- end to end: the real run_bench.sh, the fake tools ---------------------------
unset RUN_BENCH
rm "$TMPD/bin/run_bench.sh" "$TMPD/bin/nbw-results"
export TOOL_DIR=$TMPD/tools SINK_ADDR=10.0.0.1 DRAM=64M NET_TIMEOUT=1 WARMUP=1 DURATION=1
reset_fakes
job aggregate.sbatch n1,n2
check_eq "aggregate end to end: exit status" 0 $?
R=$SUBMIT/results/slurm-77
check_eq "sink and source JSON in the job's results" "sink source" \
	"$(json_get "$R/aggregate-n1.json" 'd["role"]') $(json_get "$R/aggregate-n2.json" 'd["role"]')"
check_eq "srun steps: the sink on n1, then the source on n2" "n1 n2" \
	"$(nth_call srun 1 | sed -n 5p) $(nth_call srun 2 | sed -n 5p)"
check_eq "srun step: the command's argv unquoted after HOST" "sh|-c" "$(nth_call srun 2 | sed -n '6,7p' | tr '\n' '|' | sed 's/|$//')"
check_eq "the sink's argv: --local-disks absent, --json last" "--json" "$(tail -n1 "$TMPD/fake/argv.sink")"

reset_fakes
rm -rf "$R"
job fanin.sbatch n1,n2,n3
check_eq "fan-in end to end: exit status" 0 $?
check_eq "fan-in: the sink takes 2 sources" 2 "$(grep -A1 -x -- --sources "$TMPD/fake/argv.sink" | tail -n1)"
check_eq "fan-in: steps on n1, n2, n3" "n1 n2 n3" \
	"$(for i in 1 2 3; do nth_call srun $i | sed -n 5p; done | sort | tr '\n' ' ' | sed 's/ $//')"
check_match "fan-in summary: a row per source" 'from 10\.0\.0\.3' "$(cat "$R/summary.txt")"

# fleet.sbatch end to end: the real nbw-fleet (beside deploy/slurm in the tree), its
# run_bench.sh and nbw-results, every command an srun step, the fleet's fake tools
# (tests/fleet/fakes; the step's node is FAKE_NODE): one round of two nodes, every part
# measured, the report beside judge.json, the judgement in the job's output, recorded.
reset_fakes
mkdir -p "$TMPD/ffake"
rm -rf "$SUBMIT/fleet-77"
TOOL_DIR=$abs_top_srcdir/tests/fleet/fakes FAKE_DIR=$TMPD/ffake RESULTS=$TMPD/frec \
	NBW_RESULTS_INDEX=$TMPD/frec.sqlite FLEET_ARGS="--duration 1 --warmup 0" SINK_ADDR='' \
	job fleet.sbatch n1,n2
check_eq "fleet end to end: exit status" 0 $?
W=$SUBMIT/fleet-77
check_eq "fleet end to end: the sweep, done, nothing failed" "['n1', 'n2'] done [] []" \
	"$(json_get "$W/sweep.json" '"%s %s %s %s" % (d["nodes"], d["state"], d["failed"], d["skipped"])')"
check_eq "fleet end to end: every part (probes, reads, both ways from memory and from drives)" 8 \
	"$(cd "$W" && ls nodes/*/probe.json nodes/*/read.json fabric/*/*.json remote/*/*.json | wc -l)"
check_eq "fleet end to end: the report, no suspect" "[] yes yes" \
	"$(json_get "$W/judge.json" 'd["suspects"]') $(grep -q '^no suspect' "$W/judge.txt" && echo yes) $(grep -q '<html' "$W/report.html" && echo yes)"
check_match "fleet end to end: the judgement in the job's output" '^no suspect: ' "$(cat "$TMPD/out")"
check_eq "fleet end to end: every step over n1 and n2, one task each" "step n1,n2 2" \
	"$(sort -u "$TMPD/ffake/srun.log")"
check_match "fleet end to end: recorded as one fleet run, the job id as note" \
	'"mode": ?"fleet".*"note": ?"slurm job 77"|"note": ?"slurm job 77".*"mode": ?"fleet"' "$(cat "$TMPD/frec/runs.jsonl" 2>/dev/null)"
check_eq "no process left" "" "$(leftovers)"
finish
