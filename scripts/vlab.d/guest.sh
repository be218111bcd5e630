#!/bin/bash
# vlab stage 2: PID 1 of a lab node, run by the host's bash on the host's root
# (read-only 9p). Loads the drivers, brings up the NICs and Soft-RoCE, finds the
# node's NVMe drives, publishes the VLAB_* environment, waits for the host's
# "go", runs the user's script with a hard timeout and powers off.
#
# Protocol with the host (files in /run/vlab = the node's share on the host):
#   node.env  in   settings written by scripts/vlab
#   script    in   the user's script; args: its arguments, NUL-separated
#   vlab.env  out  the environment the script gets (VLAB_* lines)
#   ready     out  the node is up; go (in): start the script
#   rc        out  the script's exit status (124: killed by the timeout)
#   stop      in   (node without a script) power off now
set -u
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8 TERM=dumb
share=/run/vlab
exec </dev/null >/dev/console 2>&1

poweroff_now() {
	sync
	echo 0 >/proc/sys/kernel/printk
	/bin/busybox poweroff -f
	sleep 30
}

fail() {
	echo "vlab-guest[${VLAB_NODE:-?}]: $*"
	echo "$*" >"$share/error"
	poweroff_now
}

# Poll until "$@" succeeds, at most $1 seconds.
wait_for() {
	local limit=$(($1 * 10)) i=0
	shift
	until "$@"; do
		i=$((i + 1))
		[ "$i" -ge "$limit" ] && return 1
		sleep 0.1
	done
}

nvme_count() {
	local n=0 d size
	for d in /sys/block/nvme*n*; do
		read -r size 2>/dev/null <"$d/size" && [ "$size" != 0 ] && n=$((n + 1))
	done
	[ "$n" -ge "$VLAB_DRIVE_COUNT" ]
}

# Print the node's drives in drive-index order: the serial of drive i is
# vlab-<node>-<i>, so the i-th word is backed by the host's image i.
ordered_drives() {
	local i d s
	for ((i = 0; i < VLAB_DRIVE_COUNT; i++)); do
		for d in /sys/block/nvme*n*; do
			read -r s _ 2>/dev/null <"$d/device/serial" || continue
			if [ "$s" = "vlab-$VLAB_NODE-$i" ]; then
				printf '/dev/%s\n' "${d##*/}"
				break
			fi
		done
	done
}

# shellcheck source=/dev/null # vlab writes it for each node
. "$share/node.env" || fail "cannot read node.env"
hostname "vlab-$VLAB_NODE"
[ "$VLAB_VERBOSE" = 1 ] || echo 1 >/proc/sys/kernel/printk

modprobe -a nvme virtio_net crc32_generic rdma_rxe ib_uverbs rdma_ucm ||
	fail "modprobe failed"

