#!/bin/bash
# Both nodes of remote_pair.sh's part bounds (node a: the sinks, node b: the sources), one
# scenario after the other, each on a port of its own so that a frozen sink's
# listening socket never answers the next scenario's source:
#   frozen-sink   the sink is stopped (SIGSTOP) in the window, continued 25 s later
#   frozen-source the source is stopped in the window, continued 20 s later
#   link-down     the sink's NIC goes down in the window (up again after)
#   teardown      both sides hang in "teardown: destroying QP" (NBW_TEST_STALL_PHASE)
# Per scenario and side: $VLAB_OUT/NAME.{rc,secs,said,late,err}; the budget of both
# sides' options in $VLAB_OUT/budget.
set -u
O=$VLAB_OUT
B=nvme_write_bw_remote
T=3
W=(--warmup 1 -D 6 --timeout "$T")
# The sinks wait for their source long enough for node b's previous scenario to end even
# when the kernel held it (its budget + 65 s, see remote_bounds_check.sh).
WAIT=150
# The tool's budget (nvme_write_bw_remote --help): 8T + (W + 4T) per window, + --wait.
SRC_BUDGET=$((8 * T + 7 + 4 * T)) SINK_BUDGET=$((8 * T + 7 + 4 * T + WAIT))
echo "source $SRC_BUDGET sink $SINK_BUDGET" >"$O/budget"
BUDGET=$SRC_BUDGET
[ "$VLAB_NODE" = a ] && BUDGET=$SINK_BUDGET

# until_line FILE SECS: until FILE (stdout: live lines go there without --json) has a live line ("[   1.0s] ..."), SECS at most.
until_line() {
	local i
	for ((i = 0; i < $2 * 10; i++)); do
		grep -q '^\[ *[0-9.]*s\]' "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "no live line in $1 within $2 s" >&2
	return 1
}

# listening PORT: until the sink listens on PORT (60 s at most).
listening() {
	local i
	for ((i = 0; i < 300; i++)); do
		timeout 1 bash -c "exec 3<>/dev/tcp/$VLAB_PEER/$1" 2>/dev/null && return 0
		sleep 0.2
	done
	return 1
}

# stamp FILE: stdin to FILE, line by line (a last one without a newline too); the time of
# the last line to FILE.said.
stamp() {
	local l
	while IFS= read -r l || [ -n "$l" ]; do
		printf '%s\n' "$l"
		date +%s.%N >"$1.said"
	done >>"$1"
}

# since T0 FILE: seconds from T0 to the time in FILE (empty when there is none).
since() {
	[ -s "$2" ] && awk -v a="$(cat "$2")" -v b="$1" 'BEGIN { printf "%.1f\n", a - b }'
}

# late PID UNTIL FILE: if PID is still there at UNTIL (seconds since the epoch, as
# $EPOCHREALTIME), its threads to FILE, one per line: "STATE WCHAN" (D: inside the
# kernel, uninterruptible; S or R: the tool's own code).
late() {
	local t
	while awk -v n="$EPOCHREALTIME" -v u="$2" 'BEGIN { exit !(n < u) }'; do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.2
	done
	for t in /proc/"$1"/task/*; do
		echo "$(awk '/^State:/ { print $2 }' "$t/status" 2>/dev/null) $(cat "$t/wchan" 2>/dev/null)"
	done >"$3"
}

# run NAME PORT FAULT DELAY [ENV...]: this side of one scenario, in the
# background; FAULT (stop, link, none) is done to it at its first live line.
# Its stderr goes through stamp: NAME.said is when the tool said its last word,
# NAME.secs when it was reaped (a thread held inside the driver delays the exit), and
# NAME.late its threads' states if it was still there 5 s past its budget.
run() {
	local name=$1 port=$2 fault=$3 delay=$4 t0 pid spid lpid fifo
	shift 4
	fifo=/tmp/bounds-$name.fifo # $O is on 9p: no fifos there
	rm -f "$fifo" && mkfifo "$fifo" || return 1
	: >"$O/$name.err"
	stamp "$O/$name.err" <"$fifo" &
	spid=$!
	t0=$(date +%s.%N) # the sink's budget counts its --wait for the source
	if [ "$VLAB_NODE" = a ]; then
		env "$@" $B --no-local --dram 64M "${W[@]}" --wait $WAIT -p "$port" --interval 1 \
			>"$O/$name.out" 2>"$fifo" &
	else
		listening "$port" || echo "no sink on port $port" >>"$O/$name.err"
		t0=$(date +%s.%N)
		env "$@" $B --source mem -q 2 "${W[@]}" -p "$port" --interval 1 "$VLAB_PEER" \
			>"$O/$name.out" 2>"$fifo" &
	fi
	pid=$!
	rm -f "$O/$name.late"
	late $pid "$(awk -v t="$t0" -v b="$BUDGET" 'BEGIN { printf "%.3f", t + b + 5 }')" "$O/$name.late" &
	lpid=$!
	case $fault in
	stop)
		until_line "$O/$name.out" 60 && kill -STOP $pid
		sleep "$delay"
		kill -CONT $pid ;;
	link)
		until_line "$O/$name.out" 60 && ip link set "$VLAB_NETDEV" down ;;
	esac
	wait $pid
	echo $? >"$O/$name.rc"
	date +%s.%N >"$O/$name.reaped"
	# a tool that never opened the fifo leaves stamp blocked in its open: give it a writer
	# and its end (opening read-write never blocks)
	exec 4<>"$fifo"
	exec 4>&-
	wait $spid $lpid
	since "$t0" "$O/$name.reaped" >"$O/$name.secs"
	since "$t0" "$O/$name.err.said" >"$O/$name.said"
	rm -f "$fifo" "$O/$name.reaped" "$O/$name.err.said"
	[ "$fault" = link ] && ip link set "$VLAB_NETDEV" up && sleep 3
	return 0
}

if [ "$VLAB_NODE" = a ]; then
	run frozen-sink 18701 stop 25
	run frozen-source 18702 none 0
	run link-down 18703 link 0
	run teardown 18704 none 0 NBW_TEST_STALL_PHASE="teardown: destroying QP"
else
	run frozen-sink 18701 none 0
	run frozen-source 18702 stop 20
	run link-down 18703 none 0
	run teardown 18704 none 0 NBW_TEST_STALL_PHASE="teardown: destroying QP"
fi
exit 0
