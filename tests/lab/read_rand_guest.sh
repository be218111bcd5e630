#!/bin/bash
# Guest side of read_rand.sh (node a): random 4 KiB reads of every drive with
# io_uring (depth 32) and psync, --latency --json, then --sweep-depth 1,4,16 in text and
# JSON. Results go to $VLAB_OUT: {uring,psync,depth}.{json,rc,err}, depth.txt, depth-text.rc.
set -u
out=$VLAB_OUT
disks=${VLAB_DRIVES// /,}
common=(--disks "$disks" --pattern rand --seed 3 -s 4K --span 32M)

run() { # NAME ARGS...: nvme_read_bw ARGS --json into NAME.json, NAME.rc, NAME.err
	local name=$1
	shift
	echo "nvme_read_bw ${common[*]} $*"
	nvme_read_bw "${common[@]}" "$@" --json >"$out/$name.json" 2>"$out/$name.err"
	echo $? >"$out/$name.rc"
	cat "$out/$name.err"
}
run uring --engine io_uring --depth 32 -t 2 --latency --warmup 0.5 -D 3
run psync --engine psync -t 2 --latency --warmup 0.5 -D 2
run depth --engine io_uring -t 1 --sweep-depth 1,4,16 --warmup 0.3 -D 1
nvme_read_bw "${common[@]}" --engine io_uring -t 1 --sweep-depth 1,8 --warmup 0.3 -D 1 \
	>"$out/depth.txt" 2>&1
echo $? >"$out/depth-text.rc"
cat "$out/depth.txt"
exit 0
