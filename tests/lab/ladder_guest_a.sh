#!/bin/bash
# Node a of tests/lab/ladder.sh: scripts/run_bench.sh ladder from node a's
# shell (sink a, source b), node b reached through scripts/vlab.d/launch;
# short windows. With the argument "upper" (tests/lab/ladder_upper.sh) the TCP
# and NFS rungs too (a 32 MiB NFS file), else they are skipped (IPERF3=none,
# EXPORTFS=none). The exit status goes to $VLAB_OUT/ladder.rc, what the TCP
# and NFS rungs left behind on either node to $VLAB_OUT/leftovers.txt; the
# host checks the results.
set -u
src=$VLAB_SRCDIR
launch=$src/scripts/vlab.d/launch
trap 'LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop b || echo "could not stop node b'\''s agent"' EXIT

export LAUNCHER=$launch SINK_NODE=a SRC_NODE=b SINK_ADDR=$VLAB_ADDR RDMA_DEV=$VLAB_RDMA_DEV
export DRAM=64M THREADS=1 CHUNK=1M WARMUP=1 DURATION=4 NET_TIMEOUT=20 SINK_WAIT=120
export NFS_SIZE=32M
[ "${1:-}" = upper ] || export IPERF3=none EXPORTFS=none
export RESULTS_DIR=$VLAB_OUT/results RUN_NAME=ladder
"$src/scripts/run_bench.sh" ladder 2>&1 | tee "$VLAB_OUT/ladder.err"
echo "${PIPESTATUS[0]}" >"$VLAB_OUT/ladder.rc"
{
	"$src/tests/lab/ladder_leftovers.sh"
	"$launch" --timeout 60 b "$src/tests/lab/ladder_leftovers.sh"
} >"$VLAB_OUT/leftovers.txt" 2>&1
exit 0
