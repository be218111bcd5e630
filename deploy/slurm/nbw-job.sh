# deploy/slurm/nbw-job.sh: what the batch scripts of deploy/slurm/ share
# shellcheck shell=bash disable=SC2154 # job_prog, nbw_dir: set by the batch script
# (sourced by ladder.sbatch, aggregate.sbatch, fanin.sbatch and fleet.sbatch; bash). The
# script sets job_prog (its name in messages) first.
#
# Inside a job: the allocation's nodes in Slurm's order (scontrol show
# hostnames "$SLURM_JOB_NODELIST"), the first the sink; scripts/run_bench.sh
# started with LAUNCHER = one srun step per command on one named node of the
# allocation:
#
#   srun --nodes=1 --ntasks=1 --overlap -w HOST CMD...
#
# --nodes=1 --ntasks=1 -w HOST: one task on that node, whatever the job asked
# for (-N, --ntasks-per-node). --overlap: the sink, its sources and the steps
# that stop them run at the same time on the job's nodes, beside the batch
# script itself; without it, Slurm 22.05 gives a step CPUs no other step holds
# and a second step on a busy node waits ("step creation temporarily
# disabled") until the first ends: the sink's stop step would wait for the
# sink. Not --exact: the step gets every CPU the job has on the node (the
# tools' threads are not confined to one core). srun passes CMD's argv
# unchanged (LAUNCHER_QUOTE=no); scancel ends the steps and the batch script,
# whose run_bench.sh stops the tools (their own --timeout bounds them too).

nbw_say() { echo "$job_prog: $*" >&2; }

# nbw_hosts NEED WHAT: the job's nodes in hosts[]; fewer than NEED: one line,
# exit 2.
nbw_hosts() {
	local n
	if [ -z "${SLURM_JOB_NODELIST:-}" ]; then
		nbw_say "not inside a Slurm job (SLURM_JOB_NODELIST unset): submit it with sbatch"
		exit 2
	fi
	# (No process substitution: a node without /dev/fd, as the lab's, has none.)
	read -ra hosts <<<"$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null | tr '\n' ' ')"
	n=${#hosts[@]}
	if [ "$n" -lt "$1" ]; then
		nbw_say "job ${SLURM_JOB_ID:-?} has $n node$([ "$n" = 1 ] || echo s) (${hosts[*]:-$SLURM_JOB_NODELIST}), $2 needs $1: sbatch --nodes=$1"
		exit 2
	fi
}

# nbw_run_bench: run_bench.sh's path: RUN_BENCH when set, else the one beside
# this file in a checkout, else the installed one.
nbw_run_bench() {
	local c
	if [ -n "${RUN_BENCH:-}" ]; then
		[ -x "$RUN_BENCH" ] && { printf '%s\n' "$RUN_BENCH"; return 0; }
		nbw_say "RUN_BENCH=$RUN_BENCH: not an executable file"
		return 1
	fi
	for c in "$nbw_dir/../../scripts/run_bench.sh" /usr/share/nvme-rdma-bw/run_bench.sh; do
		[ -x "$c" ] && { printf '%s\n' "$c"; return 0; }
	done
	nbw_say "run_bench.sh not found beside $nbw_dir nor in /usr/share/nvme-rdma-bw (set RUN_BENCH)"
	return 1
}

# nbw_sink_addr: SINK_ADDR when set; else, with RDMA_NETDEV, the sink's IPv4
# address on it (asked on the sink through a step); else the sink's name.
nbw_sink_addr() {
	local a
	if [ -n "${SINK_ADDR:-}" ] || [ -z "${RDMA_NETDEV:-}" ]; then
		printf '%s\n' "${SINK_ADDR:-$SINK_NODE}"
		return 0
	fi
	a=$(timeout 60 "${launcher[@]}" "$SINK_NODE" ip -4 -o addr show dev "$RDMA_NETDEV" </dev/null |
		awk '{ sub(/\/.*/, "", $4); print $4; exit }')
	if [ -z "$a" ]; then
		nbw_say "RDMA_NETDEV=$RDMA_NETDEV: no IPv4 address on $SINK_NODE"
		return 1
	fi
	# The sink's answer is its word: only a numeric IPv4 address is taken.
	if ! [[ $a =~ ^(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])(\.(25[0-5]|2[0-4][0-9]|1?[0-9]?[0-9])){3}$ ]]; then
		nbw_say "RDMA_NETDEV=$RDMA_NETDEV: $SINK_NODE answered '$(printf '%s' "${a:0:80}" | tr -c '[:print:]' '?')', not a numeric IPv4 address: skipped"
		return 1
	fi
	printf '%s\n' "$a"
}

# nbw_run MODE: run_bench.sh MODE in the allocation; results in
# RESULTS_DIR/RUN_NAME [$SLURM_SUBMIT_DIR/results/slurm-JOBID]; recorded with
# nbw-results when it is installed; exits with run_bench.sh's status.
nbw_run() {
	local mode=$1 rb rc dir
	rb=$(nbw_run_bench) || exit 1
	launcher=(srun --nodes=1 --ntasks=1 --overlap -w)
	export LAUNCHER="${launcher[*]}" LAUNCHER_QUOTE=no
	export RESULTS_DIR=${RESULTS_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/results}
	export RUN_NAME=${RUN_NAME:-slurm-${SLURM_JOB_ID:-0}}
	export NOTE=${NOTE:-slurm job ${SLURM_JOB_ID:-?}}
	SINK_ADDR=$(nbw_sink_addr) || exit 1
	export SINK_NODE SINK_ADDR RDMA_DEV SINK_DISKS SRC_DISKS TOOL_DIR
	[ -n "${SRC_NODES:-}" ] && export SRC_NODES || export SRC_NODE
	nbw_say "job ${SLURM_JOB_ID:-?} on ${hosts[*]}: $mode, sink $SINK_NODE ($SINK_ADDR), source(s) ${SRC_NODES:-$SRC_NODE}"
	"$rb" "$mode"
	rc=$?
	dir=$RESULTS_DIR/$RUN_NAME
	# A run_bench.sh that records by itself names RESULTS in its --help.
	if [ -d "$dir" ] && command -v nbw-results >/dev/null && ! "$rb" --help | grep -q '^  RESULTS '; then
		nbw-results record --note "$NOTE" "$dir" >/dev/null ||
			nbw_say "nbw-results record $dir failed (the results stay in $dir)"
	fi
	exit "$rc"
}

