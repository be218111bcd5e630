#!/bin/bash
# Guest side of two_node.sh, node a: RDMA WRITE to node b over the socket
# link (ib_write_bw client, retried until b's server listens); also reads
# node a's drives so the host can tell them from node b's.
set -u
env | grep '^VLAB_' | sort >"$VLAB_OUT/env.txt"
cat /sys/devices/system/clocksource/clocksource0/current_clocksource >"$VLAB_OUT/clocksource.txt"
i=0
for d in $VLAB_DRIVES; do
	dd if="$d" bs=1M count=1 iflag=direct status=none | sha256sum | cut -d' ' -f1 >"$VLAB_OUT/sha-$i.txt"
	i=$((i + 1))
done
for _ in 1 2 3 4 5; do /bin/busybox ping -c 1 -W 2 "$VLAB_PEER" >/dev/null && break; done ||
	{ echo "peer $VLAB_PEER unreachable"; exit 1; }
for _ in 1 2 3 4 5 6 7 8 9 10; do
	if ib_write_bw -u "$NBW_QP_TIMEOUT" -d "$VLAB_RDMA_DEV" -s 65536 -D 6 --report_gbits "$VLAB_PEER" >"$VLAB_OUT/ib_write_bw.txt" 2>&1; then
		grep -A1 '#bytes' "$VLAB_OUT/ib_write_bw.txt"
		exit 0
	fi
	sleep 1
done
cat "$VLAB_OUT/ib_write_bw.txt"
exit 1
