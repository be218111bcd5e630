#!/bin/bash
# tests/read_bw/rand.sh: nvme_read_bw --pattern rand on a regular file, with both engines:
# IOPS and bytes agree (bytes = reads x chunk, GB/s = IOPS x chunk), --latency's
# percentiles are ordered and count every read of the window, the reads cover the whole
# region (a file half data, half holes reads about half zero blocks; a sequential run of
# the same length reads none), --sweep-depth prints a verdict, bad combinations are
# usage errors, and the file is unchanged afterwards.
. "$(dirname "$0")/../lib.sh"

f="$TMPD/pattern.img"
make_pattern "$f" $((8 * 1024 * 1024)) 5
before=$(sha256sum <"$f")
engines="psync io_uring"
grep -q "io_uring (not built)" <("$NVME_READ_BW" --help) && engines=psync

for e in $engines; do
	out="$TMPD/$e.json"
	"$NVME_READ_BW" --disks "$f" --engine "$e" --pattern rand --seed 7 -s 4K -t 2 --latency \
		--warmup 0.2 -D 1 --json >"$out" 2>"$TMPD/err" || fail "$e: exit $?: $(cat "$TMPD/err")"
	json_valid "$out" || fail "$e: invalid JSON"
	check_eq "$e: pattern and seed recorded" "rand 7" "$(json_get "$out" 'd["params"]["pattern"], d["params"]["seed"]' | tr -d "(),'")"
	check_eq "$e: reads counted" True "$(json_get "$out" 'd["total"]["ios"] > 100 and d["total"]["iops"] > 0')"
	check_eq "$e: bytes = reads x 4 KiB" True "$(json_get "$out" 'd["total"]["bytes"] == 4096 * d["total"]["ios"]')"
	check_eq "$e: IOPS x chunk = GB/s" True \
		"$(json_get "$out" 'abs(d["total"]["iops"] * 4096 / 1e9 - d["total"]["gb_per_s"]) <= 1e-3 * d["total"]["gb_per_s"]')"
	check_eq "$e: drive IOPS = total IOPS (one drive)" True \
		"$(json_get "$out" 'abs(d["drives"][0]["iops"] - d["total"]["iops"]) < 1e-6 * d["total"]["iops"]')"
	check_eq "$e: every read of the window timed" True \
		"$(json_get "$out" 'd["total"]["latency_us"]["count"] == d["total"]["ios"] == d["drives"][0]["latency_us"]["count"]')"
	check_eq "$e: percentiles ordered" True "$(json_get "$out" '[d["total"]["latency_us"][k] for k in ("min", "p50", "p90", "p99", "p99.9", "p99.99", "max")] == sorted(d["total"]["latency_us"][k] for k in ("min", "p50", "p90", "p99", "p99.9", "p99.99", "max")) and d["total"]["latency_us"]["min"] > 0')"
	check_eq "$e: mean between min and max" True \
		"$(json_get "$out" 'd["total"]["latency_us"]["min"] <= d["total"]["latency_us"]["mean"] <= d["total"]["latency_us"]["max"]')"
	check_eq "$e: CPU per read" True "$(json_get "$out" 'abs(d["total"]["cpu_us_per_io"] - d["total"]["cpu_s"] * 1e6 / d["total"]["ios"]) < 1e-4 * d["total"]["cpu_us_per_io"]')"
done

# Without --latency: IOPS, no latency object.
"$NVME_READ_BW" --disks "$f" --pattern rand -s 8K -t 1 --warmup 0 -D 0.3 --json >"$TMPD/nolat.json" || fail "no-latency run"
check_eq "no --latency: no percentiles" "False True" \
	"$(json_get "$TMPD/nolat.json" '"latency_us" in d["total"], d["total"]["bytes"] == 8192 * d["total"]["ios"]' | tr -d '(),')"

