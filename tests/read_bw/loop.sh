#!/bin/bash
# tests/read_bw/loop.sh: nvme_read_bw on a loop block device (losetup --direct-io=on) holding
# the lab pattern: block-device geometry via ioctl, the readers' digest equals the
# backing file's, and the backing file's hash is unchanged afterwards. Needs root and
# loop devices; skips otherwise.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for losetup"
command -v losetup >/dev/null || skip "losetup not installed"
f="$TMPD/loop.img"
make_pattern "$f" $((16 * 1024 * 1024)) 7
before=$(sha256sum <"$f")
dev=$(losetup --find --show --direct-io=on --sector-size 4096 "$f" 2>"$TMPD/losetup.err") ||
	skip "no loop device here: $(cat "$TMPD/losetup.err")"
t_cleanup_hooks+=("losetup -d $dev")

for e in psync io_uring; do
	grep -q "io_uring (not built)" <("$NVME_READ_BW" --help) && [ $e = io_uring ] && continue
	"$NVME_READ_BW" --disks "$dev" --engine $e -t 4 --warmup 0.2 -D 1 --checksum --json >"$TMPD/$e.json" 2>"$TMPD/err" ||
		fail "$e: exit $?: $(cat "$TMPD/err")"
	check_eq "$e: kind" block "$(json_get "$TMPD/$e.json" 'd["drives"][0]["kind"]')"
	check_eq "$e: logical block size from BLKSSZGET" 4096 "$(json_get "$TMPD/$e.json" 'd["drives"][0]["logical_block_size"]')"
	check_eq "$e: size from BLKGETSIZE64" $((16 * 1024 * 1024)) "$(json_get "$TMPD/$e.json" 'd["drives"][0]["size"]')"
	check_eq "$e: digest of what was read" "$("$BLOCKDIGEST" "$f")" "$(json_get "$TMPD/$e.json" 'd["drives"][0]["checksum"]["digest"]')"
	check_eq "$e: bytes counted" True "$(json_get "$TMPD/$e.json" 'd["drives"][0]["bytes"] > 0')"
done
# A chunk that is not a multiple of the 4096-byte sector.
expect_exit 2 "$dev: chunk 2KiB is not a multiple of the logical block size 4096" \
	"$NVME_READ_BW" --disks "$dev" -s 2K -D 1
check_eq "backing file unchanged" "$before" "$(sha256sum <"$f")"
finish
