#!/bin/bash
# Node b of remote_rails.sh: the sources, one per scenario, 4 workers on one
# drive; each starts once node a's sink listens on its control address.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
O=$VLAB_OUT
B=nvme_write_bw_remote
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
d0=$1
W=(--warmup 1 -D 6 -s 256K --timeout 15 --json)
src() { # NAME ARGS...
	local n=$1
	shift
	listening
	sleep 0.5
	bounded 120 "$n" $B "${W[@]}" "$@" "$VLAB_PEER" >"$O/$n.src.json" 2>"$O/$n.src.err"
	echo $? >"$O/$n.src.rc"
	sed "s/^/$n source: /" "$O/$n.src.err"
	sleep 1
}
src verbs --disks "$d0" -q 4
src cm --disks "$d0" -q 4 -R
src src1 --disks "$d0" -q 4 -d "$(cut -d' ' -f2 <<<"$VLAB_RDMA_DEVS")"
src sink0 --disks "$d0" -q 4
ip -4 addr flush dev "$(cut -d' ' -f2 <<<"$VLAB_NETDEVS")"
src noaddr --disks "$d0" -q 4
# A perftest user's line: 2 QPs per drive, 128 WRITEs of 64K (ib_write_bw's default
# size) in flight each.
listening
sleep 0.5
bounded 120 perftest $B -d "${VLAB_RDMA_DEVS%% *}" -t 128 -q 2 -s 64K --report_gbits \
	--disks "$d0" --warmup 1 -D 6 --timeout 20 --json "$VLAB_PEER" >"$O/perftest.src.json" \
	2>"$O/perftest.src.err"
echo $? >"$O/perftest.src.rc"
sed "s/^/perftest source: /" "$O/perftest.src.err"
exit 0
