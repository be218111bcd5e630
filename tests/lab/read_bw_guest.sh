#!/bin/bash
# Guest side of the read-bandwidth lab tests (node a).
# usage: read_bw_guest.sh [fio] [ib]
# Runs nvme_read_bw over every drive with --checksum --json, then the anchors
# asked for on the same drives / RDMA device in the same boot: fio (same chunk,
# threads per drive, span and window) and ib_write_bw (rxe loopback). Results
# go to $VLAB_OUT (read.json, read.rc, fio.json, ib_write_bw.txt).
set -u
out=$VLAB_OUT
threads=2 chunk=1M span=32M warmup=1 window=6

command -v nvme_read_bw >/dev/null || { echo "nvme_read_bw not on PATH ($PATH)"; exit 1; }
disks=${VLAB_DRIVES// /,}
echo "nvme_read_bw --disks $disks --threads $threads --chunk $chunk --span $span --warmup $warmup -D $window --checksum --json"
nvme_read_bw --disks "$disks" --threads "$threads" --chunk "$chunk" --span "$span" \
	--warmup "$warmup" -D "$window" --checksum --json >"$out/read.json" 2>"$out/read.err"
echo $? >"$out/read.rc"
cat "$out/read.err"

for anchor in "$@"; do
	case $anchor in
	fio)
		jobs=()
		for d in $VLAB_DRIVES; do
			jobs+=(--name="${d#/dev/}" --filename="$d")
		done
		fio --eta=never --output-format=json --output="$out/fio.json" --rw=read --bs="$chunk" --direct=1 \
			--ioengine=psync --numjobs="$threads" --size=$((32 / threads))M \
			--offset_increment=$((32 / threads))M --time_based --ramp_time="$warmup" \
			--runtime="$window" --group_reporting "${jobs[@]}" ||
			echo "fio failed"
		;;
	ib)
		ib_write_bw -u "$NBW_QP_TIMEOUT" -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" --report_gbits \
			>"$out/ib_write_bw-server.txt" 2>&1 &
		srv=$!
		sleep 1
		ib_write_bw -u "$NBW_QP_TIMEOUT" -d "$VLAB_RDMA_DEV" -s 65536 -D "$window" --report_gbits "$VLAB_PEER" \
			>"$out/ib_write_bw.txt" 2>&1 || { echo "ib_write_bw failed"; cat "$out/ib_write_bw.txt"; }
		wait "$srv"
		;;
	esac
done
exit 0
