#!/bin/bash
# shellcheck disable=SC2086 # $RUN: the common options, a word each
# fake_drive_health.sh: what the source's drives said of themselves reaches the sink's
# combined report (RESULT's optional part), over the fake fabric (no RDMA device):
# - a real source reading a file: its drive's seconds (min, median, max) and its health log's
#   "not read" with the source's reason are under the source's drive in the sink's JSON;
# - a source whose drive throttled (tests/remote/hostile.c, drive-throttled: thermal
#   management T1 +3 transitions and 12 s, 81 C against a warning at 75 C, its third second
#   at a sixth of the median): the sink names it under the drives' table and in "Drives
#   explained", judged with its own --max-cv, and says so in JSON (health findings,
#   unsteady, drive_attribution); named as the source's (side rdma, its source) even
#   when its path is the sink's own drive's, whose entry carries none of its word;
# - a forged word (a reading after the window without one before it) is a malformed
#   RESULT: refused in one line, exit 1, no figure taken from it;
# - a drive's name and health reason with control bytes (drive-escapes): escaped in every
#   line of the sink's text, the notes under the drives' table as the table itself.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# The sanitized hostile build on a loaded host: a longer bound than fake_lib.sh's 3 s.
RUN="-s 64K -t 2 --warmup 0.2 -D 1 --timeout 10"
f=$TMPD/src.img
make_pattern "$f" $((8 * 1024 * 1024)) 1

# 1. The real source's word on a file.
sink real-sink $RUN --no-local --dram 8M --json
src real-src $RUN --disks "$f" -q 2
sink_status
check_eq "real: exits" "0 0" "$SINK_RC $SRC_RC"
jv real-sink '[x["side"] for x in d["drives"]]' \
	'(lambda x: (x["health"]["log_read"], x["health"]["why"]))(d["drives"][0])' \
	'(lambda x: x["min_gb_per_s"] <= x["median_gb_per_s"] <= x["max_gb_per_s"])(d["drives"][0])' \
	'type(d["drives"][0]["unsteady"]).__name__'
check_eq "real: the source's drive at the sink" "['rdma']" "${J[0]}"
check_eq "real: its health log not read, the source's reason" "(False, 'not read: $f is a regular file')" "${J[1]}"
check_eq "real: its seconds' shape sent: min <= median <= max" True "${J[2]}"
check_eq "real: judged steady or not at the sink" bool "${J[3]}"

# 2. A throttling drive's word, in text and in JSON.
HOSTILE=$abs_top_builddir/tests/remote/hostile_remote
[ -x "$HOSTILE" ] || { finish; exit; }
export ASAN_OPTIONS=detect_leaks=1:exitcode=23:abort_on_error=0
export LSAN_OPTIONS=exitcode=23
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=24
FAKE=$HOSTILE
for fmt in text json; do
	as=()
	[ $fmt = json ] && as=(--json)
	sink "hot-$fmt-sink" $RUN --no-local --dram 8M "${as[@]}"
	NBW_HOSTILE=drive-throttled src "hot-$fmt-src" $RUN --disks "$f" -q 2
	sink_status
	check_eq "throttled ($fmt): exits" "0 0" "$SINK_RC $SRC_RC"
done
out=$(cat "$TMPD/hot-text-sink.out")
check_match "throttled: named under the drives' table" \
	" src.img of source [0-9.]+: throttled in the window: thermal management T1 \+3 transitions, 12 s in T1; 81 C at the close \(warning at 75 C\)" "$out"
check_match "throttled: its window named unsteady" " src.img of source [0-9.]+: UNSTEADY window: cv 30.0% above [0-9.]+%; second 3 at 0.50 GB/s, under half the median 3.00 GB/s" "$out"
check_match "throttled: explained as the source's" "drive src.img of source [0-9.]+: throttled in the window: .*; unsteady window: " "$out"
jv hot-json-sink '(lambda h: (h["log_read"], h["controller"], h["findings"]))(d["drives"][0]["health"])' \
	'(lambda x: (x["unsteady"], float(x["min_gb_per_s"]), float(x["median_gb_per_s"]), float(x["cv_pct"])))(d["drives"][0])' \
	'[(a["path"], [r["rule"] for r in a["rules"]]) for a in d["drive_attribution"]]' \
	'd["drives"][0]["health"]["deltas"]["tmt1_transitions"], d["drives"][0]["health"]["after"]["temperature_c"]'
