#!/bin/bash
# tests/read_bw/unsteady.sh: the window's shape. Without --interval the JSON keeps each
# drive's rate every second with min, max, median and cv; a reader stopped mid-window
# (SIGSTOP for two seconds, then SIGCONT: a rate that collapses, as a throttling drive's
# does) leaves a second under half the median: the drive is named unsteady in the text and
# the JSON, and the total is marked not to be trusted. A file's health log is "not read"
# with its reason, never zeros.
. "$(dirname "$0")/../lib.sh"

f="$TMPD/pattern.img"
make_pattern "$f" $((16 * 1024 * 1024)) 5

# A steady run: seconds kept without --interval, and the shape's figures agree with them.
out="$TMPD/steady.json"
"$NVME_READ_BW" --disks "$f" -t 2 -s 256K --warmup 0.2 -D 3 --max-cv 1000 --json >"$out" 2>"$TMPD/err" ||
	fail "steady: exit $?: $(cat "$TMPD/err")"
j() { json_get "$out" "$1"; }
check_eq "steady: three 1 s samples without --interval" 3 "$(j 'len(d["drives"][0]["samples_gb_per_s"])')"
check_eq "steady: min and max are the samples'" True \
	"$(j '(lambda x, s: abs(x["min_gb_per_s"] - min(s)) < 1e-4 and abs(x["max_gb_per_s"] - max(s)) < 1e-4)(d["drives"][0], d["drives"][0]["samples_gb_per_s"])')"
check_eq "steady: their mean is the drive's rate" True \
	"$(j '(lambda x, s: abs(sum(s) / len(s) - x["gb_per_s"]) < 0.1 * x["gb_per_s"])(d["drives"][0], d["drives"][0]["samples_gb_per_s"])')"
check_eq "steady: not flagged under --max-cv 1000 unless a second collapsed" True \
	"$(j '(lambda x: x["unsteady"] == (x["min_gb_per_s"] < 0.5 * x["median_gb_per_s"]))(d["drives"][0])')"
check_eq "steady: nothing dropped" 0 "$(j 'd["drives"][0]["samples_dropped"]')"
check_eq "steady: a file's health is not read, with the reason" \
	"False not read: $f is a regular file" "$(j '(lambda x: "%s %s" % (x["log_read"], x["why"]))(d["drives"][0]["health"])')"
check_eq "steady: no reading of a file" "False False" \
	"$(j '(lambda x: "%s %s" % ("before" in x, "deltas" in x))(d["drives"][0]["health"])')"

# The collapse: the readers stopped for 2 s in the middle of a 6 s window (two runs at
# once, one for the JSON and one for the text).
out="$TMPD/collapse.json"
"$NVME_READ_BW" --disks "$f" -t 2 -s 256K --warmup 0.3 -D 6 --json="$out" 2>"$TMPD/err" &
pid=$!
"$NVME_READ_BW" --disks "$f" -t 2 -s 256K --warmup 0.3 -D 6 >"$TMPD/text" 2>"$TMPD/err2" &
pid2=$!
sleep 2.2
kill -STOP "$pid" "$pid2"
sleep 2.2
kill -CONT "$pid" "$pid2"
wait "$pid" || fail "collapse: exit $?: $(cat "$TMPD/err")"
wait "$pid2" || fail "collapse (text): exit $?: $(cat "$TMPD/err2")"
j() { json_get "$out" "$1"; }
check_eq "collapse: flagged unsteady" True "$(j 'd["drives"][0]["unsteady"]')"
check_match "collapse: the second that fell is named" "second [0-9] at [0-9.]+ GB/s, under half the median" \
	"$(j 'd["drives"][0]["unsteady_reason"]')"
check_eq "collapse: its minimum under half its median" True \
	"$(j '(lambda x: x["min_gb_per_s"] < 0.5 * x["median_gb_per_s"])(d["drives"][0])')"
check_eq "collapse: at most one sample a second" True "$(j 'len(d["drives"][0]["samples_gb_per_s"]) <= 6')"
check_eq "collapse: the total is not to be trusted" "False ['pattern.img']" \
	"$(j '"%s %s" % (d["total"]["steady"], d["total"]["unsteady_drives"])')"
check_match "collapse: the text names the drive unsteady" "pattern.img .*UNSTEADY: .*second [0-9] at" "$(cat "$TMPD/text")"
check_match "collapse: the text's total says so" "total not to be trusted: unsteady pattern.img" "$(cat "$TMPD/text")"

expect_exit 2 "maximum variation" "$NVME_READ_BW" --disks "$f" --max-cv -3 -D 1
expect_exit 2 "maximum variation" "$NVME_READ_BW" --disks "$f" --max-cv 2000 -D 1
finish
