#!/bin/bash
# Node a of remote_pair.sh's part evidence: the sink, reading its first drive locally.
# 1. a run whose JSON carries this end's counter deltas (Soft-RoCE's hw_counters) and its
# drive's PCIe link under load with its AER counts; 2. the same while node b's NIC is
# slowed by a traffic shaper (tbf), in text with every counter (-W).
set -u
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 -s 256K --warmup 1 -D 6 --timeout 20 \
	--wait 120 --json >"$VLAB_OUT/sink.json" 2>"$VLAB_OUT/sink.err"
echo $? >"$VLAB_OUT/sink.rc"
sed 's/^/evidence sink: /' "$VLAB_OUT/sink.err"

nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 -s 256K --warmup 1 -D 6 --timeout 20 \
	--wait 120 -W >"$VLAB_OUT/shaped.sink.out" 2>"$VLAB_OUT/shaped.sink.err"
echo $? >"$VLAB_OUT/shaped.sink.rc"
sed 's/^/shaped sink: /' "$VLAB_OUT/shaped.sink.err"
exit 0
