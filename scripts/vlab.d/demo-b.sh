#!/bin/bash
# vlab demo, node b: link audit (printed once node a is past its own tables),
# the ib_write_bw server for node a, then the nvme_write_bw_remote sink, which
# prints the whole end-to-end picture.
set -u
window=6

if command -v nvme_link_probe >/dev/null; then
	nvme_link_probe >"$VLAB_OUT/probe.txt" 2>&1
else
	echo "(nvme_link_probe is not built yet: skipped)" >"$VLAB_OUT/probe.txt"
fi
timeout 180 ib_write_bw -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" --report_gbits \
	>"$VLAB_OUT/ib_write_bw.txt" 2>&1
ib=$?
sleep 1 # node a prints its client's figures first
printf '\n=== node b: nvme_link_probe ===\n'
cat "$VLAB_OUT/probe.txt"
[ "$ib" = 0 ] || { echo "ib_write_bw server failed:"; cat "$VLAB_OUT/ib_write_bw.txt"; exit 1; }

printf '\n=== node b: nvme_write_bw_remote (sink) ===\n'
command -v nvme_write_bw_remote >/dev/null || { echo "(nvme_write_bw_remote is not built yet: skipped)"; exit 0; }
timeout 180 nvme_write_bw_remote -d "$VLAB_RDMA_DEV" -D "$window"
