#!/bin/bash
# Node a of remote_two_node.sh: the sink, reading its first drive locally.
set -u
set -- $VLAB_DRIVES
nvme_write_bw_remote --dram 64M --local-disks "$1" -t 1 --warmup 2 -D 8 --timeout 20 --wait 120 \
	--verify full --dump-slice "$VLAB_OUT/slice.bin" --json >"$VLAB_OUT/sink.json" 2>"$VLAB_OUT/sink.err"
echo $? >"$VLAB_OUT/sink.rc"
cat "$VLAB_OUT/sink.err"
exit 0
