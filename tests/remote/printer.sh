#!/bin/bash
# printer.sh: nvme_write_bw_remote's one printer (printer.c) and judges (validity.c, judge.c)
# on results built in memory (tests/remote/printer_demo.c, no RDMA device): for
# one source into the sink, the source, fan-in, --bidir and -a, the JSON keys
# the lab tests and scripts read, the figures the judge computes from the
# measurements (rates, total, ideal, overlap, the sum rule), the text lines that carry
# them, and the same bytes whether printed while the roles run (the hook) or at the end;
# each mode's whole text, its headings and columns: tests/golden.sh (remote/*).
. "$(dirname "$0")/../lib.sh"
demo="$abs_top_builddir/tests/remote/printer_demo"

for w in sink sink-over sink-late sink-fail sink-cv sink-hostile source source-lat fanin fanin-missing fanin-cv bidir sizes sizes-brief sizes-gbits; do
	"$demo" --json "$w" >"$TMPD/$w.json" || fail "$w: printer_demo --json exited $?"
	json_valid "$TMPD/$w.json" || fail "$w: invalid JSON: $(head -c 400 "$TMPD/$w.json")"
	"$demo" "$w" >"$TMPD/$w.txt" || fail "$w: printer_demo exited $?"
	"$demo" --json --stream "$w" >"$TMPD/$w.stream.json" || fail "$w: --stream exited $?"
	"$demo" --stream "$w" >"$TMPD/$w.stream.txt" || fail "$w: --stream exited $?"
	cmp -s "$TMPD/$w.stream.json" "$TMPD/$w.json" && cmp -s "$TMPD/$w.stream.txt" "$TMPD/$w.txt" ||
		fail "$w: printed while running differs from printed at the end"
done
ok "every mode's JSON parses; streamed = whole"
J=$TMPD/sink.json

# One source into the sink: the keys the lab reads, and the judge's figures.
check_eq "sink keys" \
	"tool version role params peer workers slice_bytes drives rails local rdma rdma_reported_by total ideal_gb_per_s percent_of_ideal ideal_unknown_reason streams total_valid total_invalid_reason drive_attribution verify verify_detail ok error" \
	"$(json_get "$J" '" ".join(d)')"
# The sink's own drive 11% below its peer, its health log not kept in the demo: named, and
# not called "the drive itself" (nothing was read to say so).
check_eq "sink: the low drive explained" "/dev/nvme1n1 11 health_not_read" \
	"$(json_get "$J" '" ".join(str(x) for x in (lambda a: (a["path"], round(a["below_peers_pct"]), a["none_fired"]))(d["drive_attribution"][0]))')"
check_match "sink: said in the text" "drive nvme1n1: 11% below its peers; its health log was not read" "$(cat "$TMPD/sink.txt")"
check_eq "sink: role, peer, workers" "sink 10.77.0.2 4" "$(json_get "$J" '"%s %s %d" % (d["role"], d["peer"], d["workers"])')"
check_eq "sink: drives local, local, rdma" "local:/dev/nvme0n1:3000000000 local:/dev/nvme1n1:2400000000 rdma:/dev/nvme0n1:2400000000" \
	"$(json_get "$J" '" ".join("%s:%s:%d" % (x["side"], x["path"], x["bytes"]) for x in d["drives"])')"
check_eq "sink: local 0.9, RDMA 0.4, total 1.3 GB/s" "0.9 0.4 1.3 7800000000" \
	"$(json_get "$J" '"%g %g %g %d" % (d["local"]["gb_per_s"], d["rdma"]["gb_per_s"], d["total"]["gb_per_s"], d["total"]["bytes"])')"
check_eq "sink: ideal = 0.45 per drive x 3 drives, % of ideal" "1.35 96.3" \
	"$(json_get "$J" '"%g %.1f" % (d["ideal_gb_per_s"], d["percent_of_ideal"])')"
check_eq "sink: overlap of the source's window (opened 0.03 s late) with the sink's" "99.5 0.03 1" \
	"$(json_get "$J" '"%g %g %g" % (d["streams"][1]["overlap_pct"], d["streams"][1]["start_offset_s"], d["streams"][1]["cv_pct"])')"