check_eq "throttled: the health the sink compared" "(True, 'nvme7', ['throttled', 'hot'])" "${J[0]}"
check_eq "throttled: the shape the sink judged" "(True, 0.5, 3.0, 30.0)" "${J[1]}"
check_eq "throttled: drive_attribution" "[('$f', ['throttled', 'crossed_warning_temperature', 'unsteady'])]" "${J[2]}"
check_eq "throttled: T1 +3, 81 C" "(3, 81)" "${J[3]}"
# The same RESULT under a sink's --max-cv 50: the cv is within it, the fallen second is not.
sink "cv-sink" $RUN --no-local --dram 8M --max-cv 50 --json
NBW_HOSTILE=drive-throttled src cv-src $RUN --disks "$f" -q 2
sink_status
jv cv-sink 'd["drives"][0]["unsteady_reason"]'
check_eq "max-cv: the sink's own" "second 3 at 0.50 GB/s, under half the median 3.00 GB/s" "${J[0]}"

# The source names its drive with the sink's own drive's path: its word stays its own (side
# rdma, its source), the sink's drive of that path is never blamed for it.
sink own-sink $RUN --disks "$f" --dram 8M --max-cv 100 --json
NBW_HOSTILE=drive-throttled src own-src $RUN --disks "$f" -q 2
sink_status
check_eq "own: exits" "0 0" "$SINK_RC $SRC_RC"
jv own-sink 'sorted((x["side"], x["path"]) for x in d["drives"])' \
	'[(a["path"], a["side"], a["source"] is not None) for a in d["drive_attribution"] if "throttled" in [r["rule"] for r in a["rules"]]]' \
	'[a["path"] for a in d["drive_attribution"] if a["side"] == "local" and (a["source"] is not None or any(r["rule"] != "unsteady" for r in a["rules"]))]' \
	'[a["text"].split(":")[0] for a in d["drive_attribution"] if a["side"] == "rdma"]'
check_eq "own: one path, the sink's and the source's drive" "[('local', '$f'), ('rdma', '$f')]" "${J[0]}"
check_eq "own: the throttled drive is the source's" "[('$f', 'rdma', True)]" "${J[1]}"
check_eq "own: the sink's drive of that path carries none of its word" "[]" "${J[2]}"
check_match "own: named as the source's" "^\['drive src\.img of source [0-9.]+'\]$" "${J[3]}"

# 3. A forged word: refused as a malformed RESULT.
sink forged-sink $RUN --no-local --dram 8M --json
NBW_HOSTILE=drive-forged src forged-src $RUN --disks "$f" -q 2
sink_status
check_eq "forged: the sink fails" 1 "$SINK_RC"
jv forged-sink 'd["ok"]' 'd["error"]' '"drive_attribution" in d'
check_eq "forged: not ok" False "${J[0]}"
check_match "forged: said malformed" "malformed RESULT" "${J[1]}"
check_eq "forged: nothing explained from it" False "${J[2]}"

# 4. Its drive's name and its health log's reason with control bytes (drive-escapes):
# every line of the sink's text prints them escaped, the notes as the drives' table.
sink esc-sink $RUN --no-local --dram 8M
NBW_HOSTILE=drive-escapes src esc-src $RUN --disks "$f" -q 2
sink_status
check_eq "escapes: exits" "0 0" "$SINK_RC $SRC_RC"
check_eq "escapes: no control byte in the sink's text but newlines" 0 \
	"$(LC_ALL=C tr -cd '\000-\011\013-\037\177' <"$TMPD/esc-sink.out" | wc -c)"
N='nv\\x1b\[2Jme9\\x0a forged: PASS\\x07'
check_match "escapes: the UNSTEADY note" "^ $N of source [0-9a-f.:]*: UNSTEADY window: cv 30\.0%" "$(cat "$TMPD/esc-sink.out")"
check_match "escapes: the health note" "^ $N of source [0-9a-f.:]*: health not read: \\\\x1b\]0;owned\\\\x07\\\\x0a forged$" \
	"$(cat "$TMPD/esc-sink.out")"
finish
