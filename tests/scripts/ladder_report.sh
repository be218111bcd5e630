#!/bin/bash
# scripts/ladder_report on fixture runs: the reference platform
# (tests/fixtures/ladder/ref: two nodes of 3 Gen3 x4 drives at 3.57 GB/s, link
# ceiling 3.6 usable, one 400G NDR port each, end to end 21.41 GB/s) names the
# drives' PCIe links as binding with the figures of the reference; the same run
# with a slow software fabric (no line rate, as rxe in the lab) names the
# fabric; a short end to end names the sink's host. ladder.json keys, the PNG's
# size from its IHDR, usage errors (exit 2, one line). The binding rung named
# as in the rungs (name and node). The upper rungs (tests/fixtures/ladder/upper:
# iperf3 -J of 1 and 8 streams, nvme_read_bw through NFS/RDMA and NFS/TCP
# mounts, nfsstat -m): their place in the ladder, figures, ceilings, the notes,
# the window hint both ways, the random 4 KiB table.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
LADDER="$abs_top_srcdir/scripts/ladder_report"
REF=$FIXTURES/ladder/ref
R=$TMPD/ref
cp -r "$REF" "$R"

"$LADDER" "$R" >"$TMPD/out" 2>"$TMPD/err"
check_eq "reference: exit status" 0 $?
L=$R/ladder.json
check_eq "binding rung: the drive links" "drive links" "$(json_get "$L" 'd["binding"]["rung"]')"
check_eq "binding rung: the drive furthest below its link, by name and node" "drive nvme1n1 b 1" \
	"$(json_get "$L" '"%s %s %d" % (d["binding"]["name"], d["binding"]["node"], sum(r["name"] == d["binding"]["name"] and r["node"] == d["binding"]["node"] for r in d["rungs"]))')"
check_eq "the sentence" "the drives' PCIe links bind: each drive at 99% of its Gen3 x4 ceiling; the fabric carried 21% of one port." \
	"$(tail -n1 "$TMPD/out")"
check_eq "ladder.txt = the printed ladder" "$(cat "$TMPD/out")" "$(cat "$R/ladder.txt")"
check_eq "every rung has the keys" True \
	"$(json_get "$L" 'all(set(r) >= {"name", "kind", "node", "measured_gb_per_s", "ceiling_gb_per_s", "pct_of_ceiling", "cpu_s_per_gib"} for r in d["rungs"])')"
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
check_eq "link: a ceiling (the usable ceilings summed), nothing measured" "None 10.80 None" "$(rung link b '"%s %.2f %s" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"])')"
check_match "link: the table's measured column is empty" '^link +b +- +10\.80 +- +-$' "$(cat "$TMPD/out")"
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
check_match "lab shape: the evidence" '^the fabric binds: from memory it carried 0\.046 GB/s \(no known line rate\), 0% of what b.s drives read together \(10\.70 GB/s\); end to end the remote part arrived at 0\.031 GB/s\.$' \
	"$(tail -n1 "$TMPD/out")"
check_eq "lab shape: the binding rung is the source's fabric" "fabric (mem) b" "$(json_get "$F/ladder.json" '"%s %s" % (d["binding"]["name"], d["binding"]["node"])')"
check_eq "lab shape: fabric without a ceiling" None "$(json_get "$F/ladder.json" '[r["ceiling_gb_per_s"] for r in d["rungs"] if r["name"] == "fabric (mem)"][0]')"

# A short end to end: drives and fabric fine, the sink's host falls short.
E=$TMPD/e2e
cp -r "$REF" "$E"
"$PYTHON3" -c 'import json,sys
p = sys.argv[1] + "/aggregate-a.json"; j = json.load(open(p)); j["total"]["gb_per_s"] = 15.0; json.dump(j, open(p, "w"))' "$E"
"$LADDER" "$E" >"$TMPD/out" 2>&1
check_eq "short end to end: binds" "end to end" "$(json_get "$E/ladder.json" 'd["binding"]["rung"]')"
check_eq "short end to end: the rung" "end to end a" "$(json_get "$E/ladder.json" '"%s %s" % (d["binding"]["name"], d["binding"]["node"])')"
check_match "short end to end: the evidence" '15\.00 GB/s is 70% of the rungs below \(21\.41 GB/s\)' "$(tail -n1 "$TMPD/out")"

