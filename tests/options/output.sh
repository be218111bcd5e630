#!/bin/bash
# tests/options/output.sh: perftest's --output=bandwidth over the fake fabric
# (tests/remote/fake_lib.sh): each side's stdout holds its total figure alone, the
# figure its report (on stderr) prints as the total, in perftest's unit: its MB/sec of 2^20
# bytes (the report's GB/s x 10^9 / 2^20), or with --report_gbits Gb/sec.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

pair bw "--no-local --dram 4M --output=bandwidth" "--source mem --output bandwidth"
check_eq "--output=bandwidth: exits" "0 0" "$SINK_RC $SRC_RC"
check_match "sink: stdout is one figure" '^[0-9]+\.[0-9]{2}$' "$(cat "$TMPD/bw-sink.out")"
check_eq "sink: one line" 1 "$(wc -l <"$TMPD/bw-sink.out")"
check_match "source: stdout is one figure" '^[0-9]+\.[0-9]{2}$' "$(cat "$TMPD/bw-src.out")"
check_match "sink: the report on stderr" "RDMA data verification: PASS" "$(cat "$TMPD/bw-sink.err")"
# The sink's total row ends with its GB/s (2 decimals): the same rate in MB/sec.
check_eq "sink: the figure is the report's total, in MB/sec of 2^20 bytes" ok \
	"$(awk -v mb="$(cat "$TMPD/bw-sink.out")" '$1 == "total" { v = $NF }
		END { d = mb - v * 1e9 / 1048576; print (d * d <= (0.005 * 1e9 / 1048576 + 0.005) ^ 2 && v > 0 ? "ok" : "GB/s " v " vs MB/sec " mb) }' \
		"$TMPD/bw-sink.err")"
check_match "sink: a figure that moved bytes" '^[0-9]*[1-9][0-9]*\.|^0\.[0-9]*[1-9]' "$(cat "$TMPD/bw-sink.out")"

pair gb "--no-local --dram 4M --output=bandwidth --report_gbits" "--source mem"
check_eq "--report_gbits: exits" "0 0" "$SINK_RC $SRC_RC"
check_eq "--report_gbits: the figure in Gb/s, as the report's total" \
	"$(awk '$1 == "total" { v = $NF } END { print v }' "$TMPD/gb-sink.err")" "$(cat "$TMPD/gb-sink.out")"
finish
