#!/bin/bash
# fake_hostile.sh: a source that breaks the protocol on purpose against the real sink, over
# the fake fabric (no RDMA device). tests/remote/hostile_remote is the tool's own files with
# tests/remote/hostile.c wrapped around the source's encoders ($NBW_HOSTILE says what it
# breaks) and, where configure found them, the sanitizers in both processes: a payload
# the sink does not free makes LeakSanitizer fail its exit. What a hostile source tries:
# - an empty QPS: a matching HELLO, then a QPS of no workers: one line, exit 1, no crash.
# - a worker count that wraps: with --sources 2, after a source of 2 workers, a HELLO
#   claiming 2^32 - 1 (a 32-bit sum would wrap to 1): dropped; the first source still PASSes alone.
# - a VERIFY flood: a VERIFY of 200000 slots the source did write (the table repeated) is
#   refused at once, without hashing, for workers x ring slots; a table naming one
#   (worker, slot) twice is refused too; the run ends well within --timeout.
# - a DONE from the source (the sink's word, never a source's) where the canary
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
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24

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

# a matching HELLO followed by an empty QPS.
hostile qps empty-qps "" ""
check_eq "empty QPS: sink exit 1 (not a crash)" 1 "$SINK_RC"
check_eq "empty QPS: one line says it" "127.0.0.1: QPS for 0 workers, not 1" \
	"$(grep -v 'waiting for a source' "$TMPD/qps-sink.err" | sed 's/^[^:]*: //')"
check_match "empty QPS: the source is told" "QPS for 0 workers, not 1" "$(cat "$TMPD/qps-src.err")"
no_leak qps

# source A (2 workers) admitted first, then B's HELLO of 2^32 - 1 workers.
# shellcheck disable=SC2086
sink wrap-sink $RUN --sources 2 --no-local --dram 8M --json
# shellcheck disable=SC2086
src wrap-a $RUN --source mem -q 2 --json &
a=$!
for _ in $(seq 200); do
	grep -q "source 1 of 2" "$TMPD/wrap-sink.err" && break
	sleep 0.05
done
# shellcheck disable=SC2086
NBW_HOSTILE=hello-workers=4294967295 SRC_FAKE_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100" \
	src wrap-b $RUN --source mem -q 1 --json
b_rc=$SRC_RC
a_rc=0
wait $a || a_rc=$?
sink_status
check_eq "worker wrap: exits (sink, A, B)" "1 0 1" "$SINK_RC $a_rc $b_rc"
check_match "worker wrap: B's HELLO dropped" "connection dropped: malformed HELLO" "$(cat "$TMPD/wrap-sink.err")"
jv wrap-sink 'd["sources_admitted"]' '[(s["workers"], s["verify"]) for s in d["sources"] if s.get("ok")]'
check_eq "worker wrap: only A admitted, its 2 workers verified" "1 [(2, 'pass')]" "${J[0]} ${J[1]}"
no_leak wrap

# 200000 valid slots in one VERIFY (2 workers: their ring slots are far fewer);
# hashed, 13 GB at 64 KiB each. (Not a million: on a loaded machine, with a coverage
# build, 28 MB of table take more than --timeout to encode and send.)
hostile flood verify-flood=200000 "--verify full" "-q 2 --verify full"
check_eq "flood: sink exit 1" 1 "$SINK_RC"
jv flood-sink 'd["verify"]' 'd["verify_detail"]'
check_eq "flood: FAIL" fail "${J[0]}"
check_match "flood: refused for its size, not hashed" \
	"no slot table from the source: a table of 200000 entries for 2 workers x [0-9]+ slots" "${J[1]}"
check_match "flood: the whole run takes seconds (under 15), not the hashing's" "^([0-9]|1[0-4])$" "$SECS"
no_leak flood

# each (worker, slot) once.
hostile twice verify-twice "--verify full" "-q 2 --verify full"
check_eq "twice: sink exit 1" 1 "$SINK_RC"
jv twice-sink 'd["verify"]' 'd["verify_detail"]'
check_eq "twice: FAIL" fail "${J[0]}"
check_match "twice: the slot named twice" \
	"no slot table from the source: worker 0 slot [0-9]+ named twice" "${J[1]}"
no_leak twice

# a DONE where the canary should be.
hostile canary done-for-canary "" ""
check_eq "DONE for the canary: sink exit 1" 1 "$SINK_RC"
check_match "DONE for the canary: the sink says what came" \
	"waiting for the canary: expected CANARY, got DONE" "$(cat "$TMPD/canary-sink.err")"
no_leak canary

# RESULT ok=0, then a DONE where only an ERROR may come: its payload is not leaked.
hostile result done-after-result "" ""
check_eq "DONE after RESULT: sink exit 1" 1 "$SINK_RC"
jv result-sink 'd["error"]' 'd["ok"]'
check_eq "DONE after RESULT: the source did not complete" \
	"127.0.0.1: the source did not complete its window False" "${J[0]} ${J[1]}"
no_leak result

# a DONE among the heartbeats: refused at its header, before it is read.
hostile window done-in-window "" ""
check_eq "DONE in the window: sink exit 1" 1 "$SINK_RC"
jv window-sink 'd["error"]'
check_match "DONE in the window: out of turn" "protocol error during the window: a message out of turn" \
	"${J[0]}"
no_leak window

finish
