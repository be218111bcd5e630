#!/bin/bash
# Node b of remote_two_node.sh: the source, reading its first drive into node a.
# 1. a verified run; 2. (netdown) once the window runs (the first live line),
# take this node's NIC down: the source must fail within its bound.
set -u
set -- $VLAB_DRIVES
nvme_write_bw_remote --disks "$1" -q 1 --warmup 2 -D 12 --timeout 20 --verify full --json \
	"$VLAB_PEER" >"$VLAB_OUT/src.json" 2>"$VLAB_OUT/src.err"
echo $? >"$VLAB_OUT/src.rc"
cat "$VLAB_OUT/src.err"

# Wait (bounded) until the next sink listens on node a.
listening() {
	for _ in $(seq 300); do
		timeout 1 bash -c "exec 3<>/dev/tcp/$VLAB_PEER/18515" 2>/dev/null && return 0
		sleep 0.2
	done
}
sleep 1
listening # the sink of scenario 1b
nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 6 --timeout 20 --late-start 3 --json \
	"$VLAB_PEER" >"$VLAB_OUT/late.src.json" 2>"$VLAB_OUT/late.src.err"
echo $? >"$VLAB_OUT/late.src.rc"

sleep 1
listening # the sink of scenario 2
E=$VLAB_OUT/netdown.src.err
nvme_write_bw_remote --disks "$1" -q 1 --warmup 1 -D 30 --timeout 4 --interval 1 --json \
	"$VLAB_PEER" >"$VLAB_OUT/netdown.src.json" 2>"$E" &
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
sed 's/^/netdown source: /' "$E"
exit 0
