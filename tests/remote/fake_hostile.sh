#!/bin/bash
# fake_hostile.sh: a source that breaks the protocol on purpose against the real sink, over
# the fake fabric (no RDMA device). tests/remote/hostile_remote is the tool's own files with
# tests/remote/hostile.c wrapped around the source's encoders ($NBW_HOSTILE says what it
# breaks) and, where configure found them, the sanitizers in both processes: a payload
# the sink does not free makes LeakSanitizer fail its exit. Issue 22:
# - item 5: a VERIFY of a million slots the source did write (the table repeated) is
#   refused at once, without hashing, for workers x ring slots; a table naming one
#   (worker, slot) twice is refused too; the run ends well within --timeout.
# - item 13: a DONE from the source (the sink's word, never a source's) where the canary
#   should be, after a RESULT that says not ok, and during the window: the sink says
#   what came, exits 1, and frees the payload it read (no leak report at its exit).
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

FAKE=$abs_top_builddir/tests/remote/hostile_remote
[ -x "$FAKE" ] || skip "$FAKE not built"
# Built with AddressSanitizer (configure found it): leaks fail the process (exit 23) and
# are printed on its stderr. Without it the leak checks cannot be made (said, not passed).
ASAN=yes
grep -aq __asan_init "$FAKE" || ASAN=
export ASAN_OPTIONS=detect_leaks=1:exitcode=23:abort_on_error=0
export LSAN_OPTIONS=exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# hostile NAME MODE "SINK ARGS" "SOURCE ARGS": the real sink, a source with NBW_HOSTILE=MODE.
hostile() {
	local t0
	# shellcheck disable=SC2086
	sink "$1-sink" $RUN --no-local --dram 4M --json $3
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	NBW_HOSTILE=$2 src "$1-src" $RUN --source mem $4
	sink_status
	SECS=$((($(date +%s%N) - t0) / 1000000000))
	if grep -q LeakSanitizer "$TMPD/$1-sink.err"; then
		echo "# $1: the sink leaked:"
		sed 's/^/#   /' "$TMPD/$1-sink.err" | head -n 20
	fi
}

# no_leak NAME: the sink's exit was not LeakSanitizer's and its stderr has no report.
no_leak() {
	[ -n "$ASAN" ] || { echo "# $1: not built with AddressSanitizer: no leak check"; return; }
	check_eq "$1: no leak in the sink" 0 "$(grep -c 'LeakSanitizer' "$TMPD/$1-sink.err")"
}

# item 5: a million valid slots in one VERIFY (2 workers: their ring slots are far fewer).
hostile flood verify-flood=1000000 "--verify full" "-q 2 --verify full"
check_eq "item 5 flood: sink exit 1" 1 "$SINK_RC"
jv flood-sink 'd["verify"]' 'd["verify_detail"]'
check_eq "item 5 flood: FAIL" fail "${J[0]}"
check_match "item 5 flood: refused for its size, not hashed" \
	"no slot table from the source: a table of 1000000 entries for 2 workers x [0-9]+ slots" "${J[1]}"
check_match "item 5 flood: the run ends within --timeout (3 s) of the window" "^[0-9]$" "$SECS"
no_leak flood

# item 5: each (worker, slot) once.
hostile twice verify-twice "--verify full" "-q 2 --verify full"
check_eq "item 5 twice: sink exit 1" 1 "$SINK_RC"
jv twice-sink 'd["verify"]' 'd["verify_detail"]'
check_eq "item 5 twice: FAIL" fail "${J[0]}"
check_match "item 5 twice: the slot named twice" \
	"no slot table from the source: worker 0 slot [0-9]+ named twice" "${J[1]}"
no_leak twice

# item 13: a DONE where the canary should be.
hostile canary done-for-canary "" ""
check_eq "item 13 DONE for the canary: sink exit 1" 1 "$SINK_RC"
check_match "item 13 DONE for the canary: the sink says what came" \
	"waiting for the canary: expected CANARY, got DONE" "$(cat "$TMPD/canary-sink.err")"
no_leak canary

# item 13: RESULT ok=0, then a DONE where only an ERROR may come (the leak of issue 22).
hostile result done-after-result "" ""
check_eq "item 13 DONE after RESULT: sink exit 1" 1 "$SINK_RC"
jv result-sink 'd["error"]' 'd["ok"]'
check_eq "item 13 DONE after RESULT: the source did not complete" \
	"127.0.0.1: the source did not complete its window False" "${J[0]} ${J[1]}"
no_leak result

# item 13: a DONE among the heartbeats: refused at its header, before it is read.
hostile window done-in-window "" ""
check_eq "item 13 DONE in the window: sink exit 1" 1 "$SINK_RC"
jv window-sink 'd["error"]'
check_match "item 13 DONE in the window: out of turn" "protocol error during the window: a message out of turn" \
	"${J[0]}"
no_leak window

finish
