#!/bin/bash
# tests/read_bw/linkload.sh: nvme_read_bw samples each drive's PCIe link during its window and
# reads its AER counts before and after. A loop device is read as the fixture's NVMe drive
# (tests/fixtures/sysfs/mklinks.py --block names it nvme0n1 at 0000:01:00.0 under
# --sysfs-root); while the tool reads, the test rewrites the drive's link files (16 GT/s
# x4, then 2.5 GT/s x1 after the window's first live line, back two lines later) and its
# AER counts: the JSON says when the link dropped and what the counts did, the text names
# the drive. Needs root and loop devices; skips otherwise.
. "$(dirname "$0")/../lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for losetup"
command -v losetup >/dev/null || skip "losetup not installed"
f="$TMPD/loop.img"
make_pattern "$f" $((16 * 1024 * 1024)) 3
dev=$(losetup --find --show --direct-io=on "$f" 2>"$TMPD/losetup.err") ||
	skip "no loop device here: $(cat "$TMPD/losetup.err")"
t_cleanup_hooks+=("losetup -d $dev")
majmin=$(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
fx="$TMPD/links"
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$fx" --block "$majmin" || fail "mklinks.py exited $?"
pdev="$fx/bus/pci/devices/0000:01:00.0"

# wait_line FILE PATTERN: until the tool's live lines (stderr) hold PATTERN (bounded).
wait_line() {
	for _ in $(seq 100); do
		grep -q "$2" "$1" && return 0
		sleep 0.1
	done
	return 1
}

# run OUT ERR ARGS...: the tool over the loop device in the background, the link dropped
# after its first live line and back after its third, AER counts raised meanwhile. The
# live lines go to stderr with --json, else to stdout.
run() {
	local out=$1 err=$2 pid live=$1
	shift 2
	[ "${1:-}" = --json ] && live=$err
	"$NVME_READ_BW" --sysfs-root "$fx" --disks "$dev" -t 2 --warmup 0 -D 5 --interval 1 "$@" \
		>"$out" 2>"$err" &
	pid=$!
	wait_line "$live" '^\[ *1\.' || fail "no first live line: $(cat "$err")"
	echo "2.5 GT/s PCIe" >"$pdev/current_link_speed"
	echo 1 >"$pdev/current_link_width"
	printf 'RxErr 3\nBadTLP 0\nTOTAL_ERR_COR 3\n' >"$pdev/aer_dev_correctable"
	wait_line "$live" '^\[ *3\.' || fail "no third live line: $(cat "$err")"
	echo "16.0 GT/s PCIe" >"$pdev/current_link_speed"
	echo 4 >"$pdev/current_link_width"
	wait "$pid" || fail "nvme_read_bw $*: exit $?: $(cat "$err")"
}

run "$TMPD/out.json" "$TMPD/err" --json
j() { json_get "$TMPD/out.json" "$1"; }
json_valid "$TMPD/out.json" || fail "not one JSON document"
check_eq "the loop device read as the fixture's drive" "nvme0n1 0000:01:00.0" \
	"$(j 'd["drives"][0]["name"] + " " + d["drives"][0]["pci_address"]')"
L='d["drives"][0]["link_under_load"]'
lk() { j "(float(${L}[\"$1\"][\"speed_gts\"]), ${L}[\"$1\"][\"width\"])"; }
check_eq "link at the opening" "(16.0, 4)" "$(lk before)"
check_eq "lowest link in the window" "(2.5, 1)" "$(lk min)"
check_eq "link at the close" "(16.0, 4)" "$(lk after)"
check_eq "two changes: down, then back" "[(2.5, 1), (16.0, 4)]" \
	"$(j "[(float(c[\"speed_gts\"]), c[\"width\"]) for c in ${L}[\"changes\"]]")"
check_eq "the drop came between the first and the fourth second" True \
	"$(j "1.0 <= ${L}[\"changes\"][0][\"t_s\"] < 4.0 and ${L}[\"changes\"][0][\"t_s\"] < ${L}[\"changes\"][1][\"t_s\"]")"
check_eq "dropped" True "$(j "${L}[\"dropped\"]")"
check_eq "a sample every second: at least 5" True "$(j "${L}[\"samples\"] >= 5")"
check_eq "AER correctable: 0 before, 3 after" "{'before': 0, 'after': 3, 'delta': 3}" \
	"$(j 'd["drives"][0]["aer"]["correctable"]')"
check_eq "AER fatal: kept, unchanged" 0 "$(j 'd["drives"][0]["aer"]["fatal"]["delta"]')"

# The text names the drive, the drop and when; the counts that moved.
printf 'RxErr 0\nBadTLP 0\nTOTAL_ERR_COR 0\n' >"$pdev/aer_dev_correctable"
run "$TMPD/out.txt" "$TMPD/err2"
check_match "text: the drop, when" \
	'^ nvme0n1 \(0000:01:00\.0\): link dropped under load: 16 GT/s x4 at the opening, 2\.5 GT/s x1 at [1-3]\.[0-9] s, 16 GT/s x4 at the close \(2 changes\)$' \
	"$(cat "$TMPD/out.txt")"
check_match "text: the AER count that moved" \
	'^ nvme0n1 \(0000:01:00\.0\): AER correctable \+3 \(0 -> 3\), nonfatal 0, fatal 0 in the window$' \
	"$(cat "$TMPD/out.txt")"

# A regular file has no PCI device: null, never a made-up link.
make_pattern "$TMPD/plain" $((4 * 1024 * 1024)) 1
"$NVME_READ_BW" --disks "$TMPD/plain" --warmup 0 -D 1 --json >"$TMPD/plain.json" || fail "file run: exit $?"
check_eq "a file: link_under_load and aer null" "None None" \
	"$(json_get "$TMPD/plain.json" 'str(d["drives"][0]["link_under_load"]) + " " + str(d["drives"][0]["aer"])')"
finish
