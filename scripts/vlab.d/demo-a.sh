#!/bin/bash
# vlab demo, node a: the suite end to end as a user runs it on two real nodes,
# one command: scripts/run_bench.sh ladder, with the lab launcher in the place
# of ssh/srun (node b serves it: demo-b.sh). On both nodes: the PCIe link
# audit, every drive alone and all together; the fabric from memory (with
# perftest's ib_write_bw beside it); then drives -> RDMA WRITE -> node a's
# DRAM. It prints the ladder, each rung against its ceiling, and the sentence
# naming the rung that binds.
set -u
src=$VLAB_SRCDIR
launch=$src/scripts/vlab.d/launch
trap 'LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop b >/dev/null 2>&1 || echo "could not stop node b'\''s agent"' EXIT

export LAUNCHER=$launch SINK_NODE=a SRC_NODE=b SINK_ADDR=$VLAB_ADDR RDMA_DEV=$VLAB_RDMA_DEV
export DRAM=256M THREADS=2 CHUNK=1M WARMUP=1 DURATION=${DEMO_WINDOW:-6} NET_TIMEOUT=20 SINK_WAIT=120
export RESULTS_DIR=$VLAB_OUT/results RUN_NAME=ladder
printf '\n=== node a: run_bench.sh ladder (sink a, source b through %s) ===\n' "${launch##*/}"
"$src/scripts/run_bench.sh" ladder
rc=$?
printf '\n(virtual lab: qemu TCG, %s vCPU per node; the tables are real, the numbers are not;\n' "$(nproc)"
printf ' vlab copies the ladder and every tool'\''s JSON to the directory on its last line)\n'
exit "$rc"
