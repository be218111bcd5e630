#!/bin/bash
# Node a of tests/lab/scripts_bench.sh: the orchestration scripts run for real
# from node a's shell, node b reached through scripts/vlab.d/launch:
# run_bench.sh aggregate (sink a, source b), run_bench.sh local, then
# scale_sweep.sh over b's drives (1..2, local then remote into a's DRAM), and
# its boundary table (a's drives alone, then with b's added one by one).
# Each exit status goes to $VLAB_OUT/<name>.rc; the host checks the results.
set -u
src=$VLAB_SRCDIR
launch=$src/scripts/vlab.d/launch
trap 'LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop b || echo "could not stop node b'\''s agent"' EXIT

export LAUNCHER=$launch SINK_NODE=a SRC_NODE=b SINK_ADDR=$VLAB_ADDR RDMA_DEV=$VLAB_RDMA_DEV
export DRAM=64M THREADS=1 CHUNK=1M WARMUP=1 DURATION=6 NET_TIMEOUT=20 SINK_WAIT=120
export RESULTS_DIR=$VLAB_OUT/results

# A step that failed on a Soft-RoCE stall ends the run at once: the steps
# after it would stall too (and eat the lab's timeout); the test fails.
stall='RDMA WRITEs still in flight after|the source went silent: nothing on the control channel'
step() { # step NAME CMD...: run, record the exit status
	local name=$1 rc
	shift
	echo "=== $name: $*"
	"$@" 2>&1 | tee "$VLAB_OUT/$name.log"
	rc=${PIPESTATUS[0]}
	echo "$rc" >"$VLAB_OUT/$name.rc"
	if [ "$rc" != 0 ] && grep -Eq "$stall" "$VLAB_OUT/$name.log"; then
		echo "=== $name: failed on a Soft-RoCE stall (above); the steps after it are skipped"
		exit 1
	fi
}
step aggregate env RUN_NAME=aggregate "$src/scripts/run_bench.sh" aggregate
step local env RUN_NAME=local "$src/scripts/run_bench.sh" local
step sweep env RUN_NAME=sweep "$src/scripts/scale_sweep.sh"
# Both directions at once: --bidir on a (peer b) and on b (peer a).
step bidir env RUN_NAME=bidir BIDIR=1 SRC_ADDR="$VLAB_PEER" "$src/scripts/run_bench.sh" aggregate
# The boundary table: a's drives 1..2 alone, then both plus b's 1..2 (same names on b).
disks=$(tr ' ' , <<<"$VLAB_DRIVES")
step boundary env RUN_NAME=boundary BOUNDARY=yes SINK_SWEEP_DISKS="$disks" SWEEP_DISKS="$disks" \
	"$src/scripts/scale_sweep.sh"
exit 0
