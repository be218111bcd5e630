#!/bin/bash
# tests/read_bw/file.sh: nvme_read_bw on a regular file holding the lab pattern, with both
# engines: the digest of what the readers returned equals the file's (every block of the
# span read once in the first sweep, at the right offset), bytes are counted, and the
# file is unchanged afterwards. Also --span, --baseline, --sweep and --interval output.
. "$(dirname "$0")/../lib.sh"

f="$TMPD/pattern.img"
make_pattern "$f" $((24 * 1024 * 1024 + 8192)) 3
before=$(sha256sum <"$f")
engines="psync io_uring"
grep -q "io_uring (not built)" <("$NVME_READ_BW" --help) && engines=psync

for e in $engines; do
	out="$TMPD/$e.json"
	"$NVME_READ_BW" --disks "$f" --engine "$e" -t 3 -s 256K --warmup 0.2 -D 1.5 --checksum --json >"$out" 2>"$TMPD/err" ||
		fail "$e: exit $?: $(cat "$TMPD/err")"
	json_valid "$out" || fail "$e: invalid JSON"
	check_eq "$e: checksum equals the file's" "$("$BLOCKDIGEST" "$f")" "$(json_get "$out" 'd["drives"][0]["checksum"]["digest"]')"
	check_eq "$e: first sweep complete" True "$(json_get "$out" 'd["drives"][0]["checksum"]["complete"]')"
	check_eq "$e: span is the whole file" $((24 * 1024 * 1024 + 8192)) "$(json_get "$out" 'd["drives"][0]["checksum"]["span"]')"
	check_eq "$e: bytes counted in the window" True "$(json_get "$out" 'd["drives"][0]["bytes"] > 0 and d["total"]["bytes"] == d["drives"][0]["bytes"]')"
	check_eq "$e: GB/s = bytes / seconds" True \
		"$(json_get "$out" 'abs(d["total"]["gb_per_s"] - d["total"]["bytes"] / d["total"]["seconds"] / 1e9) < 1e-3 * d["total"]["gb_per_s"] + 1e-6')"
	check_eq "$e: window length" True "$(json_get "$out" '1.45 < d["total"]["seconds"] < 2.5')"
	check_eq "$e: pattern has no zero blocks" 0 "$(json_get "$out" 'd["drives"][0]["zero_fraction"]')"
	check_eq "$e: link ceiling unknown for a file" None "$(json_get "$out" 'd["drives"][0]["link_ceiling_gb_per_s"]')"
	check_eq "$e: engine recorded" "$e" "$(json_get "$out" 'd["params"]["engine"]')"
	# the whole of stdout one JSON object (a report line before or after it fails the parse;
	# "GB/s" may be in its strings: an unsteady second's note on a loaded host)
	check_eq "$e: stdout is only the JSON document" True \
		"$("$PYTHON3" -c 'import json, sys; t = open(sys.argv[1]).read(); print(isinstance(json.loads(t), dict) and t.lstrip()[:1] == "{")' "$out" 2>&1)"
done

# io_uring with a kernel submission thread (--sqpoll), and polled completions (--iopoll)
# where the file's device has poll queues; without them, one line saying how to add them.
if [ "$engines" != psync ]; then
	out="$TMPD/sqpoll.json"
	"$NVME_READ_BW" --disks "$f" --engine io_uring --sqpoll -t 2 -s 256K --warmup 0 -D 1 --checksum --json \
		>"$out" 2>"$TMPD/err" || fail "sqpoll: exit $?: $(cat "$TMPD/err")"
	check_eq "sqpoll: checksum equals the file's" "$("$BLOCKDIGEST" "$f")" "$(json_get "$out" 'd["drives"][0]["checksum"]["digest"]')"
	check_eq "sqpoll: first sweep complete" True "$(json_get "$out" 'd["drives"][0]["checksum"]["complete"]')"
	check_eq "sqpoll: recorded" "True False" "$(json_get "$out" 'd["params"]["sqpoll"], d["params"]["iopoll"]' | tr -d '(),')"
	out="$TMPD/iopoll.json"
	if "$NVME_READ_BW" --disks "$f" --engine io_uring --iopoll --sqpoll -t 2 -s 256K --warmup 0 -D 1 --checksum \
		--json >"$out" 2>"$TMPD/err"; then
		check_eq "iopoll: checksum equals the file's" "$("$BLOCKDIGEST" "$f")" "$(json_get "$out" 'd["drives"][0]["checksum"]["digest"]')"
	else
		check_match "iopoll without poll queues: how to add them" \
			"needs poll queues.*poll_queues=N" "$(cat "$TMPD/err")"
		check_eq "iopoll without poll queues: one line" 1 "$(wc -l <"$TMPD/err")"
	fi
fi

# A span smaller than the file: the digest covers exactly that span.
"$NVME_READ_BW" --disks "$f" -t 2 -s 64K --span 1M --warmup 0 -D 0.5 --checksum --json >"$TMPD/span.json" || fail "span run"
check_eq "span digest" "$("$BLOCKDIGEST" "$f" 1M)" "$(json_get "$TMPD/span.json" 'd["drives"][0]["checksum"]["digest"]')"

# All-zero data: the honesty warning.
truncate -s 8M "$TMPD/zeros.img"
"$NVME_READ_BW" --disks "$TMPD/zeros.img" -t 1 --warmup 0 -D 0.3 >"$TMPD/z.txt" 2>"$TMPD/z.err" || fail "zeros run"
check_match "zero warning" "warning: .*zeros.img: 100% of sampled blocks are all zeros: unwritten blocks may be served without media reads" "$(cat "$TMPD/z.err")"

# Text output: live lines (the header, the note for a regular file, the rows, the Gb/s
# column of --report_gbits: tests/golden.sh, read_bw/file*).
"$NVME_READ_BW" --disks "$f" -t 2 --warmup 0 -D 1 --interval 0.25 --report_gbits >"$TMPD/t.txt" 2>&1 || fail "text run"
check_eq "interval lines" True "$([ "$(grep -c '^\[ *[0-9.]*s\]' "$TMPD/t.txt")" -ge 3 ] && echo True || echo False)"

# --baseline and --sweep on two files: the reference table.
g="$TMPD/second.img"
make_pattern "$g" $((8 * 1024 * 1024)) 4
"$NVME_READ_BW" --disks "$f,$g" -t 1 --warmup 0 -D 0.4 --baseline --json >"$TMPD/b.json" 2>/dev/null || fail "baseline run"
check_eq "baseline phases" "['pattern.img alone', 'second.img alone', '2 together']" "$(json_get "$TMPD/b.json" '[r["label"] for r in d["baseline"]]')"
check_eq "baseline ideal = sum of solos" True \
	"$(json_get "$TMPD/b.json" 'abs(d["baseline"][2]["ideal_gb_per_s"] - d["baseline"][0]["gb_per_s"] - d["baseline"][1]["gb_per_s"]) < 1e-3')"
check_eq "baseline % of ideal" True \
	"$(json_get "$TMPD/b.json" 'abs(d["baseline"][2]["percent_of_ideal"] - 100 * d["baseline"][2]["gb_per_s"] / d["baseline"][2]["ideal_gb_per_s"]) < 0.1')"
"$NVME_READ_BW" --disks "$f,$g" -t 1 --warmup 0 -D 0.4 --sweep >"$TMPD/s.txt" 2>/dev/null || fail "sweep run"
check_match "sweep table" "first 2 drives +2 " "$(cat "$TMPD/s.txt")"

# A file whose name carries control bytes (an escape sequence, a newline): every text
# line (the drives' table, its note, the drive's row) prints it escaped.
h="$TMPD/f"$'\e[2J\n'"x.img"
cp "$f" "$h"
"$NVME_READ_BW" --disks "$h" -t 1 --warmup 0 -D 0.4 >"$TMPD/h.txt" 2>/dev/null || fail "crafted name: exit $?"
check_eq "crafted name: no control byte in the text but newlines" 0 \
	"$(LC_ALL=C tr -cd '\000-\011\013-\037\177' <"$TMPD/h.txt" | wc -c)"
check_eq "crafted name: the table, the note and the row escaped" 3 \
	"$(grep -c 'f\\x1b\[2J\\x0ax\.img' "$TMPD/h.txt")"

check_eq "file unchanged" "$before" "$(sha256sum <"$f")"
finish
