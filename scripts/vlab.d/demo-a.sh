#!/bin/bash
# vlab demo, node a: the suite end to end as a user runs it on two real nodes,
# one command: scripts/run_bench.sh ladder, with the lab launcher in the place
# of ssh/srun (node b serves it: demo-b.sh). On both nodes: the PCIe link
# audit, every drive alone and all together; TCP with 1 and 8 streams (iperf3);
# the fabric from memory (with perftest's ib_write_bw beside it); NFS over RDMA
# and over TCP (the kernel's server on a, a tmpfs export); rsync to a daemon on a
# and over ssh (an sshd of the lab's own on a); then drives -> RDMA
# WRITE -> node a's DRAM. It prints the ladder, each rung against its ceiling,
# and the sentence naming the rung that binds.
#
# The run is recorded on the host, not here: this node's / is the host's,
# read-only over 9p, where no record belongs (nbw-results refuses it). So
# RESULTS=none, and the two nodes' inventories go into the run directory
# (inventory/NODE.json, as run_bench.sh would take them) for the host's
# nbw-results record (scripts/vlab.d/demo-host.sh).
set -u
src=$VLAB_SRCDIR
launch=$src/scripts/vlab.d/launch
trap 'LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop b >/dev/null 2>&1 || echo "could not stop node b'\''s agent"' EXIT

export LAUNCHER=$launch SINK_NODE=a SRC_NODE=b SINK_ADDR=$VLAB_ADDR RDMA_DEV=$VLAB_RDMA_DEV
export DRAM=256M THREADS=2 CHUNK=1M WARMUP=1 DURATION=${DEMO_WINDOW:-6} NET_TIMEOUT=20 SINK_WAIT=120
# NFS: a 64 MiB file (the node has 1 GiB), the random 4 KiB reads at one depth.
export NFS_SIZE=64M NFS_DEPTHS=16 TCP_FILE_SIZE=32M
# rsync: 16 files of 1 MiB; over ssh through an sshd of the lab's own on a, its keys in a
# tmpfs and b's key in one (tests/lab/ssh_lab.sh), both removed after the ladder.
export RSYNC_FILES=16 RSYNC_FILE_SIZE=1M
ssh_lab=$src/tests/lab/ssh_lab.sh
if opts=$("$ssh_lab" up /tmp/nbw-lab-ssh.a "$VLAB_ADDR" 2222) &&
	"$launch" --timeout 60 b "$ssh_lab" key /tmp/nbw-lab-ssh.b "$(cat /tmp/nbw-lab-ssh.a/id)"; then
	export SSH_OPTS=${opts//nbw-lab-ssh.a/nbw-lab-ssh.b}
fi
export RESULTS=none RESULTS_DIR=$VLAB_OUT/results RUN_NAME=ladder
# A valid total asks for 99% window overlap and 2% variation of the 1 s samples:
# rules for real hardware. Emulated nodes on a shared host miss them by the
# emulator's timing alone, so the demo loosens them (said in its header below).
export SINK_ARGS="--min-overlap 80 --max-cv 100"
printf '\n=== node a: run_bench.sh ladder (sink a, source b through %s) ===\n' "${launch##*/}"
printf 'emulated nodes: the sink'"'"'s rules for a valid total loosened (%s)\n' "$SINK_ARGS"
"$src/scripts/run_bench.sh" ladder
rc=$?
"$ssh_lab" down /tmp/nbw-lab-ssh.a
"$launch" --timeout 60 b "$ssh_lab" down /tmp/nbw-lab-ssh.b
inv=$RESULTS_DIR/$RUN_NAME/inventory
mkdir -p "$inv"
for node in a b; do
	if "$launch" --timeout 120 "$node" "$src/scripts/nbw-results" inventory --host "$node" \
		>"$inv/$node.json" 2>"$inv/$node.log"; then
		rm -f "$inv/$node.log"
	else
		echo "inventory of $node not taken: $(tail -n1 "$inv/$node.log")"
		rm -f "$inv/$node.json"
	fi
done
printf '\n(virtual lab: qemu TCG, %s vCPU per node; the tables are real, the numbers are not;\n' "$(nproc)"
printf ' vlab copies the ladder and every tool'\''s JSON to the directory on its last lines)\n'
exit "$rc"
