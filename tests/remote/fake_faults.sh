#!/bin/bash
# fake_faults.sh: what goes wrong in the data path, over the fake fabric (no RDMA device;
# faults injected by $NBW_FAKE_FAULT, tests/remote/fake_fabric.c): a source that dies in
# the window, WRITEs that never complete (the canary's, and in the window: the drain),
# a WRITE completing in error, a damaged canary, an RDMA connection lost, a source that
# opens its window late. Each run ends within --timeout with its reason on both sides,
# the documented exit status and the JSON still complete.
# shellcheck disable=SC2086 # RUN and the ARGS strings: options, split into words
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# fault NAME FAULT "SINK ARGS" "SOURCE ARGS": FAULT in the source's environment.
fault() {
	# shellcheck disable=SC2086
	sink "$1-sink" $RUN --no-local --dram 4M --json $3
	# shellcheck disable=SC2086
	NBW_FAKE_FAULT=$2 src "$1-src" $RUN --source mem --json $4
	sink_status
}

# A source killed at its 40th WRITE, inside the window.
fault die die@40 "" ""
check_eq "die: sink exit 1" 1 "$SINK_RC"
check_eq "die: source killed" 137 "$SRC_RC"
jv die-sink 'd["ok"]' 'd["error"]' 'd["verify"]'
check_eq "die: not ok" False "${J[0]}"
check_match "die: the sink says the source went away" \
	"127\.0\.0\.1: the source went away during the (warm-up|window) \((control connection closed|RDMA connection lost)\)" "${J[1]}"
check_match "die: one line on stderr says it" "the source went away" "$(tail -n 1 "$TMPD/die-sink.err")"

# The canary's WRITE never completes: the source gives up after --timeout.
fault canary hang@0 "" ""
check_eq "canary hang: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "canary hang: the source says which WRITE" "canary WRITE: no completion of the canary WRITE within 3000 ms" \
	"$(cat "$TMPD/canary-src.err")"
jv canary-sink 'd["error"]' 'd["ok"]'
check_match "canary hang: the sink is told" "source failed: .*canary WRITE" "${J[0]}"

# WRITEs of the window never complete: the drain gives up, RESULT says not ok, and the
# sink fails with no RDMA figure: a source that says it failed gives none, not its last
# heartbeat's either (sink/judge.h).
fault drain hang@30 "" ""
check_eq "drain: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "drain: the source says what is in flight" "RDMA WRITEs still in flight after 3000 ms" "$(cat "$TMPD/drain-src.err")"
jv drain-sink 'd["error"]' 'd["rdma_reported_by"]' 'd["rdma"]["bytes"]'
check_match "drain: the sink's reason is the source's" "source failed: .*still in flight" "${J[0]}"
check_eq "drain: no RDMA figure from a failed source" "None 0" "${J[1]} ${J[2]}"

# A WRITE completes in error (the fake NIC: a remote access error).
fault rerr error@25 "" ""
check_eq "error: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "error: the completion's status" "RDMA WRITE completion: remote access error \(status 10\)" "$(cat "$TMPD/rerr-src.err")"
jv rerr-src 'd["ok"]' 'd["error"] is not None'
check_eq "error: the source's JSON says it" "False True" "${J[0]} ${J[1]}"

# The canary damaged after hashing: verification FAIL, exit 1 on both sides.
fault corrupt "" "" "--corrupt-canary -q 2"
check_eq "corrupt: exits" "1 1" "$SINK_RC $SRC_RC"
jv corrupt-sink 'd["verify"]' 'd["verify_detail"]' 'd["error"]'
check_eq "corrupt: FAIL" fail "${J[0]}"
check_eq "corrupt: which" "2 of 2 canary chunks differ, first: worker 0" "${J[1]}"
check_eq "corrupt: the run itself did not fail" None "${J[2]}"
jv corrupt-src 'd["verify"], d["ok"]'
check_eq "corrupt: the source hears the verdict" "('fail', False)" "${J[0]}"

# The sink's RDMA connections say they went away (its own fault).
sink lost-sink $RUN --no-local --dram 4M --json
NBW_FAKE_FAULT='' src lost-src $RUN --source mem
check_eq "lost: source exit" 0 "$SRC_RC"
sink_status
check_eq "lost: (the fault is the sink's: it is not set here) sink exit" 0 "$SINK_RC"
NBW_FAKE_FAULT=lost sink lost2-sink $RUN --no-local --dram 4M --json
src lost2-src $RUN --source mem
sink_status
check_eq "lost: sink exit 1" 1 "$SINK_RC"
jv lost2-sink 'd["error"]'
check_match "lost: RDMA connection lost" "the source went away during the (warm-up|window) \(RDMA connection lost\)" "${J[0]}"

