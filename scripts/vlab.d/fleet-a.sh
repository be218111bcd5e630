#!/bin/bash
# vlab fleet, node a: nbw-fleet run over every node of the lab, node a among them,
# through the lab's launcher in the place of ssh/srun (the other nodes serve it:
# fleet-node.sh). The nodes are named a b c d, as the launcher knows them; a source
# connects to its sink's address on the lab NIC (--rdma-netdev: the names do not
# resolve in the lab). Arguments: nbw-fleet run's own options, after the lab's
# defaults (6 s windows, 1 s warm-up), so they win.
#
# The sweep is written in this node's /tmp (a tmpfs: the sweep's lock wants a local
# file system) and copied to $VLAB_OUT/sweep at the end, whatever happened, with
# lab.json beside its files: each node's name and address and what vlab slowed on
# purpose ($VLAB_SLOWED). vlab copies it to the host (vlab.d/fleet-host.sh).
set -u
src=$VLAB_SRCDIR
prog=fleet-a.sh
# shellcheck source=../bench_lib.sh
. "$src/scripts/bench_lib.sh" || exit 1
launch=$src/scripts/vlab.d/launch
read -r -a hosts <<<"$VLAB_HOSTS"
names=abcd
# shellcheck disable=SC2317 # run by the EXIT trap
stop_agents() {
	local i n
	for ((i = 1; i < VLAB_NODES; i++)); do
		n=${names:i:1}
		LAUNCH_CONNECT_TIMEOUT=10 "$launch" --stop "$n" >/dev/null 2>&1 ||
			echo "could not stop node $n's agent"
	done
}
trap stop_agents EXIT

export LAUNCHER=$launch DRAM=256M THREADS=2 CHUNK=1M NET_TIMEOUT=20 SINK_WAIT=120
sweep=/tmp/sweep
nodes=$(echo "${names:0:VLAB_NODES}" | sed 's/./&,/g; s/,$//')
printf '\n=== node a: nbw-fleet run over %s (at %s, through %s) ===\n' \
	"$nodes" "${hosts[*]}" "${launch##*/}"
[ -z "${VLAB_SLOWED:-}" ] || printf 'slowed on purpose: %s\n' "$VLAB_SLOWED"
"$src/scripts/nbw-fleet" run --nodes "$nodes" --rdma-netdev "$VLAB_NETDEV" --out "$sweep" \
	--duration 6 --warmup 1 "$@"
rc=$?
if [ -d "$sweep" ]; then
	nbw_py lab.slowed lab-json "$sweep/lab.json"
	cp -a "$sweep" "$VLAB_OUT/sweep" || echo "could not copy the sweep to $VLAB_OUT"
fi
exit "$rc"
