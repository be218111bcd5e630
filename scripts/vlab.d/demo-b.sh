#!/bin/bash
# vlab demo, node b: the serving half. Its link audit is printed once node a is
# past its own tables; it is the server of ib_write_bw, the sink of the memory
# run and of the drive run (which prints the whole end-to-end picture).
set -u
window=6
rc=0

if command -v nvme_link_probe >/dev/null; then
	nvme_link_probe >"$VLAB_OUT/probe.txt" 2>&1 || rc=1
else
	echo "(nvme_link_probe is not built: skipped)" >"$VLAB_OUT/probe.txt"
fi
timeout 300 ib_write_bw -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" --report_gbits \
	>"$VLAB_OUT/ib_write_bw.txt" 2>&1 || { cat "$VLAB_OUT/ib_write_bw.txt"; rc=1; }
command -v nvme_write_bw_remote >/dev/null || exit "$rc"
timeout 300 nvme_write_bw_remote -d "$VLAB_RDMA_DEV" --no-local -s 64K --warmup 1 -D "$window" \
	--dram 64M --wait 120 --json >"$VLAB_OUT/mem-sink.json" 2>"$VLAB_OUT/mem-sink.err" ||
	{ cat "$VLAB_OUT/mem-sink.err"; rc=1; }

printf '\n=== node b: 1. nvme_link_probe ===\n'
cat "$VLAB_OUT/probe.txt"
sleep 5 # node a prints its fabric table
printf '\n=== node b: 4. nvme_write_bw_remote (sink: the whole picture) ===\n'
timeout 300 nvme_write_bw_remote -d "$VLAB_RDMA_DEV" -q 2 --warmup 1 -D "$window" --dram 256M \
	--wait 120 || rc=1
exit "$rc"
