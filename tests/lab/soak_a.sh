#!/bin/bash
# Node a of soak.sh: ROUNDS sinks one after the other, each with its own bound.
set -u
. "$VLAB_SRCDIR/tests/lab/guest-lib.sh"
rounds=$1
set -- $VLAB_DRIVES
for r in $(seq "$rounds"); do
	t=$(date +%s.%N)
	bounded 60 "sink $r" nvme_write_bw_remote --dram 64M --local-disks "$1" -q 1 --warmup 1 -D 4 \
		--timeout 20 --wait 40 --json >"$VLAB_OUT/sink.$r.json" 2>"$VLAB_OUT/sink.$r.err"
	round_done $r $? "$t" sink "$VLAB_OUT/sink.$r.err"
done
kernel_lines "$VLAB_OUT/kernel.txt"
exit 0
