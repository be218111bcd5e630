#!/bin/bash
# vlab demo, node a: the suite end to end, as a user on real hardware runs it:
# 1. the PCIe link audit; 2. local read bandwidth, each drive alone and all
# together; 3. the fabric: perftest's ib_write_bw beside nvme_write_bw_remote
# from memory (same message size, one QP); 4. drives -> RDMA WRITE -> node b's
# DRAM (source; node b, the sink, prints the whole picture).
set -u
window=6
disks=$(echo $VLAB_DRIVES | tr ' ' ,)
rc=0

stage() { printf '\n=== node a: %s ===\n' "$*"; }
have() { command -v "$1" >/dev/null || { echo "($1 is not built: skipped)"; false; }; }

# Run "$@" until it succeeds (the peer may not listen yet), output into $out.
retry() {
	local out=$1 try
	shift
	for try in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
		"$@" >"$out" 2>&1 && return 0
		sleep 1
	done
	return 1
}

stage "1. nvme_link_probe: the PCIe link of every drive and RDMA device"
have nvme_link_probe && { nvme_link_probe || rc=1; }

stage "2. nvme_read_bw: every drive alone, then all together (O_DIRECT)"
have nvme_read_bw && { nvme_read_bw --disks "$disks" --threads 2 --chunk 1M --warmup 1 \
	-D "$window" --baseline 2>/dev/null || rc=1; }

# Measure first, print after node b has printed its link audit.
if retry "$VLAB_OUT/ib_write_bw.txt" ib_write_bw -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" \
	--report_gbits "$VLAB_PEER"; then
	ib=$(awk '/#bytes/ { getline; print $4; exit }' "$VLAB_OUT/ib_write_bw.txt")
else
	cat "$VLAB_OUT/ib_write_bw.txt"
	ib=failed rc=1
fi
mem=-
if command -v nvme_write_bw_remote >/dev/null; then
	if retry "$VLAB_OUT/mem.json" nvme_write_bw_remote -d "$VLAB_RDMA_DEV" --source mem -q 1 \
		-s 64K --warmup 1 -D "$window" --json "$VLAB_PEER"; then
		mem=$(python3 -c 'import json,sys; print("%.3f" % (json.load(open(sys.argv[1]))["rdma"]["gb_per_s"] * 8))' \
			"$VLAB_OUT/mem.json" 2>/dev/null) || mem=?
	else
		cat "$VLAB_OUT/mem.json"
		mem=failed rc=1
	fi
fi
sleep 1
stage "3. the fabric, $VLAB_ADDR -> $VLAB_PEER: 64 KiB RDMA WRITEs, 1 QP, ${window} s"
printf ' %-40s %12s\n' tool Gb/s "ib_write_bw (perftest, the anchor)" "$ib" \
	"nvme_write_bw_remote --source mem" "$mem"

stage "4. nvme_write_bw_remote: drives -> RDMA WRITE -> node b's DRAM (source)"
if have nvme_write_bw_remote; then
	sleep 3 # node b starts its sink
	if retry "$VLAB_OUT/source.txt" nvme_write_bw_remote -d "$VLAB_RDMA_DEV" --disks "$disks" \
		-q 2 --warmup 1 -D "$window" "$VLAB_PEER"; then
		cat "$VLAB_OUT/source.txt"
	else
		cat "$VLAB_OUT/source.txt"
		rc=1
	fi
fi
printf '\n(virtual lab: qemu TCG, %s vCPU per node; the tables are real, the numbers are not)\n' "$(nproc)"
exit "$rc"
