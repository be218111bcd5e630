#!/bin/bash
# vlab demo, node a: the suite end to end, as a user on real hardware would run
# it: link audit, local read bandwidth (each drive alone, then together),
# the fabric (perftest's ib_write_bw as the anchor), then drive -> remote DRAM
# through RDMA WRITE to node b (nvme_write_bw_remote source).
set -u
window=6
disks=$(echo $VLAB_DRIVES | tr ' ' ,)

stage() { printf '\n=== node a: %s ===\n' "$*"; }
have() { command -v "$1" >/dev/null || { echo "($1 is not built yet: skipped)"; false; }; }

stage "nvme_link_probe: the PCIe link of every drive and NIC"
have nvme_link_probe && nvme_link_probe

stage "nvme_read_bw: every drive alone, then all together (O_DIRECT)"
have nvme_read_bw && nvme_read_bw --disks "$disks" --threads 2 --chunk 1M --warmup 1 \
	-D "$window" --baseline 2>/dev/null

stage "fabric anchor: ib_write_bw $VLAB_ADDR -> $VLAB_PEER (64 KiB RDMA WRITE, 1 QP)"
ok=0
for try in 1 2 3 4 5 6 7 8 9 10; do
	if ib_write_bw -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" --report_gbits "$VLAB_PEER" \
		>"$VLAB_OUT/ib_write_bw.txt" 2>&1; then
		ok=1
		break
	fi
	sleep 1
done
grep -A1 '#bytes' "$VLAB_OUT/ib_write_bw.txt" || cat "$VLAB_OUT/ib_write_bw.txt"
sleep 3 # node b prints its own tables now

stage "nvme_write_bw_remote: drives -> RDMA WRITE -> node b's DRAM (source)"
rc=0
if have nvme_write_bw_remote; then
	rc=1
	for try in 1 2 3 4 5 6 7 8 9 10; do
		if nvme_write_bw_remote -d "$VLAB_RDMA_DEV" --disks "$disks" --warmup 1 -D "$window" \
			"$VLAB_PEER" >"$VLAB_OUT/source.txt" 2>&1; then
			rc=0
			break
		fi
		sleep 1
	done
	[ "$rc" = 0 ] && echo "(source done; node b, the sink, prints the whole picture)" ||
		cat "$VLAB_OUT/source.txt"
fi
printf '\n(virtual lab: qemu TCG, %s vCPU per node; the tables are real, the numbers are not)\n' "$(nproc)"
[ "$ok" = 1 ] || exit 1
exit "$rc"
