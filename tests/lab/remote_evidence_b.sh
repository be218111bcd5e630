#!/bin/bash
# Node b of remote_pair.sh's part evidence: the source, reading its first drive into node
# a. 1. a run (JSON: this end's counter deltas, its drive's link under load); 2. the same
# with this node's NIC slowed on purpose (tc tbf at 40 Mbit/s, a 100 ms queue: the shaper
# delays and drops, Soft-RoCE retries): its counters say what happened. Every step is
# bounded; the shaper is removed whatever the run did.
set -u
. "$VLAB_SRCDIR/tests/lab/guest_lib.sh"
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES

listening
bounded 60 "evidence (plain run)" nvme_write_bw_remote --disks "$1" -q 1 -s 256K --warmup 1 -D 6 \
	--timeout 20 --json "$VLAB_PEER" >"$VLAB_OUT/src.json" 2>"$VLAB_OUT/src.err"
echo $? >"$VLAB_OUT/src.rc"
sed 's/^/evidence source: /' "$VLAB_OUT/src.err"

sleep 1
listening
modprobe sch_tbf 2>"$VLAB_OUT/tc.err"
tc qdisc add dev "$VLAB_NETDEV" root tbf rate 40mbit burst 32kb latency 100ms \
	2>>"$VLAB_OUT/tc.err"
echo $? >"$VLAB_OUT/tc.rc"
bounded 90 "evidence (shaped NIC)" nvme_write_bw_remote --disks "$1" -q 1 -s 256K --warmup 1 -D 6 \
	--timeout 20 --json "$VLAB_PEER" >"$VLAB_OUT/shaped.src.json" 2>"$VLAB_OUT/shaped.src.err"
echo $? >"$VLAB_OUT/shaped.src.rc"
tc -s qdisc show dev "$VLAB_NETDEV" >"$VLAB_OUT/tc.show" 2>&1
tc qdisc del dev "$VLAB_NETDEV" root 2>>"$VLAB_OUT/tc.err"
sed 's/^/shaped source: /' "$VLAB_OUT/shaped.src.err"
sed 's/^/shaper: /' "$VLAB_OUT/tc.show"
exit 0
