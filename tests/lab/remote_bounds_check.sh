# Part "bounds" of remote_pair.sh, the run's budget: a peer frozen (SIGSTOP) in the
# window, the sink's link taken down in the window, and a teardown step that
# hangs (NBW_TEST_STALL_PHASE): each side exits 1 with a line saying why, said within
# its budget + 5 s, and is gone by then unless the kernel holds a thread (a driver call
# that does not return while the link is down; seen once in CI, 58.5 s for a 43 s budget);
# a hung teardown is named by the watchdog ("stuck in teardown: destroying QP N of rxe0")
# and ends within the teardown's own bound.
# Sourced by remote_pair.sh in a subshell: A and B are nodes a's and b's outputs of
# this part (remote_bounds_guest.sh on both); fail ends the part.
# shellcheck shell=bash
read -r _ src_budget _ sink_budget <"$A/budget"

# within SECS BUDGET: SECS at most BUDGET + 5.
within() {
	awk -v s="$1" -v b="$2" 'BEGIN { exit !(s + 0 <= b + 5) }'
}

# check NODE SCENARIO BUDGET PATTERN: exit 1, its last word said within BUDGET + 5 s and
# matching PATTERN, the process gone within BUDGET + 5 s too, or, when a thread was held
# inside the kernel then (state D in NAME.late: a driver call that does not return)
# and none in the tool's own code, within another 60 s.
check() {
	local O=$A s=$2 rc secs said last held
	[ "$1" = b ] && O=$B
	rc=$(cat "$O/$s.rc") secs=$(cat "$O/$s.secs") said=$(cat "$O/$s.said")
	last=$(grep "^nvme_write_bw_remote: " "$O/$s.err" | tail -n 1)
	note "$s, node $1: exit $rc after $secs s, its last word at $said s (budget $3 s): $last"
	[ "$rc" = 1 ] || fail "$s: node $1 exit $rc, not 1: $(tail -3 "$O/$s.err")"
	[ -n "$secs" ] || fail "$s: node $1: no time of its end recorded"
	[ -n "$said" ] && within "$said" "$3" ||
		fail "$s: node $1 said its last word at ${said:-?} s, over its budget $3 s + 5: $last"
	grep -Eq "^nvme_write_bw_remote: .*($4)" <<<"$last" ||
		fail "$s: node $1 did not end saying /$4/: $last"
	within "$secs" "$3" && return 0
	held=$(sed 's/ *$//' "$O/$s.late" 2>/dev/null | paste -sd, - | sed 's/,/, /g')
	note "$s, node $1: still there at $3 s + 5, its threads (state, kernel function): $held"
	grep -q '^D ' "$O/$s.late" 2>/dev/null && ! grep -q '^[RS] ' "$O/$s.late" ||
		fail "$s: node $1 took $secs s, over its budget $3 s + 5, its threads not held in the kernel: ${held:-gone}"
	within "$secs" $(($3 + 60)) ||
		fail "$s: node $1 took $secs s, over its budget $3 s + 5 + 60 for the kernel's hold ($held)"
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
