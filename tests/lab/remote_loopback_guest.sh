#!/bin/bash
# Guest side of remote_loopback.sh (one node, sink and source on rxe0 loopback).
# Runs the scenarios and leaves outputs and exit codes in $VLAB_OUT/<name>.*;
# the host judges.
set -u
B=nvme_write_bw_remote
O=$VLAB_OUT
W=(--warmup 1 -D 3 -s 1M --depth 4 --timeout 5)
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
d0=$1 d1=$2

# wait_until CMD...: until CMD succeeds, at most 30 s.
wait_until() {
	for _ in $(seq 300); do
		"$@" 2>/dev/null && return 0
		sleep 0.1
	done
}
# A sink listens on the control port (seen without connecting).
# shellcheck disable=SC2317 # called through wait_until
listening() { ss -Hltn 'sport = :18515' | grep -q .; }
wait_listen() { wait_until listening; }
# FILE holds a live line (--interval's, "[..."): the session is in its window.
wait_live() { wait_until grep -q '^\[' "$1"; }

# run NAME SINK-ARGS... -- SOURCE-ARGS...: both sides, exit codes in NAME.{sink,src}.rc
run() {
	local n=$1 sa=()
	shift
	while [ "$1" != -- ]; do sa+=("$1"); shift; done
	shift
	"$B" "${sa[@]}" >"$O/$n.sink.out" 2>"$O/$n.sink.err" &
	local sp=$!
	wait_listen
	timeout "${SRC_TIMEOUT:-90}" "$B" "$@" >"$O/$n.src.out" 2>"$O/$n.src.err"
	echo $? >"$O/$n.src.rc"
	wait "$sp"
	echo $? >"$O/$n.sink.rc"
	echo "$n: sink $(cat "$O/$n.sink.rc") source $(cat "$O/$n.src.rc")"
}

# 1. drives on both sides, full verification, worker 0's slice dumped.
run disk --dram 64M --local-disks "$d0" -q 1 "${W[@]}" --verify full --json \
	--dump-slice "$O/slice.bin" -- --disks "$d1" -q 2 "${W[@]}" --verify full --json "$VLAB_ADDR"
# 1b. the source reads its drive with io_uring (reads and WRITEs in flight together).
run uring --dram 64M --no-local "${W[@]}" --verify full --json -- --disks "$d1" -q 2 --engine io_uring "${W[@]}" \
	--verify full --json "$VLAB_ADDR"
# 1c. -a: one run per message size on both sides, from memory 2 bytes to 8 MiB (23
# runs: short windows, one QP), then the curve and its verdict.
A=(-a --warmup 0.2 -D 0.6 --depth 4 --timeout 5 --json)
SRC_TIMEOUT=240 run sizes --dram 64M --no-local "${A[@]}" -- --source mem -q 1 "${A[@]}" "$VLAB_ADDR"
# 1c2. small blocks: -s 4K from a drive, the source timing each WRITE (--latency).
S=(--warmup 1 -D 2 --depth 4 --timeout 5 --json)
run small --dram 64M --no-local -s 4K "${S[@]}" -- --disks "$d1" -q 2 -s 4K "${S[@]}" --latency "$VLAB_ADDR"
# 1d. -R with --sources 2: two sources into one sink, every RDMA connection
# through the sink's one rdma_cm listener, each session taking its own.
"$B" --dram 64M --no-local --sources 2 -R "${W[@]}" --json >"$O/fanr.sink.out" 2>"$O/fanr.sink.err" &
sp=$!
wait_listen
cps=()
for i in 1 2; do
	timeout 90 "$B" --source mem -q 2 -R "${W[@]}" --json "$VLAB_ADDR" >"$O/fanr.src$i.out" 2>"$O/fanr.src$i.err" &
	cps[i]=$!
done
wait "${cps[1]}"; echo $? >"$O/fanr.src1.rc"
wait "${cps[2]}"; echo $? >"$O/fanr.src2.rc"
wait "$sp"; echo $? >"$O/fanr.sink.rc"
echo "fanr: sink $(cat "$O/fanr.sink.rc") sources $(cat "$O/fanr.src1.rc") $(cat "$O/fanr.src2.rc")"
# 2. memory source, a corrupted canary: FAIL on both sides.
run corrupt --dram 64M --no-local "${W[@]}" -- --source mem --corrupt-canary "${W[@]}" "$VLAB_ADDR"
# 3. parameter mismatch: the source is told why and exits 1; the sink logs it
# and keeps waiting (a mismatch never ends its run) until --wait.
run mismatch --dram 64M --no-local "${W[@]}" --wait 5 -- --source mem "${W[@]}" --depth 8 "$VLAB_ADDR"
# 4. a stranger speaks first (dropped, logged), then a real source.
"$B" --dram 64M --no-local "${W[@]}" --json >"$O/stranger.sink.out" 2>"$O/stranger.sink.err" &
sp=$!
wait_listen
printf 'GET / HTTP/1.0\r\n\r\n' | timeout 5 nc -q 1 "$VLAB_ADDR" 18515 >/dev/null 2>&1 ||
	timeout 5 bash -c "exec 3<>/dev/tcp/$VLAB_ADDR/18515; printf 'GET / HTTP/1.0\r\n\r\n' >&3; sleep 1"
