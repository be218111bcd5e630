#!/bin/bash
# Guest side of read_bw_poll.sh (node a). First --iopoll on the drives as booted
# (no poll queues: the one-line hint, exit 1); then the NVMe driver is reloaded with
# poll queues and every drive is read with io_uring --iopoll and with --sqpoll,
# --checksum --json, with fio --hipri and --sqthread_poll beside them in the same boot.
# Results go to $VLAB_OUT: nopoll.{rc,err}, drives.txt (the drives after the reload, in
# drive-index order), io_poll.txt, {iopoll,sqpoll}.{json,rc,err}, fio-{hipri,sqthread}.json.
set -u
out=$VLAB_OUT
threads=2 depth=8 chunk=1M span=32M window=3
count=$(wc -w <<<"$VLAB_DRIVES")

# The drives in drive-index order (serial vlab-<node>-<i> is backed by image i).
ordered_drives() {
	local i d s
	for ((i = 0; i < count; i++)); do
		for d in /sys/block/nvme*n*; do
			read -r s _ 2>/dev/null <"$d/device/serial" || continue
			[ "$s" = "vlab-$VLAB_NODE-$i" ] && { printf '/dev/%s\n' "${d##*/}"; break; }
		done
	done
}

disks=${VLAB_DRIVES// /,}
nvme_read_bw --disks "$disks" --engine io_uring --iopoll -t 1 --warmup 0 -D 1 >/dev/null 2>"$out/nopoll.err"
echo $? >"$out/nopoll.rc"

modprobe -r nvme && modprobe nvme poll_queues=2 || { echo "modprobe nvme poll_queues=2 failed"; exit 1; }
for ((t = 0; t < 300; t++)); do
	n=$(ordered_drives | wc -l)
	[ "$n" = "$count" ] && [ -b "$(ordered_drives | tail -n 1)" ] && break
	sleep 0.1
done
ordered_drives >"$out/drives.txt"
disks=$(paste -sd, "$out/drives.txt")
while read -r d; do
	echo "$d $(cat "/sys/block/${d#/dev/}/queue/io_poll")"
done <"$out/drives.txt" >"$out/io_poll.txt"
echo "drives after the reload: $disks"; cat "$out/io_poll.txt"

for mode in iopoll sqpoll; do
	echo "nvme_read_bw --disks $disks --engine io_uring --$mode -t $threads --depth $depth --span $span --checksum"
	nvme_read_bw --disks "$disks" --engine io_uring --"$mode" --depth "$depth" --threads "$threads" \
		--chunk "$chunk" --span "$span" --warmup 0.5 -D "$window" --checksum --json \
		>"$out/$mode.json" 2>"$out/$mode.err"
	echo $? >"$out/$mode.rc"
	cat "$out/$mode.err"
done

jobs=()
while read -r d; do
	jobs+=(--name="${d#/dev/}" --filename="$d")
done <"$out/drives.txt"
for anchor in hipri sqthread_poll; do
	timeout 30 fio --eta=never --output-format=json --output="$out/fio-$anchor.json" --rw=read --bs="$chunk" \
		--direct=1 --ioengine=io_uring --iodepth="$depth" --fixedbufs --registerfiles --"$anchor" \
		--numjobs="$threads" --size=$((32 / threads))M --offset_increment=$((32 / threads))M \
		--time_based --ramp_time=0.5 --runtime="$window" --group_reporting "${jobs[@]}" ||
		echo "fio --$anchor failed"
done
exit 0
