#!/bin/bash
# Node a of tests/lab/ladder.sh: scripts/run_bench.sh ladder from node a's
# shell (sink a, source b), node b reached through scripts/vlab.d/launch;
# short windows. With the argument "upper" (tests/lab/ladder_upper.sh) the TCP,
# NFS and rsync rungs too (a 32 MiB NFS file, written by 2 writers of 1 MiB blocks; a
# 32 MiB file for the sendfile rung; 16 files of 1 MiB for rsync, an sshd on a for
# rsync over ssh, and the user's transfer through ssh: TRANSFER_CMD), else they are skipped (IPERF3=none, EXPORTFS=none, RSYNC=none)
# and the ladder runs a second time (ladder-2, with NOTE and
# CHANGE_STARTS=1). Every run is recorded into $VLAB_OUT/record. The exit
# statuses go to $VLAB_OUT/ladder.rc and ladder-2.rc, what the TCP and NFS
# rungs left behind on either node to $VLAB_OUT/leftovers.txt; the host checks
# the results and the record.
set -u
src=$VLAB_SRCDIR
launch=$src/scripts/vlab.d/launch
trap 'LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop b || echo "could not stop node b'\''s agent"' EXIT

export LAUNCHER=$launch SINK_NODE=a SRC_NODE=b SINK_ADDR=$VLAB_ADDR RDMA_DEV=$VLAB_RDMA_DEV
export DRAM=64M THREADS=1 CHUNK=1M WARMUP=1 DURATION=4 NET_TIMEOUT=20 SINK_WAIT=120
export NFS_SIZE=32M NFS_BS=1M NFS_JOBS=2 TCP_FILE_SIZE=32M
# The rules for a valid total (99% overlap, 2% variation of 1 s samples) are for
# real hardware and are proven fast (tests/remote/); here the emulated nodes of
# a shared host decide them, so they are loosened as for the Slurm jobs: the lab
# proves the path and that the ladder is recorded and compared, not the timing.
export SINK_ARGS="--min-overlap 80 --max-cv 100"
[ "${1:-}" = upper ] || export IPERF3=none EXPORTFS=none RSYNC=none
# rsync over ssh (upper): an sshd on this node (a, the sink) with its keys in a tmpfs
# (tests/lab/ssh_lab.sh), the client's key in a tmpfs on b; both removed at the end.
ssh_a=/tmp/nbw-lab-ssh.a ssh_b=/tmp/nbw-lab-ssh.b
ssh_down() {
	"$src/tests/lab/ssh_lab.sh" down "$ssh_a"
	"$launch" --timeout 60 b "$src/tests/lab/ssh_lab.sh" down "$ssh_b"
}
if [ "${1:-}" = upper ]; then
	export RSYNC_FILES=16 RSYNC_FILE_SIZE=1M
	if opts=$("$src/tests/lab/ssh_lab.sh" up "$ssh_a" "$VLAB_ADDR" 2222) &&
		"$launch" --timeout 60 b "$src/tests/lab/ssh_lab.sh" key "$ssh_b" "$(cat "$ssh_a/id")"; then
		export SSH_OPTS=${opts//$ssh_a\/id/$ssh_b\/id}
		# The user's own transfer (the transfer rung): 8 MiB through one ssh stream into
		# the sink's /dev/null, as a restore piped over ssh would go.
		export TRANSFER_CMD="head -c 8M /dev/zero | ssh $SSH_OPTS {sink} 'cat >/dev/null'"
		export TRANSFER_BYTES=8M
	else
		echo "no sshd on node a: the rsync over ssh rung will be skipped"
	fi
fi
# Each run recorded (nbw-results) into $VLAB_OUT/record: the default directory
# is on the guest's read-only /. The SQLite index on the guest's own /tmp: the
# record's share is 9p, whose server grants every lock (nbw-results refuses an
# index there); the host rebuilds its own from the record.
export RESULTS=$VLAB_OUT/record NBW_RESULTS_INDEX=/tmp/nbw-results.index.sqlite
export RESULTS_DIR=$VLAB_OUT/results RUN_NAME=ladder
"$src/scripts/run_bench.sh" ladder 2>&1 | tee "$VLAB_OUT/ladder.err"
echo "${PIPESTATUS[0]}" >"$VLAB_OUT/ladder.rc"
# Without the upper rungs, the same ladder once more, with a note and the mark
# of a known change, for the host's nbw-results compare, trend and check.
if [ "${1:-}" != upper ]; then
	RUN_NAME=ladder-2 NOTE="second ladder, same lab" CHANGE_STARTS=1 \
		"$src/scripts/run_bench.sh" ladder >"$VLAB_OUT/ladder-2.err" 2>&1
	echo "$?" >"$VLAB_OUT/ladder-2.rc"
	tail -n3 "$VLAB_OUT/ladder-2.err"
fi
[ "${1:-}" != upper ] || ssh_down
{
	"$src/tests/lab/ladder_leftovers.sh"
	"$launch" --timeout 60 b "$src/tests/lab/ladder_leftovers.sh"
} >"$VLAB_OUT/leftovers.txt" 2>&1
exit 0