check_eq "sink: total valid, from its RESULT, verified" "True None result pass True" \
	"$(json_get "$J" '"%s %s %s %s %s" % (d["total_valid"], d["total_invalid_reason"], d["rdma_reported_by"], d["verify"], d["ok"])')"
check_eq "sink: rail" "rxe0 4 2400000000 0.4 32" \
	"$(json_get "$J" '(x := d["rails"][0]) and "%s %d %d %g %g" % (x["local_dev"], x["qps"], x["bytes"], x["gb_per_s"], x["percent_of_line_rate"])')"
check_match "sink text: RDMA row, 0.4 GB/s of 1 MiB WRITEs = 381 WRITE/s" '^ RDMA \(4 QPs\) +2400000000 +6\.00 +0\.40 +0\.000381$' "$(cat "$TMPD/sink.txt")"
check_match "sink text: ideal" '^ ideal +1\.35 +\(96\.3% of ideal\)$' "$(cat "$TMPD/sink.txt")"
check_match "sink text: streams" \
	'^ Streams +: local cv 0\.5%; rdma from 10\.77\.0\.2: overlap 99\.5%, cv 1\.0% \(opened \+0\.030 s from the sink.s\)$' \
	"$(cat "$TMPD/sink.txt")"
check_match "sink text: valid" '^ Total is a sum  : valid: every overlap >= 99%, every variation <= 2%$' "$(cat "$TMPD/sink.txt")"
check_eq "text has no JSON" 0 "$(grep -c '[{}]' "$TMPD/sink.txt")"

# A source's words with control bytes (its drive's name, its unsteady seconds' and health
# log's notes, its rail): every line prints them escaped (\xNN), none raw, as the table does.
H=$TMPD/sink-hostile.txt
check_eq "hostile: no control byte in the text but newlines" 0 \
	"$(LC_ALL=C tr -cd '\000-\011\013-\037\177' <"$H" | wc -c)"
check_match "hostile: the UNSTEADY note, escaped" \
	'^ nv\\x1b\[2Jme0n1\\x0a forged: PASS\\x0d of source [0-9.]*: UNSTEADY window: cv 31\.0%' "$(cat "$H")"
check_match "hostile: the health note, escaped" \
	'^ nv\\x1b\[2Jme0n1\\x0a forged: PASS\\x0d of source [0-9.]*: health not read: \\x1b\[31mgone\\x0a\\x09forged$' \
	"$(cat "$H")"
check_eq "hostile: the JSON keeps the words as they are" \
	"/dev/nv\u001b[2Jme0n1\n forged: PASS\r" \
	"$(json_get "$TMPD/sink-hostile.json" 'd["drives"][2]["path"].encode("unicode_escape").decode().replace("\\x1b", "\\u001b")')"

# A live line (--interval) comes between the header and the body in text, on stderr beside JSON.
"$demo" --stream sink-live >"$TMPD/live.txt" 2>"$TMPD/live.err" || fail "sink-live exited $?"
check_eq "live line: after the header, before the body" \
	"QP timeout|[    1.0s]  local 0.90  rdma -  (no heartbeat since the last line)| Source          : 10.77.0.2 (4 workers, drives)" \
	"$(grep -A2 '^ QP timeout' "$TMPD/live.txt" | sed 's/ : 16 (268 ms per try)$//; s/^ QP timeout.*/QP timeout/' | paste -sd'|')"
check_eq "live line text: nothing on stderr" "" "$(cat "$TMPD/live.err")"
"$demo" --json --stream sink-live >"$TMPD/live.json" 2>"$TMPD/live.err" || fail "sink-live --json exited $?"
cmp -s "$TMPD/live.json" "$TMPD/sink.json" || fail "live line: the JSON differs from the sink's without it"
check_eq "live line beside JSON: on stderr" "[    1.0s]  local 0.90  rdma -  (no heartbeat since the last line)" "$(cat "$TMPD/live.err")"

