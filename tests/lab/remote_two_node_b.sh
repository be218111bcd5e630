#!/bin/bash
# Node b of remote_pair.sh's part two_node: the source, reading its first drive into node a.
# 1. a verified run; 1b. a source 3 s late; 2. (netdown) once the window runs
# (the first live line), take this node's NIC down: the source must fail
# within its bound (-u 16: its retries, 268 ms each, find the lost network
# within about 2 s; the lab's 4.3 s would take 30 s). Every step is bounded
# and says how it ended, so that a hang names its step (and where the source
# waits) instead of eating the lab's whole timeout.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
t0=$(date +%s)

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
bounded 60 "2 (netdown)" nvme_write_bw_remote -u 16 --disks "$1" -q 1 --warmup 1 -D 30 --timeout 4 \
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
