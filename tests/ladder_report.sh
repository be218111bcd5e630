#!/bin/bash
# scripts/ladder_report on fixture runs: the reference platform
# (tests/fixtures/ladder/ref: two nodes of 3 Gen3 x4 drives at 3.57 GB/s, link
# ceiling 3.6 usable, one 400G NDR port each, end to end 21.41 GB/s) names the
# drives' PCIe links as binding with the figures of the reference; the same run
# with a slow software fabric (no line rate, as rxe in the lab) names the
# fabric; a short end to end names the sink's host. ladder.json keys, the PNG's
# size from its IHDR, usage errors (exit 2, one line).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lib.sh"
LADDER="$abs_top_srcdir/scripts/ladder_report"
REF=$FIXTURES/ladder/ref
R=$TMPD/ref
cp -r "$REF" "$R"

"$LADDER" "$R" >"$TMPD/out" 2>"$TMPD/err"
check_eq "reference: exit status" 0 $?
L=$R/ladder.json
check_eq "binding rung: the drive links" "drive links" "$(json_get "$L" 'd["binding"]["rung"]')"
check_eq "the sentence" "the drives' PCIe links bind: each drive at 99% of its Gen3 x4 ceiling; the fabric carried 21% of one port." \
	"$(tail -n1 "$TMPD/out")"
check_eq "ladder.txt = the printed ladder" "$(cat "$TMPD/out")" "$(cat "$R/ladder.txt")"
check_eq "every rung has the keys" True \
	"$(json_get "$L" 'all(set(r) >= {"name", "node", "measured_gb_per_s", "ceiling_gb_per_s", "pct_of_ceiling", "cpu_s_per_gib"} for r in d["rungs"])')"
check_eq "rungs of a" "['link', 'drive nvme0n1', 'drive nvme1n1', 'drive nvme2n1', 'drives together', 'fabric (mem)', 'end to end']" \
	"$(json_get "$L" '[r["name"] for r in d["rungs"] if r["node"] == "a"]')"
check_eq "rungs of b" "['link', 'drive nvme0n1', 'drive nvme1n1', 'drive nvme2n1', 'drives together', 'fabric (mem)', 'ib_write_bw', 'end to end (sent)']" \
	"$(json_get "$L" '[r["name"] for r in d["rungs"] if r["node"] == "b"]')"
rung() { # rung NAME NODE EXPR: EXPR on the rung r
	json_get "$L" "[$3 for r in d['rungs'] if r['name'] == '$1' and r['node'] == '$2'][0]"
}
check_eq "drive alone: 3.57 of 3.6 = 99.2%" "3.57 3.6 99.2" "$(rung 'drive nvme0n1' a '"%.2f %.1f %.1f" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"])')"
check_eq "drives together: ceiling = 3 x 3.6" "10.71 10.80 99.2 0.052" \
	"$(rung 'drives together' a '"%.2f %.2f %.1f %.3f" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["cpu_s_per_gib"])')"
check_eq "link: the usable ceilings summed, no ceiling above" "10.80 None" "$(rung link b '"%.2f %s" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"])')"
check_eq "fabric: one NDR port (50 GB/s) below the NIC's PCIe (56.7)" "45.91 50.00 91.8 56.70" \
	"$(rung 'fabric (mem)' b '"%.2f %.2f %.1f %.2f" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["nic_pcie_gb_per_s"])')"
check_eq "ib_write_bw: 392.52 Gb/s / 8" "49.06" "$(rung ib_write_bw b '"%.2f" % r["measured_gb_per_s"]')"
check_eq "end to end: 21.41 of the rungs below (10.71 + 10.70) = 100%" "21.41 21.41 100.0" \
	"$(rung 'end to end' a '"%.2f %.2f %.1f" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"])')"
check_match "the table: one row per rung" '^end to end +a +21\.41 +21\.41 +100\.0 +0\.050$' "$(cat "$TMPD/out")"

# The lab's shape: a software fabric (rxe: no line rate) far below the drives.
F=$TMPD/lab
cp -r "$REF" "$F"
rm -f "$F/ib_write_bw-b.txt"
"$PYTHON3" - "$F" <<'PY'
import json, sys
d = sys.argv[1]
for name, rdma, local in (("fabric-a", 0.045, 0), ("fabric-b", 0.046, 0), ("aggregate-a", 0.031, 0.62),
                          ("aggregate-b", 0.031, 0)):
    j = json.load(open("%s/%s.json" % (d, name)))
    for r in j["rails"]:
        r["line_rate_gb_per_s"] = r["percent_of_line_rate"] = None
        r["local_dev"] = "rxe0"
    j["rdma"]["gb_per_s"], j["local"]["gb_per_s"] = rdma, local
    j["total"]["gb_per_s"] = rdma + local
    json.dump(j, open("%s/%s.json" % (d, name), "w"))
PY
"$LADDER" "$F" >"$TMPD/out" 2>&1
check_eq "lab shape: exit status" 0 $?
check_eq "lab shape: the fabric binds" fabric "$(json_get "$F/ladder.json" 'd["binding"]["rung"]')"
check_match "lab shape: the evidence" '^the fabric binds: from memory it carried 0\.05 GB/s \(no known line rate\), 0% of what b.s drives read together \(10\.70 GB/s\); end to end the remote part arrived at 0\.03 GB/s\.$' \
	"$(tail -n1 "$TMPD/out")"
check_eq "lab shape: fabric without a ceiling" None "$(json_get "$F/ladder.json" '[r["ceiling_gb_per_s"] for r in d["rungs"] if r["name"] == "fabric (mem)"][0]')"

# A short end to end: drives and fabric fine, the sink's host falls short.
E=$TMPD/e2e
cp -r "$REF" "$E"
"$PYTHON3" -c 'import json,sys
p = sys.argv[1] + "/aggregate-a.json"; j = json.load(open(p)); j["total"]["gb_per_s"] = 15.0; json.dump(j, open(p, "w"))' "$E"
"$LADDER" "$E" >"$TMPD/out" 2>&1
check_eq "short end to end: binds" "end to end" "$(json_get "$E/ladder.json" 'd["binding"]["rung"]')"
check_match "short end to end: the evidence" '15\.00 GB/s is 70% of the rungs below \(21\.41 GB/s\)' "$(tail -n1 "$TMPD/out")"

# The chart.
if command -v gnuplot >/dev/null; then
	"$LADDER" --no-write --png "$TMPD/l.png" --size 640x480 "$R" >/dev/null 2>&1
	check_eq "PNG: exit status" 0 $?
	check_eq "PNG: size from its IHDR" 640x480 "$("$PYTHON3" -c 'import struct,sys
h = open(sys.argv[1], "rb").read(24)
print("%dx%d" % struct.unpack(">II", h[16:24]) if h[:8] == b"\x89PNG\r\n\x1a\n" and h[12:16] == b"IHDR" else "not a PNG")' "$TMPD/l.png")"
	expect_exit 1 'gnuplot not found: .*gnuplot-nox' env GNUPLOT=/nonexistent/gnuplot "$LADDER" --no-write --png "$TMPD/x.png" "$R"
fi

expect_exit 2 'no run directory given' "$LADDER"
expect_exit 2 "unknown option '--fast'" "$LADDER" --fast "$R"
expect_exit 2 '--size 10x10: WxH' "$LADDER" --size 10x10 "$R"
expect_exit 2 'not a directory' "$LADDER" "$TMPD/none"
mkdir "$TMPD/empty"
expect_exit 1 'no ladder results' "$LADDER" "$TMPD/empty"
finish
