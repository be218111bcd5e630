#!/bin/bash
# Guest side of two_node.sh, node b: ib_write_bw server for node a, then
# exit 5 on purpose (the host checks that vlab reports node b's failure).
set -u
env | grep '^VLAB_' | sort >"$VLAB_OUT/env.txt"
i=0
for d in $VLAB_DRIVES; do
	dd if="$d" bs=1M count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1 >"$VLAB_OUT/sha-$i.txt"
	i=$((i + 1))
done
timeout 60 ib_write_bw -u "$NBW_QP_TIMEOUT" -d "$VLAB_RDMA_DEV" -s 65536 -D 6 --report_gbits >"$VLAB_OUT/ib_write_bw.txt" 2>&1 ||
	{ echo "ib_write_bw server failed"; cat "$VLAB_OUT/ib_write_bw.txt"; exit 1; }
echo "server done"
exit 5