timeout 90 "$B" --source mem "${W[@]}" "$VLAB_ADDR" >"$O/stranger.src.out" 2>"$O/stranger.src.err"
echo $? >"$O/stranger.src.rc"
wait $sp
echo $? >"$O/stranger.sink.rc"
# 5. the source killed mid-window: the sink exits 1 within its documented bound.
$B --dram 64M --no-local --warmup 1 -D 30 --timeout 5 >"$O/kill.sink.out" 2>"$O/kill.sink.err" &
sp=$!
wait_listen
$B --source mem --warmup 1 -D 30 --timeout 5 --interval 0.5 "$VLAB_ADDR" >"$O/kill.src.out" 2>&1 &
cp=$!
wait_live "$O/kill.src.out"
sleep 2
kill -9 $cp
t0=$(date +%s)
wait $sp
echo $? >"$O/kill.sink.rc"
echo $(($(date +%s) - t0)) >"$O/kill.sink.secs"
# 5b. the source stopped (SIGSTOP) mid-window: no more heartbeats; the sink
# must call it silent within --timeout 3 and print the last heartbeat's figures.
$B --dram 64M --no-local --warmup 1 -D 30 --timeout 3 --json >"$O/stop.sink.out" 2>"$O/stop.sink.err" &
sp=$!
wait_listen
$B --source mem --warmup 1 -D 30 --timeout 3 --interval 0.5 "$VLAB_ADDR" >"$O/stop.src.out" 2>&1 &
cp=$!
wait_live "$O/stop.src.out"
sleep 2
kill -STOP $cp
t0=$(date +%s.%N)
wait $sp
echo $? >"$O/stop.sink.rc"
echo "$(date +%s.%N) - $t0" | bc >"$O/stop.sink.secs"
kill -CONT $cp
wait $cp
echo $? >"$O/stop.src.rc"
# 6. a wrong device name; a sink on a port in use; a peer that never comes.
$B -d nosuch0 --dram 64M --no-local 2>"$O/baddev.err"
echo $? >"$O/baddev.rc"
# 6b. -x 9 on rxe0 (Soft-RoCE's table has no GID there): refused, exit 2; -d by the
# netdev of rxe0 and --list-ports (its netdev and GIDs).
$B -d "$VLAB_RDMA_DEV" -x 9 --dram 64M --no-local 2>"$O/badgid.err"
echo $? >"$O/badgid.rc"
$B -d "$VLAB_NETDEV" -x 9 --source mem "$VLAB_ADDR" 2>"$O/badgid.nd.err"
echo $? >"$O/badgid.nd.rc"
$B --list-ports --json >"$O/ports.out" 2>"$O/ports.err"
echo $? >"$O/ports.rc"
$B --dram 64M --no-local --wait 20 >/dev/null 2>&1 &
sp=$!
wait_listen
timeout 30 $B --dram 64M --no-local 2>"$O/inuse.err"
echo $? >"$O/inuse.rc"
kill $sp; wait $sp 2>/dev/null
# --wait counts from the listen ("waiting for a source"), not from the start: the time
# from that line to the exit is what it bounds (the start, 64M registered in a starved
# TCG guest, and its exit took 4 s of a 7 s run at load 8).
t0=$(date +%s.%N) tw=
timeout 30 $B --dram 64M --no-local --wait 3 2>"$O/nopeer.err" &
np=$!
while kill -0 $np 2>/dev/null; do
	[ -z "$tw" ] && grep -q "waiting for a source" "$O/nopeer.err" 2>/dev/null && tw=$(date +%s.%N)
	sleep 0.05
done
wait $np
echo $? >"$O/nopeer.rc"
te=$(date +%s.%N)
echo "$te - ${tw:-$t0}" | bc >"$O/nopeer.wait.secs"
echo "$te - $t0" | bc >"$O/nopeer.secs"
# 7. no ACTIVE port: rxe0's network interface down; both roles refuse at once.
ip link set dev "$VLAB_NETDEV" down
sleep 1
timeout 30 $B --dram 64M --no-local 2>"$O/noport.sink.err"
echo $? >"$O/noport.sink.rc"
timeout 30 $B -d "$VLAB_RDMA_DEV" --source mem "$VLAB_ADDR" 2>"$O/noport.src.err"
echo $? >"$O/noport.src.rc"
ip link set dev "$VLAB_NETDEV" up
# (pgrep -x would never match: a process name is cut to 15 characters)
pgrep -af "(^|/)$B( |\$)" >"$O/leftover" || true
exit 0
