#!/bin/bash
# fake_lies.sh: a source the sink admitted that lies in well-formed messages, against the
# real sink over the fake fabric (no RDMA device). tests/remote/hostile_remote is the
# tool's own files with tests/remote/hostile.c wrapped around the source's encoders
# ($NBW_HOSTILE says what it says) and, where configure found them, the sanitizers.
# - the verdict: CANARY or VERIFY entries of length 0 (the digest of nothing) or of a part
#   of the chunk, an empty VERIFY table, one entry where the RESULT says many chunks: each
#   a verification FAIL with exit 1, never a PASS over what was not compared;
# - the heartbeats: 2^63 ns since START does not overflow the sink's arithmetic (the
#   sanitized sink would stop: exit 24); a byte count that goes backwards gives no live
#   figure, not 9e10 GB/s;
# - shares by bytes: with --sources 2, a source of 21 workers, within its worker share
#   (512) but above its half of a DRAM that holds 21 workers' slices, is refused, so that
#   the next two sources are admitted.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

FAKE=$abs_top_builddir/tests/remote/hostile_remote
[ -x "$FAKE" ] || skip "$FAKE not built"
export ASAN_OPTIONS=detect_leaks=1:exitcode=23:abort_on_error=0
export LSAN_OPTIONS=exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24

# lie NAME MODE "SINK ARGS" "SOURCE ARGS": the real sink, a source with NBW_HOSTILE=MODE.
lie() {
	# shellcheck disable=SC2086
	sink "$1-sink" $RUN --no-local --dram 4M --json $3
	# shellcheck disable=SC2086
	NBW_HOSTILE=$2 src "$1-src" $RUN --source mem $4
	sink_status
}

# verdict NAME: the sink's exit, its verify and its detail into V_RC, V, V_DETAIL.
verdict() {
	jv "$1-sink" 'd["verify"]' 'd["verify_detail"]'
	V_RC=$SINK_RC V=${J[0]} V_DETAIL=${J[1]}
}

# 1. The canary of each worker with --corrupt-canary, said to be of length 0: the digest
# of nothing is 0 and matched anything (verify=pass, exit 0).
lie len0 len0 "" "-q 2 --corrupt-canary"
verdict len0
check_eq "len-0 canaries over corrupted data: exit 1, fail" "1 fail" "$V_RC $V"
check_match "len-0 canaries: said" "2 of 2 canary chunks differ, first: worker 0; 2 not a whole chunk" \
	"$V_DETAIL"

# A memory source's chunks are whole: entries of 4096-byte parts check a 16th of each
# (and --corrupt-canary's byte, in the middle of each canary, is not among them).
lie short short "--verify full" "-q 2 --verify full --corrupt-canary"
verdict short
check_eq "part-chunk entries: exit 1, fail" "1 fail" "$V_RC $V"
check_match "part-chunk entries: said" "not a whole chunk" "$V_DETAIL"

# An empty VERIFY table after a RESULT of many chunks: not "0 slice slots match".
lie empty verify-empty "--verify full" "-q 2 --verify full"
verdict empty
check_eq "empty VERIFY: exit 1, fail" "1 fail" "$V_RC $V"
check_match "empty VERIFY: said" "the slot table covers 0 slots, its RESULT says at least [0-9]+ were written" \
	"$V_DETAIL"

# One entry where the RESULT's bytes fill every ring slot (a 1 s window of 64 KiB chunks).
lie one verify-one "--verify full" "-q 2 --verify full"
verdict one
check_eq "one-entry VERIFY: exit 1, fail" "1 fail" "$V_RC $V"
check_match "one-entry VERIFY: said" "the slot table covers 1 slots, its RESULT says at least [0-9]+ were written" \
	"$V_DETAIL"

# 2. Heartbeats 2^63 ns after START: the run goes on (the sanitized sink stopped with a
# signed overflow in its delay arithmetic: exit 24).
lie huge elapsed-huge "" ""
check_eq "elapsed 2^63: sink and source exit 0" "0 0" "$SINK_RC $SRC_RC"
check_eq "elapsed 2^63: no undefined behaviour" 0 "$(grep -c 'runtime error' "$TMPD/huge-sink.err")"

# Each heartbeat's byte count lower than the last: the live lines say no figure ("-"),
# never an unsigned difference's (about 9e10 GB/s); the RESULT's figure still counts.
lie shrink beats-shrink "--interval 0.2 -D 2" "-D 2"
"$PYTHON3" - "$TMPD/shrink-sink.err" >"$TMPD/shrink-lines" <<'EOF'
import re, sys
lines = [l for l in open(sys.argv[1]) if l.startswith("[")]
rates = [float(m.group(1)) for l in lines for m in [re.search(r"rdma (\S+)", l)]
         if m and m.group(1) != "-"]
print(len(lines) >= 3, max(rates, default=0) < 1000)
EOF
check_eq "shrinking heartbeats: exits" "0 0" "$SINK_RC $SRC_RC"
check_eq "shrinking heartbeats: >= 3 live lines, none above 1000 GB/s" "True True" \
	"$(cat "$TMPD/shrink-lines")"

# 3. --sources 2 and a DRAM of 21 workers' slices (4 MiB / (3 slots x 64 KiB)): A's 21
# workers are within its worker share (1024 / 2) but over its half of the DRAM, so it is
# refused; B (1 worker) and C (9) are both admitted and verified. Without the DRAM share
# A took every slice and B was refused for the DRAM.
# shellcheck disable=SC2086
sink share-sink $RUN --sources 2 --no-local --dram 4M --json
# shellcheck disable=SC2086
src share-a $RUN --source mem -q 21 --json
a_rc=$SRC_RC
# shellcheck disable=SC2086
src share-b $RUN --source mem -q 1 --json &
b=$!
for _ in $(seq 200); do
	grep -q "source 1 of 2" "$TMPD/share-sink.err" && break
	sleep 0.05
done
# shellcheck disable=SC2086
SRC_FAKE_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100" \
	src share-c $RUN --source mem -q 9 --json
c_rc=$SRC_RC
b_rc=0
wait $b || b_rc=$?
sink_status
check_eq "DRAM share: exits (sink, A, B, C)" "0 1 0 0" "$SINK_RC $a_rc $b_rc $c_rc"
check_match "DRAM share: A is told why" "21 workers, a source may have at most 10 .*--dram" \
	"$(cat "$TMPD/share-a.err")"
jv share-sink 'd["sources_admitted"]' 'sorted((s["workers"], s["verify"]) for s in d["sources"] if s.get("ok"))'
check_eq "DRAM share: B and C admitted and verified" "2 [(1, 'pass'), (9, 'pass')]" "${J[0]} ${J[1]}"
finish
