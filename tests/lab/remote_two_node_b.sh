#!/bin/bash
# Node b of remote_two_node.sh: the source, reading its first drive into node a.
# 1. a verified run; 1b. a source 3 s late; 2. (netdown) once the window runs
# (the first live line), take this node's NIC down: the source must fail
# within its bound. Every step is bounded and says how it ended, so that a
# hang names its step (and where the source waits) instead of eating the
# lab's whole timeout.
set -u
set -- $VLAB_DRIVES
t0=$(date +%s)

# bounded SECS STEP CMD...: run the source; past SECS (beyond its own
# --timeout bounds) say where its threads wait, kill it, exit status 124.
bounded() {
	local secs=$1 step=$2 pid i state stack
	shift 2
	"$@" &
	pid=$!
	for ((i = 0; i < secs * 10; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		state=$(for t in /proc/$pid/task/*; do
			printf '%s:%s ' "$(awk '{print $3}' "$t/stat" 2>/dev/null)" "$(cat "$t/wchan" 2>/dev/null)"
		done)
		echo "node b: $step: the source still runs after ${secs} s; threads (state:wchan): $state"
		case $state in
		*D:*) echo "node b: $step: the source is stuck in the kernel (Soft-RoCE stall)" ;;
		esac
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		return 124
	fi
	wait $pid
}

# Wait (bounded: 60 s) until the next sink listens on node a.
listening() {
	local end=$(($(date +%s) + 60))
	while [ "$(date +%s)" -lt $end ]; do
		timeout 1 bash -c "exec 3<>/dev/tcp/$VLAB_PEER/18515" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "node b: no sink listened on $VLAB_PEER port 18515 within 60 s"
}

bounded 90 "1 (verified run)" nvme_write_bw_remote --disks "$1" -q 1 --warmup 2 -D 12 \
	--timeout 20 --verify full --json "$VLAB_PEER" >"$VLAB_OUT/src.json" 2>"$VLAB_OUT/src.err"
echo $? >"$VLAB_OUT/src.rc"
echo "node b: 1: exit $(cat "$VLAB_OUT/src.rc") at $(($(date +%s) - t0)) s"
sed 's/^/source: /' "$VLAB_OUT/src.err"

sleep 1
listening # the sink of scenario 1b
bounded 70 "1b (late start)" nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 6 \
	--timeout 20 --late-start 3 --json "$VLAB_PEER" >"$VLAB_OUT/late.src.json" \
	2>"$VLAB_OUT/late.src.err"
echo $? >"$VLAB_OUT/late.src.rc"
echo "node b: 1b: exit $(cat "$VLAB_OUT/late.src.rc") at $(($(date +%s) - t0)) s"
sed 's/^/late source: /' "$VLAB_OUT/late.src.err"

sleep 1
listening # the sink of scenario 2
E=$VLAB_OUT/netdown.src.err
bounded 60 "2 (netdown)" nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 30 --timeout 4 \
	--interval 1 --json "$VLAB_PEER" >"$VLAB_OUT/netdown.src.json" 2>"$E" &
sp=$!
for _ in $(seq 600); do
	grep -q '^\[ *[0-9.]*s\]' "$E" 2>/dev/null && break
	kill -0 $sp 2>/dev/null || break
	sleep 0.1
done
sleep 2
t_down=$(date +%s.%N)
ip link set dev "$VLAB_NETDEV" down
wait $sp
echo $? >"$VLAB_OUT/netdown.src.rc"
echo "$(date +%s.%N) - $t_down" | bc >"$VLAB_OUT/netdown.src.secs"
ip link set dev "$VLAB_NETDEV" up
echo "node b: 2: exit $(cat "$VLAB_OUT/netdown.src.rc") at $(($(date +%s) - t0)) s"
sed 's/^/netdown source: /' "$E"
exit 0