# The upper rungs beside the reference run.
U=$TMPD/upper
cp -r "$REF" "$U"
cp "$FIXTURES"/ladder/upper/* "$U"
"$LADDER" "$U" >"$TMPD/out" 2>&1
check_eq "upper: exit status" 0 $?
L=$U/ladder.json
check_eq "upper: rungs of b in the ladder's order" "['link', 'drive nvme0n1', 'drive nvme1n1', 'drive nvme2n1', 'drives together', 'tcp (1 stream)', 'tcp (8 streams)', 'fabric (mem)', 'ib_write_bw', 'nfs_rdma', 'nfs_tcp', 'end to end (sent)']" \
	"$(json_get "$L" '[r["name"] for r in d["rungs"] if r["node"] == "b"]')"
check_eq "upper: the server's iperf3 JSON on a makes no rung" "[]" "$(json_get "$L" '[r["name"] for r in d["rungs"] if r["node"] == "a" and r["kind"] == "tcp"]')"
check_eq "upper: binding unchanged, named" "drive links drive nvme1n1 b" "$(json_get "$L" '" ".join(d["binding"][k] for k in ("rung", "name", "node"))')"
rung() { # rung NAME NODE EXPR: EXPR on the rung r
	json_get "$L" "[$3 for r in d['rungs'] if r['name'] == '$1' and r['node'] == '$2'][0]"
}
# 8.1 GB/s x 20 s = 150.87 GiB; 99% and 70% of 20 s of CPU: 0.131 and 0.093 s/GiB.
check_eq "tcp 1: GB/s, ceiling = the port, retransmits, cwnd, rtt, CPU both ends" "8.10 50.00 16.2 12 1200000 40 0.131 0.093" \
	"$(rung 'tcp (1 stream)' b '"%.2f %.2f %.1f %d %d %.0f %.3f %.3f" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["retransmits"], r["max_snd_cwnd_bytes"], r["mean_rtt_us"], r["cpu_s_per_gib"], r["receiver_cpu_s_per_gib"])')"
check_eq "tcp 8: GB/s, streams, retransmits, mean rtt over 8 streams (50..57)" "24.80 8 615 53.5" \
	"$(rung 'tcp (8 streams)' b '"%.2f %d %d %.1f" % (r["measured_gb_per_s"], r["streams"], r["retransmits"], r["mean_rtt_us"])')"
check_eq "nfs_rdma: against the raw RDMA fabric, rsize, proto" "14.50 45.91 31.6 fabric (mem) 1048576 rdma 3" \
	"$(rung nfs_rdma b '"%.2f %.2f %.1f %s %d %s %s" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["ceiling_rung"], r["rsize"], r["proto"], r["vers"])')"
check_eq "nfs_tcp: against one TCP stream, rsize" "3.20 8.10 39.5 tcp (1 stream) 524288 tcp" \
	"$(rung nfs_tcp b '"%.2f %.2f %.1f %s %d %s" % (r["measured_gb_per_s"], r["ceiling_gb_per_s"], r["pct_of_ceiling"], r["ceiling_rung"], r["rsize"], r["proto"])')"
check_match "upper: the TCP vs RDMA note" '^TCP vs RDMA: tcp \(8 streams\) carried 24\.80 GB/s, 54% of the RDMA fabric from memory \(45\.91 GB/s\); CPU s/GiB: TCP sender 0\.041, receiver 0\.026; RDMA source 0\.003, sink 0\.000\.$' "$(cat "$TMPD/out")"
# 24.8 GB/s x 40 us = 992000 bytes = 968.8 KiB, below tcp_rmem's 6 MiB.
check_match "upper: the window hint, buffers large enough" '^window hint: one TCP stream carried 33% of tcp \(8 streams\); to carry 24\.80 GB/s at its round trip of 40 us a stream needs a window of 968\.8 KiB \(bandwidth-delay product\); the receiver a allows net\.ipv4\.tcp_rmem max 6\.0 MiB, net\.core\.rmem_max 208\.0 KiB: the buffers are not the limit' "$(cat "$TMPD/out")"
check_match "upper: the NFS note" '^NFS vs its transport, 1 MiB sequential reads: nfs_rdma 14\.50 GB/s \(32% of fabric \(mem\)\) rsize 1\.0 MiB; nfs_tcp 3\.20 GB/s \(40% of tcp \(1 stream\)\) rsize 512\.0 KiB\.$' "$(cat "$TMPD/out")"
check_match "upper: random table row, depth 16" '^ +16 +190000 +82 +160 +47500 +330 +820 +4\.00x$' "$(cat "$TMPD/out")"
check_eq "upper: nfs_random in ladder.json" "[(8, 160000, 47000, 95.0, 410.0), (16, 190000, 47500, 160.0, 820.0), (32, 200000, 46800, 300.0, 1700.0)]" \
	"$(json_get "$L" '[(r["depth"], r["rdma"]["iops"], r["tcp"]["iops"], r["rdma"]["p99_us"], r["tcp"]["p99_us"]) for r in d["nfs_random"]]')"
check_eq "upper: notes in ladder.json = the printed ones" 3 "$(json_get "$L" 'len(d["notes"])')"
check_eq "upper: ladder.txt = the printed ladder" "$(cat "$TMPD/out")" "$(cat "$U/ladder.txt")"
# A small receive buffer: the hint says it caps one stream.
printf 'net.core.rmem_max = 212992\nnet.ipv4.tcp_rmem = 4096 131072 524288\n' >"$U/tcp-sysctl-a.txt"
check_match "upper: the window hint, tcp_rmem below the product" 'tcp_rmem max 512\.0 KiB, .*: the receive buffer caps one stream \(raise net\.ipv4\.tcp_rmem.s max and net\.core\.rmem_max\)\.$' \
	"$("$LADDER" --no-write "$U" 2>&1 | grep '^window hint')"
# One stream close to eight: no hint.
"$PYTHON3" -c 'import json,sys
p = sys.argv[1] + "/tcp1-b.json"; j = json.load(open(p)); j["end"]["sum_received"]["bits_per_second"] = 20e9 * 8; json.dump(j, open(p, "w"))' "$U"
check_eq "upper: one stream at 81% of eight: no hint" "" "$("$LADDER" --no-write "$U" 2>&1 | grep '^window hint')"
# Only the upper rungs (run_bench.sh tcp, nfs): no binding rung, said so.
T=$TMPD/tcponly
mkdir "$T"
cp "$FIXTURES"/ladder/upper/tcp* "$T"
"$LADDER" "$T" >"$TMPD/out" 2>&1
check_eq "tcp only: exit status" 0 $?
check_eq "tcp only: no binding rung" "None None None" "$(json_get "$T/ladder.json" '"%s %s %s" % (d["binding"]["rung"], d["binding"]["name"], d["binding"]["node"])')"
check_eq "tcp only: the rungs, no ceiling" "tcp (1 stream) b None|tcp (8 streams) b None" \
	"$(json_get "$T/ladder.json" '"|".join("%s %s %s" % (r["name"], r["node"], r["ceiling_gb_per_s"]) for r in d["rungs"])')"
# A failed iperf3 (its JSON holds only an error): no rung, no crash.
N=$TMPD/tcpfail
mkdir "$N"
printf '{"start": {"connecting_to": {"host": "x"}}, "end": {}, "error": "unable to connect"}\n' >"$N/tcp1-b.json"
cp "$FIXTURES"/ladder/upper/nfs_tcp-b.json "$N"
"$LADDER" "$N" >"$TMPD/out" 2>&1
check_eq "failed iperf3: exit status, the NFS rung alone" "0 ['nfs_tcp'] None" \
	"$? $(json_get "$N/ladder.json" '"%s %s" % ([r["name"] for r in d["rungs"]], d["rungs"][0]["ceiling_gb_per_s"])')"

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
