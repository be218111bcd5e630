#!/bin/bash
# scripts/scale_sweep.sh: how bandwidth scales from 1 to N drives, locally and
# across the fabric. Local first (nvme_read_bw --sweep on SRC_NODE: the first
# 1, 2, ... N drives together), then remote (nvme_write_bw_remote with the
# first k drives of SRC_NODE as the source, k = 1..N, into SINK_NODE's DRAM,
# the sink reading no drives of its own). Each run goes through
# scripts/run_bench.sh (same environment, same launcher); the rows are written
# as a table (sweep.tsv, sweep.txt) and as JSON (sweep.json) with, per row, the
# ideal (k x the 1-drive local figure) and the link ceiling (the sum of the
# first k drives' link_ceiling_gb_per_s). scripts/plot_scaling draws them.
# BOUNDARY=yes runs the local -> remote boundary table instead: SINK_NODE's
# own drives (SINK_SWEEP_DISKS) 1..L locally (nvme_read_bw --sweep), then all L
# of them plus the first 1..R drives of SRC_NODE (SWEEP_DISKS) as the source,
# each an aggregate run (boundary.tsv, boundary.txt, boundary.json).
set -u
prog=scale_sweep.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench_lib.sh source-path=SCRIPTDIR
. "$here/bench_lib.sh" || exit 1
RUN_BENCH=${RUN_BENCH:-$here/run_bench.sh}

usage() {
	cat <<'EOF'
Usage: scale_sweep.sh            (settings from the environment)

Local sweep on SRC_NODE (nvme_read_bw --sweep), then remote runs SRC_NODE ->
SINK_NODE with the first 1, 2, ... N drives (nvme_write_bw_remote, sink --no-local).

Environment: everything run_bench.sh --help lists (SINK_NODE, SRC_NODE, SINK_ADDR,
DURATION, WARMUP, THREADS, CHUNK, RDMA_DEV, DRAM, LAUNCHER, ...), and
  SWEEP_DISKS   SRC_NODE's drives in sweep order, comma-separated [every NVMe
                namespace, in nvme_read_bw's order]
  REMOTE        yes|no: the remote runs too [yes]; with no, SINK_NODE is not needed
  BOUNDARY      yes|no: the local -> remote boundary table instead of the sweep [no]:
                SINK_NODE's own drives 1..L alone (nvme_read_bw --sweep on SINK_NODE),
                then all L of them (the sink's --local-disks) plus the first 1..R
                drives of SWEEP_DISKS on SRC_NODE as the source (aggregate runs);
                needs SINK_SWEEP_DISKS and SWEEP_DISKS. Writes boundary-local/,
                boundary-remote-J/, boundary.tsv, boundary.txt, boundary.json with
                columns drives (L_k + j), local, RDMA, total (the sink's GB/s),
                ideal (drives x the 1-drive local figure), %_of_ideal (total /
                ideal) and valid (the sink's total_valid; local-only rows yes)
  SINK_SWEEP_DISKS  BOUNDARY=yes: SINK_NODE's drives in sweep order, comma-separated
                (required in that mode)
  RESULTS_DIR [results]  RUN_NAME [UTC timestamp]: the sweep goes to
                RESULTS_DIR/RUN_NAME/: local/ and remote-K/ (run_bench.sh runs),
                sweep.tsv, sweep.txt, sweep.json

Columns: drives, local GB/s, remote GB/s, ideal GB/s (k x the 1-drive local
figure), link ceiling GB/s (sum over the first k drives; - when unknown), local
and remote % of ideal.
Exit status: 0 ok; 1 a run failed (its rows show -); 2 usage; 130/143 interrupted.
EOF
}


case ${1:-} in
-h | --help) usage; exit 0 ;;
'') ;;
*) die_usage "no arguments expected (settings come from the environment; --help)" ;;
esac
: "${REMOTE:=yes}" "${RESULTS_DIR:=results}" "${BOUNDARY:=no}"
case $REMOTE in yes | no) ;; *) die_usage "REMOTE=$REMOTE: yes or no" ;; esac
case $BOUNDARY in yes | no) ;; *) die_usage "BOUNDARY=$BOUNDARY: yes or no" ;; esac
if [ "$BOUNDARY" = yes ]; then
	[ "$REMOTE" = yes ] || die_usage "BOUNDARY=yes needs the remote runs (REMOTE=yes)"
	[ -n "${SINK_SWEEP_DISKS:-}" ] ||
		die_usage "BOUNDARY=yes needs SINK_SWEEP_DISKS (SINK_NODE's drives in sweep order, comma-separated)"
	[[ $SINK_SWEEP_DISKS =~ ^[^,]+(,[^,]+)*$ ]] ||
		die_usage "SINK_SWEEP_DISKS=$SINK_SWEEP_DISKS: a comma-separated list of drives"
	[ -n "${SWEEP_DISKS:-}" ] ||
		die_usage "BOUNDARY=yes needs SWEEP_DISKS (SRC_NODE's drives in the order they are added, comma-separated)"
