#!/bin/bash
# Node a of remote_rails.sh: a sink per scenario, in the order node b runs its
# sources (each waits until this sink listens). Two NICs, rxe0 and rxe1.
set -u
O=$VLAB_OUT
B=nvme_write_bw_remote
W=(--warmup 1 -D 6 -s 256K --timeout 15 --wait 90 --no-local --dram 64M --json)
sink() { # NAME ARGS...
	local n=$1
	shift
	$B "${W[@]}" "$@" >"$O/$n.sink.json" 2>"$O/$n.sink.err"
	echo $? >"$O/$n.sink.rc"
}
sink verbs
sink cm -R
sink src1
sink sink0 -d "${VLAB_RDMA_DEVS%% *}"
# The data rail without IPv4 addresses on either side: only the control one has one.
ip -4 addr flush dev "$(cut -d' ' -f2 <<<"$VLAB_NETDEVS")"
sink noaddr
$B --warmup 1 -D 6 --timeout 20 --wait 90 --no-local --dram 300M -t 128 -s 64K --json \
	>"$O/perftest.sink.json" 2>"$O/perftest.sink.err"
echo $? >"$O/perftest.sink.rc"
exit 0
