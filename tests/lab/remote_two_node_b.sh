#!/bin/bash
# Node b of remote_two_node.sh: the source, reading its first drive into node a.
set -u
set -- $VLAB_DRIVES
nvme_write_bw_remote --disks "$1" -t 1 --warmup 2 -D 8 --timeout 20 --verify full --json \
	"$VLAB_PEER" >"$VLAB_OUT/src.json" 2>"$VLAB_OUT/src.err"
echo $? >"$VLAB_OUT/src.rc"
cat "$VLAB_OUT/src.err"
exit 0