# A source 3 s late: the overlap is 50% and the total is not a sum.
check_eq "late: overlap 50, not valid, named" "50 False True" \
	"$(json_get "$TMPD/sink-late.json" '"%g %s %s" % (d["streams"][1]["overlap_pct"], d["total_valid"], "overlapped the sink" in d["total_invalid_reason"])')"
check_match "late text" "NOT valid: RDMA from 10\.77\.0\.2: its window overlapped the sink's 50\.00% \(< 99%; it opened \+3\.000 s" \
	"$(cat "$TMPD/sink-late.txt")"
# Its data failed verification: not a sum either, whatever its window.
check_eq "fail: verify fail, not ok, not valid" "fail False False RDMA from 10.77.0.2: its data failed verification" \
	"$(json_get "$TMPD/sink-fail.json" '"%s %s %s %s" % (d["verify"], d["ok"], d["total_valid"], d["total_invalid_reason"])')"
# A source whose 1 s samples varied 3.456% (over --max-cv 2): the total is not a sum,
# and the reason names the stream and its variation, rounded up.
check_eq "cv: not valid, the stream and its variation named" \
	"False RDMA from 10.77.0.2: variation 3.46% (> 2%) True" \
	"$(json_get "$TMPD/sink-cv.json" '"%s %s %s" % (d["total_valid"], d["total_invalid_reason"], d["ok"])')"
check_match "cv text: NOT valid, named" \
	'^ Total is a sum  : NOT valid: RDMA from 10\.77\.0\.2: variation 3\.46% \(> 2%\)$' \
	"$(cat "$TMPD/sink-cv.txt")"
check_match "cv text: the stream's own cv" 'rdma from 10\.77\.0\.2: overlap 99\.5%, cv 3\.5%' \
	"$(cat "$TMPD/sink-cv.txt")"
check_eq "fan-in cv: the sum not valid, the second source named" \
	"False RDMA from 10.77.0.3: variation 3.46% (> 2%)" \
	"$(json_get "$TMPD/fanin-cv.json" '"%s %s" % (d["total_valid"], d["total_invalid_reason"])')"

# The source.
J=$TMPD/source.json
check_eq "source keys" "tool version role params peer workers ports drives rails local rdma total verify ok error" \
	"$(json_get "$J" '" ".join(d)')"
check_eq "source: 3 GB in 6 s, total this side, its port" "source 0.5 0.5 3000000000 rxe0 Ethernet" \
	"$(json_get "$J" '"%s %g %g %d %s %s" % (d["role"], d["rdma"]["gb_per_s"], d["total"]["gb_per_s"], d["total"]["bytes"], d["ports"][0]["device"], d["ports"][0]["link_layer"])')"
# Message rate: bytes / message size / seconds in every RDMA row (3 GB of 1 MiB WRITEs in 6 s).
check_eq "source: WRITEs/s of drive, rail, rdma, total; none without --latency" "476.837 476.837 476.837 476.837 False" \
	"$(json_get "$J" '"%g %g %g %g %s" % (d["drives"][0]["writes_per_s"], d["rails"][0]["writes_per_s"], d["rdma"]["writes_per_s"], d["total"]["writes_per_s"], "latency_us" in d["total"])')"
check_eq "sink: WRITEs/s of its RDMA rows, none of its own drives' or the mixed total" "381.47 381.47 381.47 False False False" \
	"$(json_get "$TMPD/sink.json" '"%g %g %g %s %s %s" % (d["drives"][2]["writes_per_s"], d["rails"][0]["writes_per_s"], d["rdma"]["writes_per_s"], "writes_per_s" in d["drives"][0], "writes_per_s" in d["local"], "writes_per_s" in d["total"])')"
# --latency: 1000 WRITEs, 900 at 16.383 us, 90 at 65.535, 9 at 262.143, 1 at 1048.575.
check_eq "source --latency: count, min, percentiles, max, mean" \
	"1000 16.383 16.383 16.383 65.535 262.143 1048.58 1048.58 24.0507" \
	"$(json_get "$TMPD/source-lat.json" '(l := d["total"]["latency_us"]) and " ".join("%g" % l[k] for k in ("count", "min", "p50", "p90", "p99", "p99.9", "p99.99", "max", "mean"))')"