fi
[ -n "${SRC_NODE:-}" ] || die_usage "SRC_NODE is not set (the node whose drives are swept)"
if [ "$REMOTE" = yes ]; then
	[ -n "${SINK_NODE:-}" ] || die_usage "SINK_NODE is not set (the node whose DRAM receives; or REMOTE=no)"
	[ "$SINK_NODE" != "$SRC_NODE" ] || die_usage "SINK_NODE and SRC_NODE are the same node: $SRC_NODE"
fi
[ -z "${SWEEP_DISKS:-}" ] || [[ $SWEEP_DISKS =~ ^[^,]+(,[^,]+)*$ ]] ||
	die_usage "SWEEP_DISKS=$SWEEP_DISKS: a comma-separated list of drives"
command -v "${PYTHON3:-python3}" >/dev/null || { say "python3 is needed (apt-get install python3)"; exit 1; }
# The settings run_bench.sh will use, checked before anything runs.
if [ "$REMOTE" = yes ]; then
	"$RUN_BENCH" check aggregate || exit
else
	NODES=$SRC_NODE "$RUN_BENCH" check local || exit
fi

sweep_dir=$(new_run_dir "$RESULTS_DIR") || exit 1

child=''
# shellcheck disable=SC2317 # run by the traps
on_signal() {
	trap '' INT TERM HUP
	say "interrupted"
	[ -n "$child" ] && kill -TERM "$child" 2>/dev/null && wait "$child"
	exit "$1"
}
trap 'on_signal 130' INT
trap 'on_signal 143' TERM
trap 'on_signal 129' HUP

# bench MODE RUN_NAME [VAR=VALUE...]: one run_bench.sh run into the sweep directory.
bench() {
	local mode=$1 name=$2
	shift 2
	env "$@" RESULTS_DIR="$sweep_dir" RUN_NAME="$name" "$RUN_BENCH" "$mode" &
	child=$!
	wait "$child"
	local rc=$?
	child=
	return "$rc"
}

# BOUNDARY=yes: SINK_NODE's drives 1..L alone, then all L plus SRC_NODE's 1..R.
if [ "$BOUNDARY" = yes ]; then
	IFS=, read -ra sink_list <<<"$SINK_SWEEP_DISKS"
	IFS=, read -ra src_list <<<"$SWEEP_DISKS"
	failed=0
	say "boundary: local sweep of ${#sink_list[@]} drive(s) on $SINK_NODE"
	bench local boundary-local NODES="$SINK_NODE" SINK_DISKS="$SINK_SWEEP_DISKS" \
		READ_ARGS="${READ_ARGS:-} --sweep" ||
		{ say "the local sweep on $SINK_NODE failed (see $sweep_dir/boundary-local)"; failed=1; }
	for ((j = 1; j <= ${#src_list[@]}; j++)); do
		first=$(IFS=,; echo "${src_list[*]:0:j}")
		say "boundary: ${#sink_list[@]} local + $j remote drive(s): $SRC_NODE -> $SINK_NODE"
		bench aggregate "boundary-remote-$j" SINK_DISKS="$SINK_SWEEP_DISKS" SRC_DISKS="$first" ||
			{ say "boundary run with $j remote drive(s) failed (see $sweep_dir/boundary-remote-$j)"; failed=1; }
	done
	nbw_py sweep boundary "$sweep_dir" "$SRC_NODE" "$SINK_NODE" "$SINK_SWEEP_DISKS" "$SWEEP_DISKS" || exit 1
	if [ "$failed" = 0 ]; then
		say "done: $sweep_dir/boundary.tsv, boundary.json"
	else
		say "FAILED: a run failed; rows without a figure show -"
	fi
	exit "$failed"
fi

# 1. Local: the first 1..N drives of SRC_NODE together.
say "local sweep on $SRC_NODE"
bench local local NODES="$SRC_NODE" SRC_DISKS="${SWEEP_DISKS:-}" READ_ARGS="${READ_ARGS:-} --sweep" ||
	{ say "the local sweep on $SRC_NODE failed: no drive list, no remote runs"; exit 1; }
local_json=$sweep_dir/local/local-$SRC_NODE.json
disks=$(nbw_py sweep drives "$local_json") || { say "$local_json: no drive list"; exit 1; }
IFS=, read -ra drive_list <<<"$disks"
say "${#drive_list[@]} drives on $SRC_NODE: $disks"

# 2. Remote: the first k drives of SRC_NODE into SINK_NODE's DRAM (RDMA only).
failed=0
if [ "$REMOTE" = yes ]; then
	for ((k = 1; k <= ${#drive_list[@]}; k++)); do
		first=$(IFS=,; echo "${drive_list[*]:0:k}")
		say "remote, $k drive(s): $SRC_NODE -> $SINK_NODE"
		bench aggregate "remote-$k" SRC_DISKS="$first" SINK_DISKS= SINK_ARGS="${SINK_ARGS:-} --no-local" ||
			{ say "remote run with $k drive(s) failed (see $sweep_dir/remote-$k)"; failed=1; }
	done
fi

# 3. The table and the JSON, from the saved runs.
nbw_py sweep sweep "$sweep_dir" "$SRC_NODE" "${SINK_NODE:-}" "$REMOTE" || exit 1
[ "$failed" = 0 ] && say "done: $sweep_dir/sweep.tsv, sweep.json" || say "FAILED: a remote run failed; rows without a figure show -"
exit "$failed"
