#!/bin/bash
# fake_fanin.sh: a sink with --sources 2 over the fake fabric (no RDMA device): each
# source's slices, bytes and verdict, the DRAM split by workers, the sum; a source over
# the per-source worker limit (--max-workers-per-source, or an even share) is refused
# while the other runs; a slow source delays the others' START by at most half of
# --timeout, said on stderr with the admission deadline.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
SRC3_PORTS="fake0:1:eth:127.0.1.3/24:100,fake1:1:eth:127.0.2.3/24:100"

# fanin NAME "SINK ARGS" "SOURCE A ARGS" "SOURCE B ARGS" [B's fault]
fanin() {
	# shellcheck disable=SC2086
	sink "$1" $RUN --sources 2 --no-local --dram 8M --json $2
	# shellcheck disable=SC2086
	src "$1-a" $RUN --source mem --json $3 &
	# shellcheck disable=SC2086
	NBW_FAKE_FAULT=${5:-} SRC_FAKE_PORTS=$SRC3_PORTS src "$1-b" $RUN --source mem --json $4
	B_RC=$SRC_RC
	wait $! || true
	sink_status
}

fanin two "--max-cv 100 --min-overlap 10" "-q 2" "-q 1"
check_eq "two: sink exit" 0 "$SINK_RC"
check_eq "two: source B exit" 0 "$B_RC"
jv two-a 'd["ok"]' 'd["rdma"]["bytes"]'
a_ok=${J[0]} a_bytes=${J[1]}
jv two-b 'd["rdma"]["bytes"]'
b_bytes=${J[0]}
check_eq "two: source A ok" True "$a_ok"
jv two 'd["sources_expected"], d["sources_admitted"]' \
	'sorted((s["workers"], s["rdma"]["bytes"], s["verify"], s["ok"]) for s in d["sources"])' \
	'sum(s["rdma"]["bytes"] for s in d["sources"]) == d["rdma"]["bytes"] == d["total"]["bytes"]' \
	'[s["dram_bytes"] == s["workers"] * s["slice_bytes"] for s in d["sources"]]' \
	'sum(s["dram_bytes"] for s in d["sources"]) + d["dram_local_bytes"] <= 8 << 20' \
	'len(d["streams"]), d["ok"]' \
	'd["total_valid"] == all(s["overlap_pct"] >= 10 and 0 <= (s["cv_pct"] if s["cv_pct"] is not None else 1e9) <= 100 for s in d["sources"])' \
	'[sum(r["bytes"] for r in s["rails"]) == s["rdma"]["bytes"] for s in d["sources"]]'
check_eq "two: both admitted" "(2, 2)" "${J[0]}"
check_eq "two: each source's workers, bytes (as it sent them) and verdict" \
	"[(1, $b_bytes, 'pass', True), (2, $a_bytes, 'pass', True)]" "${J[1]}"
check_eq "two: the sum of the sources is the RDMA total" True "${J[2]}"
check_eq "two: each source's DRAM = its workers x its slice" "[True, True]" "${J[3]}"
check_eq "two: the split fits the DRAM" True "${J[4]}"
check_eq "two: a stream per source, ok" "(2, True)" "${J[5]}"
check_eq "two: the sum is valid exactly when every stream keeps the rules" True "${J[6]}"
check_eq "two: each source's rails add up to its bytes" "[True, True]" "${J[7]}"
check_match "two: the admission deadline said" \
	"the other sources must come within 1\.[45] s \(half of --timeout, or --wait\), at most 512 workers each" \
	"$(cat "$TMPD/two.err")"

# The share: one worker per source; B asks for two and is refused, A runs alone.
fanin share "--max-workers-per-source 1" "-q 1" "-q 2"
check_eq "share: B refused (exit 1)" 1 "$B_RC"
check_match "share: B is told the limit" "2 workers.*(limit|at most|share|per source)" "$(cat "$TMPD/share-b.err")"
check_match "share: the sink says why" "refused: .*2 workers" "$(cat "$TMPD/share.err")"
jv share 'd["sources_admitted"]' 'sorted(s.get("workers") for s in d["sources"] if s.get("ok"))' 'd["ok"]'
check_eq "share: one source admitted" 1 "${J[0]}"
check_eq "share: the one that kept to the share ran" "[1]" "${J[1]}"
check_eq "share: not every source came: not ok" False "${J[2]}"
check_eq "share: sink exit 1" 1 "$SINK_RC"

# B's QPs take 2 s to open; the others' START waits at most --timeout / 2 = 1.5 s.
fanin slow "--min-overlap 99" "-q 1" "-q 1" slow=2000
check_eq "slow: both finish (exit 0 for B)" 0 "$B_RC"
check_match "slow: the sink says the windows may not overlap" \
	"not every source is ready: the windows may not overlap" "$(cat "$TMPD/slow.err")"
jv slow 'd["sources_admitted"]' 'd["total_valid"]' 'd["total_invalid_reason"]' \
	'sorted(round(s["start_offset_s"]) for s in d["sources"])' '[s["verify"] for s in d["sources"]]'
check_eq "slow: both admitted" 2 "${J[0]}"
check_eq "slow: the sum is not valid" False "${J[1]}"
# Not because a RESULT came "too early": it is timed from START, not from the sink's
# window (which, on a loaded machine, can open a little after the source's).
check_match "slow: because of a window's overlap" "overlapped the sink's" "${J[2]}"
check_eq "slow: both verified" "['pass', 'pass']" "${J[4]}"
finish