check_match "source --latency text" '^ RDMA WRITE +latency us: min 16\.4  p50 16\.4  p90 16\.4  p99 65\.5  p99\.9 262\.1  p99\.99 1048\.6  max 1048\.6  mean 24\.1$' \
	"$(cat "$TMPD/source-lat.txt")"
check_match "source text: total" '^ total \(this side\) +3000000000 +6\.00 +0\.50 +0\.000477$' "$(cat "$TMPD/source.txt")"

# Fan-in: two sources, their sum, ideal over every drive, every overlap.
J=$TMPD/fanin.json
check_eq "fan-in keys" \
	"tool version role params sources_expected sources_admitted dram_local_bytes drives local sources rdma total ideal_gb_per_s percent_of_ideal ideal_unknown_reason streams total_valid total_invalid_reason drive_attribution verify ok error" \
	"$(json_get "$J" '" ".join(d)')"
check_eq "fan-in: per source rate and overlap" "10.77.0.2:0.3:99.83 10.77.0.3:0.2:99.67" \
	"$(json_get "$J" '" ".join("%s:%g:%.2f" % (s["peer"], s["rdma"]["gb_per_s"], s["overlap_pct"]) for s in d["sources"])')"
check_eq "fan-in: RDMA sum 0.5, total 1.4, ideal 0.45 x 4 drives" "0.5 1.4 1.8 77.8" \
	"$(json_get "$J" '"%g %g %g %.1f" % (d["rdma"]["gb_per_s"], d["total"]["gb_per_s"], d["ideal_gb_per_s"], d["percent_of_ideal"])')"
check_eq "fan-in: valid, pass, ok" "True pass True" "$(json_get "$J" '"%s %s %s" % (d["total_valid"], d["verify"], d["ok"])')"
check_match "fan-in text: source drive row" '^ rdma +10\.77\.0\.3:/dev/nvme0n1 +1200000000 +6\.00 +0\.20 +0\.000191$' "$(cat "$TMPD/fanin.txt")"
check_match "fan-in text: sum" '^ RDMA \(sum of 2\) +3000000000 +6\.00 +0\.50 +0\.000477$' "$(cat "$TMPD/fanin.txt")"
J=$TMPD/fanin-missing.json
check_eq "fan-in, one missing: named, no ideal, not valid, not ok" \
	"3 2 None None False 1 of 3 sources never came False 1 of 3 sources never came" \
	"$(json_get "$J" '"%d %d %s %s %s %s %s %s" % (d["sources_expected"], d["sources_admitted"], d["sources"][2]["peer"], d["ideal_gb_per_s"], d["total_valid"], d["total_invalid_reason"], d["ok"], d["error"])')"
check_match "fan-in text: missing" '^ MISSING: source 3 of 3: none came' "$(cat "$TMPD/fanin-missing.txt")"
check_match "fan-in text: incomplete" '^ RDMA data verification: incomplete \(2 of 3 sources PASS\)$' "$(cat "$TMPD/fanin-missing.txt")"

# --bidir: both documents, the sum, the overlap of the received window with the sent one.
J=$TMPD/bidir.json
check_eq "bidir keys" "tool version role receive send bidir exit_status" "$(json_get "$J" '" ".join(d)')"
check_eq "bidir: roles" "bidir sink source 0" \
	"$(json_get "$J" '"%s %s %s %d" % (d["role"], d["receive"]["role"], d["send"]["role"], d["exit_status"])')"
check_eq "bidir: send 0.5 + receive 0.4 = 0.9, overlap 99.5, valid" "0.5 0.4 0.9 99.5 True None" \
	"$(json_get "$J" '(b := d["bidir"]) and "%g %g %g %g %s %s" % (b["send_gb_per_s"], b["receive_gb_per_s"], b["sum_gb_per_s"], b["overlap_pct"], b["sum_valid"], b["sum_invalid_reason"])')"
