#!/bin/bash
# Node a of remote_fanin.sh: the sink, with its own drive, taking two sources
# at once (b and c); then a sink waiting for two of which only b comes.
# --max-cv 50: under emulation (TCG, Soft-RoCE at a few MB/s) the 1 s samples
# of a stream vary 10-25% (51% beside a build): the host checks that the sink
# gives its verdict on the sum, not which.
set -u
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
nvme_write_bw_remote --sources 2 --dram 64M --local-disks "$1" -q 1 --warmup 2 -D 15 \
	--timeout 20 --wait 120 --verify full --max-cv 50 \
	--json >"$VLAB_OUT/fan.json" 2>"$VLAB_OUT/fan.err"
echo $? >"$VLAB_OUT/fan.rc"
cat "$VLAB_OUT/fan.err"
# The text table, for the reader of the log: the sink reads no drives of its own.
nvme_write_bw_remote --sources 2 --dram 64M --no-local -q 1 --warmup 1 -D 3 \
	--timeout 20 --wait 120 >"$VLAB_OUT/fan.txt" 2>"$VLAB_OUT/fan.txt.err"
echo $? >"$VLAB_OUT/fan.txt.rc"
cat "$VLAB_OUT/fan.txt"

# c's canary is damaged: c's row fails, b's passes, the table prints, exit 1.
nvme_write_bw_remote --sources 2 --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 3 \
	--timeout 20 --wait 120 --json >"$VLAB_OUT/bad.json" 2>"$VLAB_OUT/bad.err"
echo $? >"$VLAB_OUT/bad.rc"
cat "$VLAB_OUT/bad.err"

# Only b comes: c is named missing once b waited half of --timeout.
nvme_write_bw_remote --sources 2 --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 3 \
	--timeout 10 --wait 120 --json >"$VLAB_OUT/miss.json" 2>"$VLAB_OUT/miss.err"
echo $? >"$VLAB_OUT/miss.rc"
cat "$VLAB_OUT/miss.err"

# run_bench.sh aggregate with SRC_NODES="b c" through the lab's launcher.
launch=$VLAB_SRCDIR/scripts/vlab.d/launch
# shellcheck disable=SC2154 # n: the handler's own loop
trap 'for n in b c; do LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop $n; done' EXIT
sleep 2
LAUNCHER=$launch SINK_NODE=a SRC_NODES="b c" SINK_ADDR=$VLAB_ADDR SINK_DISKS="$1" SRC_DISKS="$1" \
	DRAM=64M THREADS=1 WARMUP=1 DURATION=4 NET_TIMEOUT=20 SINK_WAIT=120 \
	RESULTS_DIR=$VLAB_OUT/results RUN_NAME=fan "$VLAB_SRCDIR/scripts/run_bench.sh" aggregate
echo $? >"$VLAB_OUT/bench.rc"
exit 0
