#!/bin/bash
# Both nodes of remote_pair.sh's part bidir run this: --bidir with the other node as PEER,
# each a sink (64M of DRAM, no drives of its own) and a source (its first
# drive), fully verified. Outputs in $VLAB_OUT/bidir.{json,err,rc}. Each run is
# bounded by the clock (80 s: --wait 30, the run, its --timeout bounds);
# one that fails or hangs prints this node's Soft-RoCE state.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
bounded 80 "bidir" nvme_write_bw_remote --bidir --dram 64M --disks "$1" -q 1 --warmup 2 -D 6 \
	--timeout 20 --wait 30 --verify full --json "$VLAB_PEER" >"$VLAB_OUT/bidir.json" 2>"$VLAB_OUT/bidir.err"
rc=$?
echo $rc >"$VLAB_OUT/bidir.rc"
failed_state $rc bidir
# And the text report, short, to see both directions and the sum in the log.
sleep 2
bounded 80 "bidir text" nvme_write_bw_remote --bidir --dram 64M --disks "$1" -q 1 --warmup 1 -D 3 \
	--timeout 20 --wait 30 "$VLAB_PEER" >"$VLAB_OUT/bidir.txt" 2>&1
rc=$?
echo $rc >"$VLAB_OUT/bidir.txt.rc"
failed_state $rc "bidir text"
exit 0
