#!/bin/bash
# fake_ideal.sh: the sink's ideal (every drive at the sink's mean local per-drive rate)
# holds only for the source's drives of a model the sink's own drives are. Over the fake
# fabric: a loop device read as the fixture's NVMe drive "Fixture Gen4 Drive"
# (tests/fixtures/sysfs/mklinks.py --block, under --sysfs-root) by the source, and by the
# sink too (the same model: an ideal and a % of it), then a plain file (no model) as the
# sink's own drive: no ideal, no %, and the reason naming both models, text and JSON.
# Needs root and a loop device; skips otherwise.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

[ "$(id -u)" = 0 ] || skip "needs root for losetup"
command -v losetup >/dev/null || skip "losetup not installed"
img=$TMPD/loop.img
make_pattern "$img" $((8 * 1024 * 1024)) 3
dev=$(losetup --find --show --direct-io=on "$img" 2>"$TMPD/losetup.err") ||
	skip "no loop device here: $(cat "$TMPD/losetup.err")"
t_cleanup_hooks+=("losetup -d $dev")
majmin=$(printf '%d:%d' "0x$(stat -c %t "$dev")" "0x$(stat -c %T "$dev")")
fx=$TMPD/links
"$PYTHON3" "$FIXTURES/sysfs/mklinks.py" "$fx" --block "$majmin" || fail "mklinks.py exited $?"
g=$TMPD/local.img
make_pattern "$g" $((8 * 1024 * 1024)) 2

# 1. The same model on both sides: the sink's per-drive rate stands for the source's drive.
pair same "--local-disks $dev --sysfs-root $fx -q 1 --dram 8M --json" \
	"--disks $dev --sysfs-root $fx -q 2"
check_eq "same model: exits" "0 0" "$SINK_RC $SRC_RC"
jv same-sink '[x["model"] for x in d["drives"]]' \
	'd["ideal_gb_per_s"] is not None and d["ideal_gb_per_s"] > 0, d["percent_of_ideal"] is not None' \
	'd["ideal_unknown_reason"]'
check_eq "same model: both drives the fixture's" "['Fixture Gen4 Drive', 'Fixture Gen4 Drive']" "${J[0]}"
check_eq "same model: an ideal and a % of it" "(True, True)" "${J[1]}"
check_eq "same model: no reason" "None" "${J[2]}"

# 2. The sink's own drive a file (model unknown), the source's the fixture's NVMe drive.
pair other "--local-disks $g -q 1 --dram 8M --json" "--disks $dev --sysfs-root $fx -q 2"
check_eq "other model: exits" "0 0" "$SINK_RC $SRC_RC"
jv other-sink 'd["ideal_gb_per_s"], d["percent_of_ideal"]' 'd["ideal_unknown_reason"]' \
	'd["total"]["gb_per_s"] > 0'
check_eq "other model: no ideal, no %" "(None, None)" "${J[0]}"
check_eq "other model: why" \
	"127.0.0.1's $dev (Fixture Gen4 Drive) is not the model of the sink's drives (model unknown): the sink's per-drive rate does not apply to it" \
	"${J[1]}"
check_eq "other model: the total still measured" "True" "${J[2]}"
json_valid "$TMPD/other-sink.out" || fail "other model: not one JSON document"

# 3. The same in text: the ideal's line says why, never a percentage.
pair text "--local-disks $g -q 1 --dram 8M" "--disks $dev --sysfs-root $fx -q 2"
check_eq "text: exits" "0 0" "$SINK_RC $SRC_RC"
out=$(cat "$TMPD/text-sink.out")
check_match "text: the ideal's line says why" \
	"^ ideal +- +\(no % of ideal: 127\.0\.0\.1's $dev \(Fixture Gen4 Drive\) is not the model of the sink's drives \(model unknown\)" \
	"$out"
check_eq "text: no percentage of an ideal" 0 "$(grep -c "% of ideal)" <<<"$out")"
finish
