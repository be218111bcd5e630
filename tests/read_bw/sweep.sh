#!/bin/bash
# nvme_read_bw --sweep-threads and --sweep-chunk on pattern files: a point per
# value (the list given with '=' or as the next argument, or the defaults), a
# table and a verdict per drive in text, and in JSON per drive "sweep" points
# and a "verdict" whose kind is one of the four (files have no link ceiling:
# no_ceiling or rising), totals with CPU per GiB.
. "$(dirname "$0")/../lib.sh"
B="$NVME_READ_BW"
make_pattern "$TMPD/p0" $((8 * 1024 * 1024)) 0
make_pattern "$TMPD/p1" $((8 * 1024 * 1024)) 1
W=(--warmup 0 -D 0.3)

"$B" --disks "$TMPD/p0,$TMPD/p1" --sweep-threads 1,2,4 -s 64K "${W[@]}" --json >"$TMPD/t.json" 2>"$TMPD/t.err"
check_eq "--sweep-threads LIST: exit status" 0 $?
J=$TMPD/t.json
check_eq "JSON: the swept variable and mode" "threads sweep-threads" "$(json_get "$J" 'd["swept"], d["params"]["mode"]' | tr -d "(),'")"
check_eq "JSON: per drive the points" "[1, 2, 4] [1, 2, 4]" "$(json_get "$J" '" ".join(str([p["threads"] for p in x["sweep"]]) for x in d["drives"])')"
check_eq "JSON: every point measured" True "$(json_get "$J" 'all(p["gb_per_s"] > 0 for x in d["drives"] for p in x["sweep"])')"
check_eq "JSON: files have no link ceiling" "None None" "$(json_get "$J" '" ".join(str(x["link_ceiling_gb_per_s"]) for x in d["drives"])')"
check_eq "JSON: a verdict per drive with a kind" True \
	"$(json_get "$J" 'all(x["verdict"]["kind"] in ("no_ceiling", "rising") and x["verdict"]["flat_from"] in (1, 2, 4) and x["verdict"]["text"] and x["verdict"]["max_gb_per_s"] == max(p["gb_per_s"] for p in x["sweep"]) for x in d["drives"])')"
check_eq "JSON: totals per point with CPU s/GiB" "3 True" "$(json_get "$J" 'len(d["totals"]), all(t["cpu_s_per_gib"] > 0 for t in d["totals"])' | tr -d '(),')"

"$B" --disks "$TMPD/p0" --sweep-chunk=64K,256K "${W[@]}" >"$TMPD/c.txt" 2>"$TMPD/c.err"
check_eq "--sweep-chunk=LIST: exit status" 0 $?
check_match "text: the drive's table" 'chunk +GB/s +% of link' "$(cat "$TMPD/c.txt")"
check_match "text: a row per chunk" '256KiB +[0-9]+\.[0-9]{2} +-' "$(cat "$TMPD/c.txt")"
check_match "text: the verdict line" '^   verdict: (flat from 64KiB|flat from 256KiB|still rising at 256KiB)' "$(cat "$TMPD/c.txt")"
check_match "progress on stderr" 'point 2/2: 256KiB' "$(cat "$TMPD/c.err")"

# Defaults: 1,2,4,8,12,16,24,48 threads; 64K..4M by powers of two.
"$B" --disks "$TMPD/p0" --sweep-threads -s 64K --warmup 0 -D 0.1 --json >"$TMPD/d.json" 2>/dev/null
check_eq "--sweep-threads: the default points" "[1, 2, 4, 8, 12, 16, 24, 48]" "$(json_get "$TMPD/d.json" '[p["threads"] for p in d["drives"][0]["sweep"]]')"
"$B" --disks "$TMPD/p0" --sweep-chunk --warmup 0 -D 0.1 --json >"$TMPD/d.json" 2>/dev/null
check_eq "--sweep-chunk: the default points" "64K 128K 256K 512K 1024K 2048K 4096K" "$(json_get "$TMPD/d.json" '" ".join("%dK" % (p["chunk"] // 1024) for p in d["drives"][0]["sweep"])')"
finish
