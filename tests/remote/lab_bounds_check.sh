#!/bin/bash
# tests/remote/lab_bounds_check.sh: tests/lab/remote_bounds_check.sh's judgement, fast, on made-up node
# outputs (no lab): every scenario in time passes; a process reaped past its budget passes
# only when its last word came in time and, 5 s past the budget, its threads were held in
# the kernel (state D) and none ran the tool's own code, and then for 60 s more at most;
# a last word past the budget, or the wrong words, fail.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

CHECK=$abs_top_srcdir/tests/lab/remote_bounds_check.sh

# outputs DIR NODE: every scenario of NODE in time, with words the check accepts.
outputs() {
	local s
	mkdir -p "$1"
	echo "source 43 sink 103" >"$1/budget"
	for s in frozen-sink frozen-source link-down teardown; do
		echo 1 >"$1/$s.rc"
		echo 10.0 >"$1/$s.secs"
		echo 9.9 >"$1/$s.said"
	done
	if [ "$2" = a ]; then
		echo "nvme_write_bw_remote: the sink's window ran 27.0 s: this process was held up" >"$1/frozen-sink.err"
		echo "nvme_write_bw_remote: 10.77.0.2: the source went silent" >"$1/frozen-source.err"
		echo "nvme_write_bw_remote: 10.77.0.2: the source went silent" >"$1/link-down.err"
	else
		echo "nvme_write_bw_remote: 10.77.0.1: no verdict from the sink: timed out" >"$1/frozen-sink.err"
		echo "nvme_write_bw_remote: 10.77.0.1: the sink went away during the window" >"$1/frozen-source.err"
		printf '%s\n' "nvme_write_bw_remote: 10.77.0.1: the sink went away during the window" \
			"nvme_write_bw_remote: stuck in teardown: destroying QP 7 of rxe0 (12.0 s after the start; the step's own bound was 8 s)" \
			>"$1/link-down.err"
	fi
	echo "nvme_write_bw_remote: stuck in teardown: destroying QP 23 of rxe0 (18.1 s)" >"$1/teardown.err"
}

# judge NAME: the check on $TMPD/NAME/{a,b}; its exit status and output in OUT.
judge() {
	OUT=$(cd "$TMPD" && A=$TMPD/$1/a B=$TMPD/$1/b PY=$PYTHON3 test_name=remote_pair/bounds bash -c '
		fail() { echo "FAIL: $test_name: $*"; exit 1; }
		note() { echo "# $*"; }
		. "$1"' _ "$CHECK" 2>&1)
	RC=$?
}

# case NAME: fresh outputs for NAME, node b's link-down to be changed by the caller.
case_() {
	outputs "$TMPD/$1/a" a
	outputs "$TMPD/$1/b" b
	L=$TMPD/$1/b/link-down
}

case_ intime
judge intime
check_eq "in time: passes" 0 "$RC"
check_match "in time: each scenario noted" "# link-down, node b: exit 1 after 10.0 s, its last word at 9.9 s \(budget 43 s\)" "$OUT"

# CI's case: the source reaped at 58.5 s, its last word in time, a thread held in the driver.
case_ held
echo 58.5 >"$L.secs"
printf 'Z \nD rxe_cleanup_task\n' >"$L.late"
judge held
check_eq "held in the kernel: passes" 0 "$RC"
check_match "held in the kernel: its threads noted" \
	"# link-down, node b: still there at 43 s \+ 5, its threads \(state, kernel function\): Z, D rxe_cleanup_task" "$OUT"

case_ running
echo 58.5 >"$L.secs"
printf 'S futex_wait_queue\nD rxe_cleanup_task\n' >"$L.late"
judge running
check_eq "a thread in its own code past the budget: fails" 1 "$RC"
check_match "... saying so" "link-down: node b took 58.5 s, over its budget 43 s \+ 5, its threads not held in the kernel" "$OUT"

case_ runs
echo 58.5 >"$L.secs"
printf 'R \nD rxe_cleanup_task\n' >"$L.late"
judge runs
check_eq "a thread running past the budget: fails" 1 "$RC"

case_ zombie
echo 58.5 >"$L.secs"
printf 'Z \n' >"$L.late"
judge zombie
check_eq "only its leader's zombie, no thread held: fails" 1 "$RC"
check_match "... saying so" "its threads not held in the kernel: Z$" "$OUT"

case_ gone
echo 58.5 >"$L.secs"
judge gone
check_eq "late with no snapshot of its threads: fails" 1 "$RC"
check_match "... saying so" "its threads not held in the kernel: gone" "$OUT"

case_ toolong
echo 120.0 >"$L.secs"
printf 'Z \nD rxe_cleanup_task\n' >"$L.late"
judge toolong
check_eq "held past another 60 s: fails" 1 "$RC"
check_match "... saying so" "took 120.0 s, over its budget 43 s \+ 5 \+ 60 for the kernel's hold" "$OUT"

case_ latesaid
echo 50.0 >"$L.said"
judge latesaid
check_eq "its last word past the budget: fails" 1 "$RC"
check_match "... saying so" "link-down: node b said its last word at 50.0 s, over its budget 43 s \+ 5" "$OUT"

case_ nosaid
: >"$L.said"
judge nosaid
check_eq "no last word at all: fails" 1 "$RC"
check_match "... saying so" "link-down: node b said its last word at \? s" "$OUT"

case_ words
echo "nvme_write_bw_remote: all good" >"$L.err"
judge words
check_eq "the wrong last words: fail" 1 "$RC"
check_match "... saying so" "link-down: node b did not end saying" "$OUT"

case_ nosecs
: >"$L.secs"
judge nosecs
check_eq "no time of its end: fails" 1 "$RC"
check_match "... saying so" "link-down: node b: no time of its end recorded" "$OUT"

case_ rc
echo 0 >"$TMPD/rc/a/teardown.rc"
judge rc
check_eq "exit 0 where 1 is due: fails" 1 "$RC"
check_match "... saying so" "teardown: node a exit 0, not 1" "$OUT"
finish