check_eq "bidir: each direction's bytes" "3000000000 2400000000" \
	"$(json_get "$J" '"%d %d" % (d["send"]["rdma"]["bytes"], d["receive"]["rdma"]["bytes"])')"
T=$(cat "$TMPD/bidir.txt")
check_match "bidir text: sum line" '^ sum of both directions +0\.900  \(valid\)$' "$T"
check_match "bidir text: overlap" '^ windows overlap +99\.50%$' "$T"

# A rail above its line rate (an emulated or misreported port): no percentage of it.
J=$TMPD/sink-over.json
check_eq "rail above its line rate: no percentage, flagged" "None True" \
	"$(json_get "$J" '"%s %s" % (d["rails"][0]["percent_of_line_rate"], d["rails"][0]["above_line_rate"])')"
check_eq "rail within its line rate: not flagged" "False" \
	"$(json_get "$TMPD/sink.json" '"%s" % d["rails"][0]["above_line_rate"]')"
check_match "rail above its line rate: 'above' in the text" 'rxe0:1 +-> rxe0:1 .* above$' "$(cat "$TMPD/sink-over.txt")"

# -a: a document per size, then the curve and its verdict.
J=$TMPD/sizes.json
check_eq "-a keys" "tool version role sizes sweep complete" "$(json_get "$J" '" ".join(d)')"
check_eq "-a: three runs, their chunks" "65536 131072 262144" "$(json_get "$J" '" ".join(str(s["params"]["chunk"]) for s in d["sizes"])')"
check_eq "-a: points, line rate, verdict, incomplete" "0.3/24 0.45/36 0.5/40 1.25 rising False" \
	"$(json_get "$J" '" ".join("%g/%g" % (p["gb_per_s"], p["percent_of_line_rate"]) for p in d["sweep"]["points"]) + " %g %s %s" % (d["sweep"]["line_rate_gb_per_s"], d["sweep"]["verdict"]["kind"], d["complete"])')"
check_eq "-a: WRITEs/s per point = rate / size" "4577.64 3433.23 1907.35" \
	"$(json_get "$J" '" ".join("%g" % p["writes_per_s"] for p in d["sweep"]["points"])')"
check_match "-a text: a point" '^ 64KiB +0\.300 +0\.004578 +24\.0$' "$(cat "$TMPD/sizes.txt")"
check_match "-a text: stopped" '^ \(-a stopped after 3 of 7 sizes\)$' "$(cat "$TMPD/sizes.txt")"
# -a without --verbose: a line per size as ib_write_bw -a (#bytes, #iterations = WRITEs
# landed, BW peak = average: no per-second samples are kept, MsgRate), no whole reports;
# its JSON is --verbose's.
B=$TMPD/sizes-brief.txt
# The bandwidth in ib_write_bw's own unit, MB/sec of 2^20 bytes (0.3 GB/s = 286.10 MB/sec),
# so that a script reading its columns reads the same figure; --report_gbits: Gb/sec.
check_eq "-a brief: a line per size (0.3 GB/s x 6 s / 64 KiB = 27465 WRITEs)" \
	"65536 27465 286.10 286.10 0.004578|131072 20599 429.15 429.15 0.003433|262144 11444 476.84 476.84 0.001907" \
	"$(grep -E '^ [0-9]+ ' "$B" | sed 's/^ //; s/  */ /g' | paste -sd'|')"
G=$TMPD/sizes-gbits.txt
check_eq "-a --report_gbits: 0.3 GB/s = 2.40 Gb/sec" "65536 27465 2.40 2.40 0.004578" \
	"$(grep -E '^ 65536 ' "$G" | sed 's/^ //; s/  */ /g')"
check_eq "-a brief: no whole report" "0 0" "$(grep -c 'message size\|^ Sink ' "$B") $(grep -c 'rail: local' "$B")"
check_match "-a brief: the curve's verdict still" '^ verdict: still rising' "$(cat "$B")"
cmp -s "$TMPD/sizes-brief.json" "$TMPD/sizes.json" || fail "-a brief: the JSON differs from --verbose's"
finish