# Print the netdev with MAC address $1.
netdev_of() {
	local d a
	for d in /sys/class/net/*; do
		read -r a 2>/dev/null <"$d/address" || continue
		[ "$a" = "$1" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}

# NIC k (MAC k of VLAB_NIC_MACS) gets address k of VLAB_ADDRS and rxeK.
ip link set lo up
read -r -a macs <<<"$VLAB_NIC_MACS"
read -r -a addrs <<<"$VLAB_ADDRS"
netdevs='' rdma_devs=''
for ((k = 0; k < ${#macs[@]}; k++)); do
	netdev=$(netdev_of "${macs[k]}") || fail "no NIC with MAC ${macs[k]}: $(ls /sys/class/net)"
	ip link set "$netdev" up || fail "ip link set $netdev up"
	ip addr add "${addrs[k]}/24" dev "$netdev" || fail "ip addr add ${addrs[k]} dev $netdev"
	rdma link add "rxe$k" type rxe netdev "$netdev" || fail "rdma link add rxe$k"
	netdevs="$netdevs $netdev"
	rdma_devs="$rdma_devs rxe$k"
done
[ -n "$netdevs" ] || fail "no NIC"

# shape NETDEV MBIT: NIC slowed on purpose (vlab --slow-nic): a token bucket on what
# it sends, whose queue (8 MB) holds more than Soft-RoCE keeps unacknowledged, so
# frames wait rather than drop (a drop would cost RoCE a 4 s retry).
shape() {
	local burst=$(($2 * 1000000 / 8 / 100))
	[ "$burst" -ge 32768 ] || burst=32768
	tc qdisc replace dev "$1" root tbf rate "${2}mbit" burst "$burst" limit 8000000 ||
		fail "tc qdisc replace dev $1 root tbf rate ${2}mbit"
	echo "vlab-guest[$VLAB_NODE]: $1 sends at most $2 Mbit/s (vlab --slow-nic)"
}
if [ -n "${VLAB_SLOW_NICS:-}" ]; then
	modprobe sch_tbf || fail "modprobe sch_tbf"
	read -r -a nds <<<"$netdevs"
	for slow in $VLAB_SLOW_NICS; do
		shape "${nds[${slow%%:*}]}" "${slow#*:}"
	done
fi

wait_for 30 nvme_count || fail "expected $VLAB_DRIVE_COUNT NVMe drives, found: $(ls /sys/block)"
drives=$(ordered_drives | tr '\n' ' ')
drives=${drives% }
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $drives
[ "$#" = "$VLAB_DRIVE_COUNT" ] || fail "drive serials do not match: $drives"

ulimit -l unlimited
ulimit -n 65536
export VLAB_NODE VLAB_NODES VLAB_ADDR VLAB_PEER VLAB_LBS VLAB_BUILDDIR VLAB_SRCDIR
export VLAB_ADDRS VLAB_PEERS VLAB_HOSTS VLAB_SLOWED
export VLAB_DRIVES=$drives
export VLAB_RDMA_DEVS=${rdma_devs# }
export VLAB_NETDEVS=${netdevs# }
export VLAB_RDMA_DEV=rxe0
export VLAB_NETDEV=${VLAB_NETDEVS%% *}
export VLAB_OUT=$share/out
# The RDMA ACK timeout of every requester in the lab: 4.096 us x 2^20 = 4.3 s per try.
# With the default 268 ms (perftest's 67 ms) the emulated nodes' CPU-starved responders
# ACK late and the requesters send WRITEs again although nothing was lost (rxe counters:
# completer_retry_err on the source, duplicate_request on the sink, UDP datagrams in =
# rxe packets received; docs/investigations.md, "Soft-RoCE under a starved CPU").
# nvme_write_bw_remote reads it as -u's default, the lab's ib_write_bw calls pass it as -u.
export NBW_QP_TIMEOUT=20
export PATH="$VLAB_BUILDDIR/nvme_read_bw:$VLAB_BUILDDIR/nvme_write_bw_remote:$VLAB_BUILDDIR/nvme_link_probe:$VLAB_BUILDDIR/tests:$PATH"
env | grep '^VLAB_' | sort >"$share/vlab.env"
echo "PATH=$PATH" >>"$share/vlab.env"

# The guest kernel's clock as it booted (tsc lines): a clock that runs fast or slow
# explains figures and timeouts that are off on one node only.
dmesg 2>/dev/null | grep -E 'tsc:|clocksource:' >"$share/clock"
: >"$share/ready"
wait_for "$VLAB_GO_TIMEOUT" test -e "$share/go" -o -e "$share/stop" ||
	fail "no go from the host"

if [ "$VLAB_HAS_SCRIPT" = 1 ] && [ ! -e "$share/stop" ]; then
	args=()
	[ -s "$share/args" ] && mapfile -d '' -t args <"$share/args"
	cd "$VLAB_OUT" || fail "cd $VLAB_OUT"
	# Unset the protocol-only variables before the user's script sees them.
	unset VLAB_DRIVE_COUNT VLAB_GO_TIMEOUT VLAB_HAS_SCRIPT VLAB_VERBOSE VLAB_NICS VLAB_NIC_MACS \
		VLAB_SLOW_NICS
	read -r up0 _ </proc/uptime
	timeout -k 5 "$VLAB_TIMEOUT" "$share/script" "${args[@]}"
	rc=$?
	read -r up1 _ </proc/uptime
	# A script that ends early, or is said to have timed out early, is explained by
	# the guest's own clocks: how long it ran by the uptime and by the wall clock.
	[ "$rc" = 0 ] || echo "vlab-guest[$VLAB_NODE]: script exit $rc after ${up0%.*}..${up1%.*} s of uptime, $(date -u +%T) UTC"
	echo "$rc" >"$share/rc.tmp" && mv "$share/rc.tmp" "$share/rc"
else
	wait_for "$VLAB_TIMEOUT" test -e "$share/stop"
fi
poweroff_now
