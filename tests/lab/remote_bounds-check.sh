# Part "bounds" of remote_pair.sh, the run's budget: a peer frozen (SIGSTOP) in the
# window, the sink's link taken down in the window, and a teardown step that
# hangs (NBW_TEST_STALL_PHASE): each side exits 1 within its budget + 5 s
# with a line saying why; a hung teardown is named by the watchdog ("stuck in
# teardown: destroying QP N of rxe0") and ends within the teardown's own bound.
# Sourced by remote_pair.sh in a subshell: A and B are nodes a's and b's outputs of
# this part (remote_bounds_guest.sh on both); fail ends the part.
read -r _ src_budget _ sink_budget <"$A/budget"

# check NODE SCENARIO BUDGET PATTERN: exit 1, within BUDGET + 5 s, its last line
# matching PATTERN.
check() {
	local O=$A s=$2 rc secs last
	[ "$1" = b ] && O=$B
	rc=$(cat "$O/$s.rc") secs=$(cat "$O/$s.secs")
	last=$(grep "^nvme_write_bw_remote: " "$O/$s.err" | tail -n 1)
	note "$s, node $1: exit $rc after $secs s (budget $3 s): $last"
	[ "$rc" = 1 ] || fail "$s: node $1 exit $rc, not 1: $(tail -3 "$O/$s.err")"
	"$PY" -c "import sys; sys.exit(0 if float(sys.argv[1]) <= float(sys.argv[2]) + 5 else 1)" \
		"$secs" "$3" || fail "$s: node $1 took $secs s, over its budget $3 s + 5"
	grep -Eq "^nvme_write_bw_remote: .*($4)" <<<"$last" ||
		fail "$s: node $1 did not end saying /$4/: $last"
}
check b frozen-sink "$src_budget" "no verdict|timed out|went away|sink"
check a frozen-sink "$sink_budget" "held up|implausible|source|closed"
check a frozen-source "$sink_budget" "silent|source"
# A frozen source, continued after the sink gave up on it, ends on whichever it meets first:
# the sink gone from the control channel, or its WRITEs left without completions.
check b frozen-source "$src_budget" "in flight|sink|stuck in"
check b link-down "$src_budget" "in flight|sink|stuck in"
check a link-down "$sink_budget" "silent|source"
check b teardown "$src_budget" "stuck in teardown: destroying QP [0-9]+ of rxe0"
check a teardown "$sink_budget" "stuck in teardown: destroying QP [0-9]+ of rxe0"