# Coverage: 4 MiB of data then 4 MiB of holes. Random reads of 1 thread find about half
# of their blocks zero; sequential 4 KiB reads for as long read the data part first.
h="$TMPD/half.img"
make_pattern "$h" $((4 * 1024 * 1024)) 6
truncate -s 8M "$h"
"$NVME_READ_BW" --disks "$h" --pattern rand -s 4K -t 1 --warmup 0 -D 0.5 --json >"$TMPD/half.json" 2>/dev/null || fail "half run"
check_eq "random reads reach the whole file" True "$(json_get "$TMPD/half.json" '0.35 < d["drives"][0]["zero_fraction"] < 0.65 and d["total"]["ios"] > 200')"
"$NVME_READ_BW" --disks "$h" -s 4K -t 1 --warmup 0 -D 0.05 --json >"$TMPD/seq.json" 2>/dev/null || fail "seq run"
check_eq "sequential reads start with the data" True "$(json_get "$TMPD/seq.json" 'd["drives"][0]["zero_fraction"] < 0.35 or d["total"]["bytes"] > 4 << 20')"

# Live lines carry IOPS.
"$NVME_READ_BW" --disks "$f" --pattern rand -s 4K -t 1 --warmup 0 -D 0.6 --interval 0.2 >"$TMPD/live.txt" 2>&1 || fail "live run"
check_match "live line IOPS" '^\[ *[0-9.]+s\]  pattern.img [0-9.]+  total [0-9.]+  GB/s  IOPS pattern.img [0-9]+ total [0-9]+$' "$(cat "$TMPD/live.txt")"
check_match "text IOPS column" ' drive .* GB/s +IOPS ' "$(cat "$TMPD/live.txt")"

if [ "$engines" != psync ]; then
	"$NVME_READ_BW" --disks "$f" --engine io_uring --pattern rand -s 4K -t 1 --warmup 0 -D 0.3 \
		--sweep-depth 1,4,16 --json >"$TMPD/depth.json" 2>/dev/null || fail "sweep-depth run"
	check_eq "sweep-depth points" "[1, 4, 16]" "$(json_get "$TMPD/depth.json" '[p["depth"] for p in d["drives"][0]["sweep"]]')"
	check_eq "sweep-depth IOPS and p99" True "$(json_get "$TMPD/depth.json" 'all(p["iops"] > 0 and p["p99_us"] > 0 for p in d["drives"][0]["sweep"])')"
	check_eq "sweep-depth verdict" True "$(json_get "$TMPD/depth.json" 'd["drives"][0]["verdict"]["kind"] in ("knee", "flat", "rising") and len(d["drives"][0]["verdict"]["text"]) > 20')"
	check_eq "sweep-depth mode recorded" "sweep-depth depth" "$(json_get "$TMPD/depth.json" 'd["params"]["mode"], d["swept"]' | tr -d "(),'")"
	"$NVME_READ_BW" --disks "$f" --engine io_uring -s 4K -t 1 --warmup 0 -D 0.2 --sweep-depth 2,8 >"$TMPD/depth.txt" 2>/dev/null || fail "sweep-depth text"
	check_match "sweep-depth text verdict" "   verdict: IOPS (stop rising|flat|still rising)" "$(cat "$TMPD/depth.txt")"
fi

expect_exit 2 "pattern" "$NVME_READ_BW" --disks "$f" --pattern zigzag
expect_exit 2 "seed" "$NVME_READ_BW" --disks "$f" --seed -3
expect_exit 2 "checksum.*--pattern rand" "$NVME_READ_BW" --disks "$f" --pattern rand --checksum
expect_exit 2 "sweep-depth needs --engine io_uring" "$NVME_READ_BW" --disks "$f" --sweep-depth
expect_exit 2 "--depth and --sweep-depth" "$NVME_READ_BW" --disks "$f" --engine io_uring --depth 4 --sweep-depth 1,2
expect_exit 2 "values must increase" "$NVME_READ_BW" --disks "$f" --engine io_uring --sweep-depth 4,2

check_eq "file unchanged" "$before" "$(sha256sum <"$f")"
finish
