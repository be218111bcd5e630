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
out="$TMPD/mem.json"
"$NVME_READ_BW" --memory --disks "$f,$g" -t 3 -s 64K --engine io_uring --depth 4 --warmup 0.1 -D 0.5 \
	--sysfs-root "$TMPD/nosys" --json >"$out" 2>"$TMPD/err" ||
	"$NVME_READ_BW" --memory --disks "$f,$g" -t 3 -s 64K --warmup 0.1 -D 0.5 --sysfs-root "$TMPD/nosys" \
		--json >"$out" 2>"$TMPD/err" || fail "exit $?: $(cat "$TMPD/err")"
json_valid "$out" || fail "invalid JSON"
depth=$(json_get "$out" 'd["params"]["depth"]')
check_eq "mode recorded" memory "$(json_get "$out" 'd["params"]["mode"]')"
check_eq "one node (both files on it)" 1 "$(json_get "$out" 'len(d["memory"])')"
check_eq "the readers' threads: 3 per drive x 2 drives" 6 "$(json_get "$out" 'd["memory"][0]["threads"]')"
check_eq "buffer per thread: chunk x depth" $((65536 * depth)) "$(json_get "$out" 'd["memory"][0]["buffer_bytes"]')"
check_eq "staged in whole chunks" True "$(json_get "$out" 'd["memory"][0]["staged_bytes"] > 0 and d["memory"][0]["staged_bytes"] % 65536 == 0')"
check_eq "DRAM = 2 x staged" True \
	"$(json_get "$out" 'abs(d["memory"][0]["dram_gb_per_s"] - 2 * d["memory"][0]["staged_bytes"] / d["memory"][0]["seconds"] / 1e9) < 1e-3 * d["memory"][0]["dram_gb_per_s"]')"
check_eq "no ceiling without EDAC and SMBIOS" "None None False" \
	"$(json_get "$out" 'd["memory"][0]["ceiling_gb_per_s"], d["memory"][0]["percent_of_ceiling"], d["memory"][0]["above_ceiling"]' | tr -d '(),')"
check_match "its reason" "^ceiling unknown: no SMBIOS memory devices" "$(json_get "$out" 'd["memory"][0]["ceiling_source"]')"

# Text: the row and the reason.
"$NVME_READ_BW" --memory --disks "$f" -t 1 -s 64K --warmup 0 -D 0.3 --sysfs-root "$TMPD/nosys" >"$TMPD/txt" 2>&1 ||
	fail "text: exit $?"
check_match "text row" "^ [0-9]+ +1 +64KiB +[0-9.]+ +[0-9.]+ +- +-$" "$(grep -E '^ [0-9]+ +1 ' "$TMPD/txt")"
check_match "text reason" "memory ceiling unknown" "$(cat "$TMPD/txt")"

expect_exit 2 "--memory measures DRAM: not with --checksum" "$NVME_READ_BW" --memory --checksum --disks "$f"
expect_exit 2 "--baseline and --memory cannot be combined" "$NVME_READ_BW" --memory --baseline --disks "$f"
expect_exit 2 "multiple of 8" "$NVME_READ_BW" --memory -s 4100 --disks "$f"
finish