# nbw_fleet_cmd: nbw-fleet's path: NBW_FLEET when set, else the one beside this
# file in a checkout, else the installed one.
nbw_fleet_cmd() {
	local c
	if [ -n "${NBW_FLEET:-}" ]; then
		[ -x "$NBW_FLEET" ] && { printf '%s\n' "$NBW_FLEET"; return 0; }
		nbw_say "NBW_FLEET=$NBW_FLEET: not an executable file"
		return 1
	fi
	for c in "$nbw_dir/../../scripts/nbw-fleet" "$(command -v nbw-fleet)"; do
		[ -n "$c" ] && [ -x "$c" ] && { printf '%s\n' "$c"; return 0; }
	done
	nbw_say "nbw-fleet not found beside $nbw_dir nor on PATH (set NBW_FLEET)"
	return 1
}

# nbw_fleet_report FLEET: a judged sweep's report beside its judge.json in
# FLEET_DIR: judge.txt (the judgement's text, as the job's output ends with it)
# and report.html; then the sweep recorded as one fleet run with the job id as
# note (nbw-results record, beside FLEET or on PATH; into RESULTS when set, none =
# no record). A failure is said, never the job's status.
nbw_fleet_report() {
	local nr db=()
	[ -s "$FLEET_DIR/judge.json" ] || return 0
	"$1" judge --html "$FLEET_DIR/report.html" "$FLEET_DIR" >"$FLEET_DIR/judge.txt" ||
		nbw_say "nbw-fleet judge $FLEET_DIR failed: no judge.txt, report.html"
	[ "${RESULTS:-}" != none ] || return 0
	nr=$(dirname "$1")/nbw-results
	[ -x "$nr" ] || nr=$(command -v nbw-results) || return 0
	[ -z "${RESULTS:-}" ] || db=(--db "$RESULTS")
	"$nr" record "${db[@]}" --note "${NOTE:-slurm job ${SLURM_JOB_ID:-?}}" "$FLEET_DIR" >&2 ||
		nbw_say "nbw-results record $FLEET_DIR failed (the sweep stays in $FLEET_DIR)"
}

# nbw_end_time: SLURM_JOB_END_TIME (the allocation's end, UNIX seconds) when Slurm did
# not set it, from scontrol show job's EndTime: nbw-fleet run refuses a plan that does
# not fit the time left, and says which setting would.
nbw_end_time() {
	local e
	[ -z "${SLURM_JOB_END_TIME:-}" ] || return 0
	e=$(scontrol show job -o "${SLURM_JOB_ID:-}" 2>/dev/null | sed -n 's/.* EndTime=\([0-9T:-]*\) .*/\1/p')
	[ -n "$e" ] && e=$(date -d "$e" +%s 2>/dev/null) && export SLURM_JOB_END_TIME=$e
	return 0
}

# nbw_fleet: nbw-fleet run over every node of the job (hosts[]): it sees the allocation
# and runs ONE srun step per phase or round over it (srun --multi-prog: each rank its
# node's part), never a step per pair; the sweep in FLEET_DIR
# [$SLURM_SUBMIT_DIR/fleet-JOBID] (the multi-program configurations in its steps/), its
# JUnit XML (junit.xml there), its report and record (nbw_fleet_report); exits with
# nbw-fleet run's status: by the verdict with FLEET_FAIL_ON (--fail-on; none: 0 once
# judged), SUSPECT nodes drained with FLEET_DRAIN=1 (--drain).
nbw_fleet() {
	local fleet rc extra=() act=()
	fleet=$(nbw_fleet_cmd) || exit 1
	unset LAUNCHER LAUNCHER_QUOTE
	export TOOL_DIR
	nbw_end_time
	FLEET_DIR=${FLEET_DIR:-${SLURM_SUBMIT_DIR:-$PWD}/fleet-${SLURM_JOB_ID:-0}}
	read -ra extra <<<"${FLEET_ARGS:-}"
	case ${FLEET_FAIL_ON-suspect,unmeasured} in
	'' | none) ;;
	*) act+=(--fail-on "${FLEET_FAIL_ON-suspect,unmeasured}") ;;
	esac
	[ "${FLEET_DRAIN:-0}" != 1 ] || act+=(--drain)
	nbw_say "job ${SLURM_JOB_ID:-?} on ${hosts[*]}: nbw-fleet run, the sweep in $FLEET_DIR"
	"$fleet" run --nodes "$(IFS=,; echo "${hosts[*]}")" --out "$FLEET_DIR" \
		${RAIL_DEVS:+--rail-devs "$RAIL_DEVS"} ${RDMA_NETDEV:+--rdma-netdev "$RDMA_NETDEV"} \
		--junit "$FLEET_DIR/junit.xml" "${act[@]}" "${extra[@]}"
	rc=$?
	nbw_fleet_report "$fleet"
	exit "$rc"
}
