#!/bin/bash
# fake_sweep_qps.sh: --sweep-qps over the fake fabric: one run per QP count on both
# sides (the source's workers are the count each time), each run's report, then the
# curve and its verdict on both; lists that are no QP counts, and --sweep-qps with
# -a, --json or --output, are usage errors (exit 2). The verdict's words are proved
# on recorded curves in test_qpsweep.
# shellcheck disable=SC2086 # RUN and the ARGS strings: options, split into words
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

expect_exit 2 "invalid --sweep-qps '4,2': at most 16 counts, each larger than the one before" \
	"$FAKE" --sweep-qps 4,2 --source mem 127.0.1.1
expect_exit 2 "invalid --sweep-qps '1,x': QP counts 1 to [0-9]+, comma-separated" \
	"$FAKE" --sweep-qps 1,x --no-local
expect_exit 2 "--sweep-qps runs one role, one size, its report in text: drop --json" \
	"$FAKE" --sweep-qps 1,2 --json --source mem 127.0.1.1
expect_exit 2 "--sweep-qps runs one role, one size, its report in text: drop -a" \
	"$FAKE" --sweep-qps 1,2 -a --no-local
expect_exit 2 "--sweep-qps runs one role, one size, its report in text: drop --output" \
	"$FAKE" --sweep-qps 1,2 --output=bandwidth --source mem 127.0.1.1

pair sw "--no-local --dram 8M --sweep-qps 1,2,4 --min-overlap 10 --max-cv 100" \
	"--source mem --sweep-qps 1,2,4"
check_eq "--sweep-qps 1,2,4: both sides" "0 0" "$SINK_RC $SRC_RC"
for side in sink src; do
	out=$(cat "$TMPD/sw-$side.out")
	check_eq "$side: three runs, a report each" 3 "$(grep -c 'NVMe -> RDMA WRITE -> remote DRAM bandwidth' <<<"$out")"
	check_eq "$side: the curve's rows are the counts" "1 2 4" \
		"$(sed -n '/QP sweep: the RDMA rate/,/verdict/p' <<<"$out" | awk '$1 ~ /^[0-9]+$/ {print $1}' | tr '\n' ' ' | sed 's/ $//')"
	check_match "$side: the verdict" " QP sweep verdict: (stops growing at [124] QPs?|still growing at 4 QPs)" "$out"
done
check_eq "without a PCIe tree: no PCIe rate in the curve's head" 0 \
	"$(grep -c "QP sweep: the RDMA rate.*PCIe" "$TMPD/sw-src.out")"

# The NIC's PCIe link as the run watched it under load (--sysfs-root: fake0 and fake1 are
# one function at 8 GT/s x16, counted once): its usable rate at MPS 256, 15.75 x 256 / 280
# GB/s = 115 Gb/s, in the curve's head, and the verdict weighs it.
fx=$TMPD/fx
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$fx" || fail "mklinks.py exited $?"
pair pc "--no-local --dram 8M --sweep-qps 1,2 --min-overlap 10 --max-cv 100" \
	"--source mem --sweep-qps 1,2 --sysfs-root $fx"
check_eq "--sweep-qps with the NIC's link: both sides" "0 0" "$SINK_RC $SRC_RC"
check_match "the source's curve names the NIC's usable PCIe rate" \
	"QP sweep: the RDMA rate against the QPs \(line rate [^;]*; the NICs' PCIe usable 115 Gb/s\)" \
	"$(cat "$TMPD/pc-src.out")"
check_match "the source's verdict weighs the PCIe link" \
	"QP sweep verdict: (still growing|.*PCIe link)" "$(grep 'QP sweep verdict' "$TMPD/pc-src.out")"
check_match "the source's runs had 1, 2 and 4 workers" ", 1 workers \(QPs\).*, 2 workers \(QPs\).*, 4 workers \(QPs\)" \
	"$(grep -i 'workers' "$TMPD/sw-src.out" | tr '\n' ' ')"
finish
