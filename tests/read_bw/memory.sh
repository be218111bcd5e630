#!/bin/bash
# tests/read_bw/memory.sh: nvme_read_bw --memory, the staging memory's rung: the stream runs
# with the readers' threads (per drive x the node's drives) and buffers (chunk x depth),
# its DRAM figure is twice what it staged, the ceiling is unknown (with its reason)
# where sysfs does not say it, and the options it cannot
# take are refused with one line.
. "$(dirname "$0")/../lib.sh"

f="$TMPD/a.img"
g="$TMPD/b.img"
make_pattern "$f" $((4 * 1024 * 1024)) 1
make_pattern "$g" $((4 * 1024 * 1024)) 2
# A sysfs whose last-level cache is 2 x 1 MiB (L3 shared by 2 of 4 online CPUs): the
# stream's buffers grow to 4 x that, 8 MiB over the 6 threads (whole 64 KiB chunks).
sys="$TMPD/sys"
c="$sys/devices/system/cpu/cpu0/cache"
mkdir -p "$c/index0" "$c/index1" "$c/index3"
printf '0-3\n' >"$sys/devices/system/cpu/online"
printf "1\n" >"$c/index0/level"; printf "Data\n" >"$c/index0/type"; printf "48K\n" >"$c/index0/size"
printf '1\n' >"$c/index1/level"; printf 'Instruction\n' >"$c/index1/type"; printf '64M\n' >"$c/index1/size"
printf '3\n' >"$c/index3/level"; printf 'Unified\n' >"$c/index3/type"; printf '1024K\n' >"$c/index3/size"
printf '0-1\n' >"$c/index3/shared_cpu_list"
out="$TMPD/mem.json"
"$NVME_READ_BW" --memory --disks "$f,$g" -t 3 -s 64K --engine io_uring --depth 4 --warmup 0.1 -D 0.5 \
	--sysfs-root "$sys" --json >"$out" 2>"$TMPD/err" ||
	"$NVME_READ_BW" --memory --disks "$f,$g" -t 3 -s 64K --warmup 0.1 -D 0.5 --sysfs-root "$sys" \
		--json >"$out" 2>"$TMPD/err" || fail "exit $?: $(cat "$TMPD/err")"
json_valid "$out" || fail "invalid JSON"
check_eq "mode recorded" memory "$(json_get "$out" 'd["params"]["mode"]')"
check_eq "one node (both files on it)" 1 "$(json_get "$out" 'len(d["memory"])')"
check_eq "the readers' threads: 3 per drive x 2 drives" 6 "$(json_get "$out" 'd["memory"][0]["threads"]')"
check_eq "depth recorded" True "$(json_get "$out" 'd["params"]["depth"] >= 1')"
check_eq "the cache: L3, 2 x 1 MiB" "True 3 1048576 2 2097152 4" \
	"$(json_get "$out" 'd["cache"]["known"], d["cache"]["level"], d["cache"]["bytes_each"], d["cache"]["instances"], d["cache"]["total_bytes"], d["cache"]["factor"]' | tr -d '(),')"
# ceil(8 MiB / 6) rounded up to whole 64 KiB chunks (more than chunk x depth)
check_eq "buffer per thread: past 4 x the cache" "$(((8 * 1048576 / 6 + 65535) / 65536 * 65536)) False" \
	"$(json_get "$out" 'd["memory"][0]["buffer_bytes"], d["memory"][0]["possibly_cached"]' | tr -d '(),')"
check_eq "the plan's buffers" "6 $(((8 * 1048576 / 6 + 65535) / 65536 * 65536))" \
	"$(json_get "$out" 'd["params"]["buffers"]["count"], d["params"]["buffers"]["bytes_each"]' | tr -d '(),')"
check_eq "staged in whole chunks" True "$(json_get "$out" 'd["memory"][0]["staged_bytes"] > 0 and d["memory"][0]["staged_bytes"] % 65536 == 0')"
check_eq "DRAM = 2 x staged" True \
	"$(json_get "$out" 'abs(d["memory"][0]["dram_gb_per_s"] - 2 * d["memory"][0]["staged_bytes"] / d["memory"][0]["seconds"] / 1e9) < 1e-3 * d["memory"][0]["dram_gb_per_s"]')"
check_eq "no ceiling without EDAC and SMBIOS" "None None False" \
	"$(json_get "$out" 'd["memory"][0]["ceiling_gb_per_s"], d["memory"][0]["percent_of_ceiling"], d["memory"][0]["above_ceiling"]' | tr -d '(),')"
check_match "its reason" "^ceiling unknown: no SMBIOS memory devices" "$(json_get "$out" 'd["memory"][0]["ceiling_source"]')"

# Text: the row (one thread: the whole 8 MiB) and the reason.
"$NVME_READ_BW" --memory --disks "$f" -t 1 -s 64K --warmup 0 -D 0.3 --sysfs-root "$sys" >"$TMPD/txt" 2>&1 ||
	fail "text: exit $?"
check_match "text row" "^ [0-9]+ +1 +8MiB +[0-9.]+ +[0-9.]+ +- +-$" "$(grep -E '^ [0-9]+ +1 ' "$TMPD/txt")"
check_match "text reason" "memory ceiling unknown" "$(cat "$TMPD/txt")"
check_match "text: the cache" "Last-level cache: L3, 2 x 1MiB = 2MiB" "$(cat "$TMPD/txt")"

# No cache in sysfs: 256 MiB assumed, the working set 1 GiB; the header says only what
# applies to --memory (no span, no reads in flight, no drives when none is given).
"$NVME_READ_BW" --memory -t 1 --warmup 0 -D 0.2 --sysfs-root "$TMPD/nosys" >"$TMPD/txt2" 2>&1 ||
	fail "no cache: exit $?"
check_match "no cache: assumed" "Last-level cache: unknown .*assumed 256MiB" "$(cat "$TMPD/txt2")"
check_match "no cache: 1 GiB" "^ [0-9]+ +1 +1GiB " "$(grep -E '^ [0-9]+ +1 ' "$TMPD/txt2")"
check_eq "--memory header: no Span, Drives, Pattern, Reads in flight" "" \
	"$(grep -E '^ (Span|Drives|Pattern|Reads in flight|Engine) ' "$TMPD/txt2")"

expect_exit 2 "--memory measures DRAM: not with --checksum" "$NVME_READ_BW" --memory --checksum --disks "$f"
expect_exit 2 "--baseline and --memory cannot be combined" "$NVME_READ_BW" --memory --baseline --disks "$f"
expect_exit 2 "multiple of 8" "$NVME_READ_BW" --memory -s 4100 --disks "$f"
finish
