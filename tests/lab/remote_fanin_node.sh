#!/bin/bash
# Nodes b and c of remote_fanin.sh: each a source reading its first drive
# into node a's sink; b alone comes to the third sink. Then each serves node
# a's launcher (run_bench.sh SRC_NODES="b c") until a stops it.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
# c asks for two workers, b for one: c's share of the sink's DRAM is twice b's.
q=1
[ "$VLAB_NODE" = c ] && q=2
nvme_write_bw_remote --disks "$1" -q $q --warmup 2 -D 15 --timeout 20 --verify full --json \
	"$VLAB_PEER" >"$VLAB_OUT/src.json" 2>"$VLAB_OUT/src.err"
echo $? >"$VLAB_OUT/src.rc"
cat "$VLAB_OUT/src.err"
sleep 1
listening
nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 3 --timeout 20 "$VLAB_PEER" \
	>"$VLAB_OUT/txt.out" 2>&1
echo $? >"$VLAB_OUT/txt.rc"
# c damages its canary after hashing it: its data fails verification, b's passes.
bad=
[ "$VLAB_NODE" = c ] && bad=--corrupt-canary
sleep 1
listening
nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 3 --timeout 20 $bad --json "$VLAB_PEER" \
	>"$VLAB_OUT/bad.json" 2>"$VLAB_OUT/bad.err"
echo $? >"$VLAB_OUT/bad.rc"
if [ "$VLAB_NODE" = b ]; then
	sleep 1
	listening
	nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 3 --timeout 10 --json "$VLAB_PEER" \
		>"$VLAB_OUT/miss.json" 2>"$VLAB_OUT/miss.err"
	echo $? >"$VLAB_OUT/miss.rc"
fi
exec "$VLAB_SRCDIR/scripts/vlab.d/launch-agent" --lifetime 200