# A source that opens its window 0.6 s late: the overlap is under --min-overlap.
fault late "" "" "--late-start 0.6"
check_eq "late: exits" "0 0" "$SINK_RC $SRC_RC"
jv late-sink 'd["total_valid"]' 'd["total_invalid_reason"]' 'd["streams"][0]["overlap_pct"] < 70'
check_eq "late: sum not valid" False "${J[0]}"
check_match "late: the overlap is the reason" "its window overlapped the sink's [0-9.]+% \(< 99%" "${J[1]}"
check_eq "late: overlap under 70%" True "${J[2]}"

# SIGINT: a sink waiting for a source, and a source inside its window (its live lines
# say it is there), each stop with their reason, exit 1.
sink int-sink --no-local --dram 4M --wait 30 --json
kill -INT "$SINK_PID"
sink_status
check_eq "int: waiting sink exit" 1 "$SINK_RC"
check_match "int: waiting sink says so" "interrupted while waiting for a source" "$(cat "$TMPD/int-sink.err")"
sink int2-sink $RUN -D 5 --no-local --dram 4M --json
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" $RUN -D 5 --interval 0.2 --source mem 127.0.1.1 \
	>"$TMPD/int2-src.out" 2>"$TMPD/int2-src.err" &
spid=$!
until_live "$TMPD/int2-src.out"
kill -INT "$spid"
SRC_RC=0
wait "$spid" || SRC_RC=$?
sink_status
check_eq "int: source in its window, sink: exits" "1 1" "$SRC_RC $SINK_RC"
check_match "int: the source says where it was cut" "interrupted: the window was cut to [0-9.]+ s" "$(cat "$TMPD/int2-src.err")"
jv int2-sink 'd["error"]'
check_match "int: the sink is told" "source failed: .*interrupted|went away|did not complete" "${J[0]}"
# Ctrl-C cuts the sink's window: exit 1 and its figures marked interrupted (JSON and
# text), not taken for a whole run's.
sink int3-sink $RUN -D 5 --no-local --dram 4M --interval 0.2 --json
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" $RUN -D 5 --source mem 127.0.1.1 \
	>"$TMPD/int3-src.out" 2>"$TMPD/int3-src.err" &
spid=$!
until_live "$TMPD/int3-sink.err"
kill -INT "$SINK_PID"
sink_status
wait "$spid"
check_eq "int3: sink cut in its window: exit" 1 "$SINK_RC"
jv int3-sink 'd["interrupted"]' 'd["ok"]'
check_eq "int3: marked interrupted, not ok" "True False" "${J[0]} ${J[1]}"
sink int4-sink $RUN -D 5 --no-local --dram 4M --interval 0.2
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" $RUN -D 5 --source mem 127.0.1.1 \
	>"$TMPD/int4-src.out" 2>"$TMPD/int4-src.err" &
spid=$!
until_live "$TMPD/int4-sink.out"
kill -INT "$SINK_PID"
sink_status
wait "$spid"
check_eq "int4: text, exit" 1 "$SINK_RC"
check_match "int4: text says interrupted" "^ \(interrupted: SIGINT/SIGTERM cut the run short; the figures cover only what ran\)$" \
	"$(cat "$TMPD/int4-sink.out")"
check_match "int2: the source's text says interrupted too" "^ \(interrupted: SIGINT/SIGTERM cut the run short" \
	"$(cat "$TMPD/int2-src.out")"
# The sink stopped (SIGSTOP) inside its window for 5 s, longer than --timeout, then
# continued: its window ran far past -D, so it takes no figure from it (exit 1, the
# reason said), whatever the source's RESULT that waited in its socket. Without the
# rule it took that RESULT and exited 0.
sink frozen-sink $RUN --no-local --dram 4M --interval 0.2
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$PORT" $RUN --source mem 127.0.1.1 \
	>"$TMPD/frozen-src.out" 2>"$TMPD/frozen-src.err" &
spid=$!
until_live "$TMPD/frozen-sink.out"
# (SINK_PID is timeout(1)'s: the sink is its child.)
frozen=$(pgrep -P "$SINK_PID")
kill -STOP "$frozen"
sleep 5
kill -CONT "$frozen"
SRC_RC=0
wait "$spid" || SRC_RC=$?
sink_status
check_eq "frozen sink: exits" "1 1" "$SINK_RC $SRC_RC"
check_match "frozen sink: it says it was held up" \
	"the sink's window ran [0-9.]+ s where -D is 1 s, more than --timeout \(3 s\) over: this process was held up" \
	"$(cat "$TMPD/frozen-sink.err")"
finish
