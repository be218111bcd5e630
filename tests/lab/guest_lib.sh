#!/bin/bash
# Sourced by the lab tests' node scripts (inside the guests): waits that end
# by the clock and say so, so that a node whose peer is gone (a Soft-RoCE
# stall ended the peer's sinks early) ends with a line instead of being
# killed silently by the lab's timeout.

# fd 9: the script's own stdout (the node's console, in the test's log), for the
# lines of a step whose output goes to files.
exec 9>&1

# listening [SECS]: until a sink listens on $VLAB_PEER port 18515, at most
# SECS (60) by the clock; 1 after a line saying none did.
# shellcheck disable=SC2120 # SECS is optional: most callers take the 60 s
listening() {
	local secs=${1:-60} end
	end=$(($(date +%s) + secs))
	while [ "$(date +%s)" -lt "$end" ]; do
		timeout 1 bash -c "exec 3<>/dev/tcp/$VLAB_PEER/18515" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "node $VLAB_NODE: no sink listened on $VLAB_PEER port 18515 within $secs s"
	return 1
}

# running PID: the process runs (not gone, not a zombie).
running() {
	local state
	state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) && [ "$state" != Z ]
}

# rdma_state STEP: what this node's Soft-RoCE shows after a hang, for the test's log:
# the QPs (rdma res), the rxe counters that are not zero (retries, errors, drops), the
# link's packet counts and the kernel's last words. At most about 40 lines.
rdma_state() {
	local f
	echo "node $VLAB_NODE: $1: kernel $(uname -r); rdma res qp:"
	rdma res show qp 2>&1 | head -8 | sed 's/^/    /'
	for f in /sys/class/infiniband/*/ports/*/hw_counters/*; do
		[ -r "$f" ] && [ "$(cat "$f" 2>/dev/null)" != 0 ] && printf '%s=%s ' "${f##*/}" "$(cat "$f")"
	done | fold -w 100 -s | sed "s/^/    node $VLAB_NODE: counters: /"
	echo
	ip -s link show dev "$VLAB_NETDEV" 2>&1 | head -6 | sed 's/^/    /'
	# The qdisc's backlog (frames the NIC would not take) and the counts 1 s later: a
	# backlog that stays with counts that do not move is a link that stopped, not rxe.
	# (6.1's virtio_net keeps no byte queue limits: its in-flight count is always 0.)
	tc -s qdisc show dev "$VLAB_NETDEV" 2>&1 | grep -m2 -E 'backlog|dropped' | sed 's/^ */    qdisc: /'
	sleep 1
	echo "    node $VLAB_NODE: 1 s later: $(ip -s link show dev "$VLAB_NETDEV" 2>&1 | awk '/RX:|TX:/ {getline; printf "%s ", $2}') packets (rx tx)"
	dmesg 2>/dev/null | tail -n 12 | sed 's/^/    dmesg: /'
}

# kernel_lines FILE: the kernel's lines on lockups, hung tasks, oopses and rxe (the last 40).
kernel_lines() {
	dmesg | grep -E 'lockup|hung task|blocked for|Oops|BUG:|panic|double fault|rxe|Call Trace|WATCHDOG|timed out|TX timeout' |
		tail -n 40 >"$1"
}

# failed_state RC STEP: after a bounded step that exited RC, this node's Soft-RoCE
# state if it failed; not after 0, nor after 124 (bounded printed it already).
failed_state() {
	[ "$1" = 0 ] || [ "$1" = 124 ] || rdma_state "$2 exit $1"
}

# round_done R RC T0 WHO ERR: "round R exit RC SECS s" into $VLAB_OUT/rounds.txt; on a
# failure WHO's stderr (ERR) and this node's Soft-RoCE state.
round_done() {
	echo "round $1 exit $2 $(echo "$(date +%s.%N) - $3" | bc | cut -c1-5) s" >>"$VLAB_OUT/rounds.txt"
	[ "$2" = 0 ] || sed "s/^/$4 $1: /" "$5"
	failed_state "$2" "$4 $1"
}

# bounded SECS STEP CMD...: run CMD; past SECS by the clock (beyond its own
# --timeout bounds) say where its threads wait (state:wchan) and the node's
# Soft-RoCE state (rdma_state), kill it and return 124. A thread in D state is
# stuck in the kernel: the test fails (no retry).
bounded() {
	local secs=$1 step=$2 pid end
	shift 2
	"$@" 9>&- &
	pid=$!
	end=$(($(date +%s) + secs))
	while running $pid && [ "$(date +%s)" -lt "$end" ]; do
		sleep 0.1
	done
	if running $pid; then
		bounded_report "$pid" "$secs" "$step" >&9 2>&9
		kill -9 $pid 2>/dev/null
		wait $pid 2>/dev/null
		return 124
	fi
	wait $pid
}

# bounded_report PID SECS STEP: where a step past its bound waits, and this node's
# Soft-RoCE state.
bounded_report() {
	local pid=$1 secs=$2 step=$3 state t
	state=$(for t in /proc/"$pid"/task/*; do
		printf '%s:%s ' "$(awk '{print $3}' "$t/stat" 2>/dev/null)" "$(cat "$t/wchan" 2>/dev/null)"
	done)
	echo "node $VLAB_NODE: $step: still running after $secs s; threads (state:wchan): $state"
	case $state in
	*D:*) echo "node $VLAB_NODE: $step: a thread is stuck in the kernel (Soft-RoCE stall)" ;;
	esac
	rdma_state "$step"
}
