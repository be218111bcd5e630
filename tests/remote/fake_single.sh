#!/bin/bash
# fake_single.sh: one sink and one source of nvme_write_bw_remote over the fake fabric
# (tests/remote/fake_fabric.c, no RDMA device): what landed in the sink's memory is what
# the source wrote (--verify full and --dump-slice checked against the memory pattern),
# both sides count the same bytes, the rails pair the ports by subnet, and the JSON and
# text reports carry the figures; verbs and rdma_cm connections, memory and drive sources
# (files), the sink's own drive readers and its live lines; 4 KiB messages: the message rate
# in every row and the source's --latency percentiles; a drive source on io_uring.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"

# 1. Verbs, memory source, --verify full, the slice dumped: every slot holds the pattern.
# Two 1 s samples (-D 2.2) so that the variation is known.
pair mem "--no-local --dram 4M --json --verify full --min-overlap 10 --max-cv 100 -D 2.2 --dump-slice $TMPD/slice" \
	"--source mem -q 2 --verify full --json -D 2.2"
check_eq "mem: exits" "0 0" "$SINK_RC $SRC_RC"
jv mem-src 'd["verify"]' 'd["rdma"]["bytes"]' 'd["workers"]'
src_verify=${J[0]} src_bytes=${J[1]}
check_eq "mem: source verdict and workers" "pass 2" "$src_verify ${J[2]}"
jv mem-sink 'd["verify"]' 'd["verify_detail"]' 'd["rdma"]["bytes"]' 'd["rdma"]["bytes"] >= 65536 * 10' \
	'sum(r["bytes"] for r in d["rails"])' \
	'" ".join("%s:%d>%s:%d/%d" % (r["local_dev"], r["local_port"], r["remote_dev"], r["remote_port"], r["qps"]) for r in d["rails"])' \
	'" ".join(str(r["line_rate_gb_per_s"]) for r in d["rails"])' \
	'd["workers"], d["slice_bytes"] >= 3 * 65536 and d["slice_bytes"] % 65536 == 0' \
	'd["rdma_reported_by"]' \
	'd["total_valid"] == (d["streams"][0]["overlap_pct"] >= 10)' \
	'd["params"]["verify_mode"], d["params"]["connection"], d["params"]["source"], d["params"]["chunk"], d["params"]["depth"], d["params"]["dram"]' \
	'd["ok"], d["error"], d["peer"]'
check_eq "mem: sink verdict" "pass" "${J[0]}"
check_match "mem: canaries and every slice slot match" "^2 canary chunks and [1-9][0-9]* slice slots match$" "${J[1]}"
check_eq "mem: bytes landed = bytes sent" "$src_bytes" "${J[2]}"
check_eq "mem: some bytes moved" True "${J[3]}"
check_eq "mem: rails add up to the RDMA bytes" "${J[2]}" "${J[4]}"
check_eq "mem: a rail per subnet, one QP each" "fake0:1>fake0:1/1 fake1:1>fake1:1/1" "${J[5]}"
check_eq "mem: line rate of a fake port (100 Gb/s)" "12.5 12.5" "${J[6]}"
check_eq "mem: 2 workers, slices of >= 3 slots (the DRAM split)" "(2, True)" "${J[7]}"
check_eq "mem: reported by the result" "result" "${J[8]}"
check_eq "mem: sum valid exactly when overlap >= --min-overlap and cv <= --max-cv" "True" "${J[9]}"
check_eq "mem: the sink's params" "('full', 'verbs', 'mem', 65536, 2, 4194304)" "${J[10]}"
check_eq "mem: ok, no error, the peer" "(True, None, '127.0.0.1')" "${J[11]}"
# The memory source's pattern: each 8-byte word is 0x4d << 56 | worker << 40 | offset.
"$PYTHON3" - "$TMPD/slice" >"$TMPD/pattern" <<'EOF'
import struct, sys
data = open(sys.argv[1], "rb").read()
bad = slots = 0
for line in open(sys.argv[1] + ".map"):
    slot, off, ln = (int(x) for x in line.split())
    words = struct.unpack_from("<%dQ" % (ln // 8), data, slot * 65536)
    slots += 1
    bad += sum(1 for i, w in enumerate(words) if w != (0x4d << 56 | 0 << 40 | (off + 8 * i)))
print(slots > 1, bad)
EOF
check_eq "mem: dumped slice holds worker 0's pattern at every mapped slot" "True 0" "$(cat "$TMPD/pattern")"

# 2. rdma_cm on one rail (-d fake1 on the source), a file as the source's drive, another
# as the sink's own drive, live lines every 0.5 s, text output.
f=$TMPD/src.img
g=$TMPD/local.img
make_pattern "$f" $((8 * 1024 * 1024)) 1
make_pattern "$g" $((8 * 1024 * 1024)) 2
pair cm "-R --local-disks $g -q 1 --dram 8M --interval 0.5" "-R --disks $f -d fake1 -q 2 --json"
check_eq "cm: sink exit" 0 "$SINK_RC"
check_eq "cm: source exit" 0 "$SRC_RC"
out=$(cat "$TMPD/cm-sink.out")
check_match "cm: connection said" "Connection +: rdma_cm" "$out"
check_match "cm: verdict" "RDMA data verification: PASS \(canary, 2 canary chunks match\)" "$out"
check_match "cm: the sink's own drive read" "local +$g +[1-9][0-9]+ " "$out"
check_match "cm: the source's drive as it reported it" "rdma +$f +[1-9][0-9]+ " "$out"
check_match "cm: one rail, fake1 to fake1, both QPs" "fake1:1 +-> fake1:1 +2 " "$out"
# The first line's stamp is the interval's end as the timer met it: 0.5 s, later on a
# loaded host (0.6 s was seen), never before it.
check_match "cm: live lines" "\[ +0\.[5-9]s\] +local [0-9.]+ +rdma" "$out"
check_match "cm: ideal from the local drive rate" "ideal +[0-9.]+ +\([0-9.]+% of ideal\)" "$out"
jv cm-src 'd["rdma"]["bytes"]' 'd["drives"][0]["bytes"]' 'd["rails"][0]["local_dev"], d["rails"][0]["remote_dev"], d["rails"][0]["qps"]'
check_eq "cm: bytes of the source's drive = its RDMA bytes" "${J[0]}" "${J[1]}"
check_match "cm: the sink counts what the source sent" "RDMA \(2 QPs\) +${J[0]} " "$out"
check_eq "cm: the source's rail" "('fake1', 'fake1', 2)" "${J[2]}"
# The source's own drive: its seconds' shape and its health log ("not read" for a file,
# with the reason, never zeros).
jv cm-src 'd["drives"][0]["health"]["log_read"], d["drives"][0]["health"]["why"]' \
	'"before" in d["drives"][0]["health"]' \
	'd["drives"][0]["min_gb_per_s"] <= d["drives"][0]["median_gb_per_s"] <= d["drives"][0]["max_gb_per_s"]' \
	'type(d["drives"][0]["unsteady"]).__name__'
check_eq "cm: the source's drive health: not read, why" "(False, 'not read: $f is a regular file')" "${J[0]}"
check_eq "cm: no reading in its place" False "${J[1]}"
check_eq "cm: the source's drive seconds: min <= median <= max" True "${J[2]}"
check_eq "cm: the source's drive flagged steady or not" bool "${J[3]}"
# A file has no PCI function: the rails by affinity fall back to the NUMA rule and say why.
jv cm-src 'd["rail_affinity"]["mode"]' 'd["rail_affinity"]["reason"]'
check_eq "cm: rails by numa (a file drive)" "numa" "${J[0]}"
check_match "cm: why not pcie" "^pcie not possible: " "${J[1]}"

# 3. --no-verify, -q 1: said OFF on both sides; the source's text report.
# The link options travel in the HELLO (both sides give the same) and are said.
LINK="--mtu 1024 --sl 3 --tclass 106 -u 14 -x 1"
pair off "--no-local --dram 4M --no-verify --json --bind any $LINK" "--source mem --no-verify $LINK"
check_eq "off: exits" "0 0" "$SINK_RC $SRC_RC"
jv off-sink 'd["verify"]' 'd["params"]["mtu"], d["params"]["sl"], d["params"]["tclass"], d["params"]["qp_timeout"]' \
	'd["params"]["listen"]'
check_eq "off: sink verdict" "off" "${J[0]}"
check_eq "off: link options" "(1024, 3, 106, 14)" "${J[1]}"
check_eq "off: --bind any" "every address" "${J[2]}"
check_match "off: the source's text says the link options" "MTU/SL/TClass +: 1024/3/106" "$(cat "$TMPD/off-src.out")"
check_match "off: source says so" "RDMA data verification: OFF" "$(cat "$TMPD/off-src.out")"
check_match "off: source's rails" "fake0:1 +-> fake0:1 +1 " "$(cat "$TMPD/off-src.out")"

# 4. Small blocks: -s 4K, the source with --latency. Its message rate is its bytes / 4 KiB /
# seconds in every row, the sink's the same; the latency histogram holds the window's
# WRITEs (as many as its bytes say, give or take those completing while the window's
# thread sets the flag and reads the counters at either end: 5%, or the 16 in flight), in
# order min <= p50 <= ... <= max; without --latency (section 1) there is none.
# JSON numbers carry 6 significant digits: rates are compared within 2e-5.
jv mem-src '"latency_us" in d["total"]'
check_eq "no --latency: no latency_us" False "${J[0]}"
pair small "--no-local --dram 4M --json -s 4K -t 4" "--source mem -q 2 -s 4K -t 4 --latency --json"
check_eq "small: exits" "0 0" "$SINK_RC $SRC_RC"
jv small-src 'd["params"]["chunk"]' \
	'(t := d["total"]) and abs(t["writes_per_s"] - t["bytes"] / 4096 / t["seconds"]) <= 2e-5 * t["writes_per_s"]' \
	'abs(d["rdma"]["writes_per_s"] - d["total"]["writes_per_s"]) <= 2e-5 * d["total"]["writes_per_s"]' \
	'abs(sum(r["writes_per_s"] for r in d["rails"]) - d["total"]["writes_per_s"]) <= 1e-4 * d["total"]["writes_per_s"]' \
	'd["total"]["writes_per_s"] > 100' \
	'(l := d["total"]["latency_us"]) and l["min"] > 0 and l["min"] <= l["p50"] <= l["p90"] <= l["p99"] <= l["p99.9"] <= l["p99.99"] <= l["max"] and l["min"] <= l["mean"] <= l["max"]' \
	'(l := d["total"]["latency_us"], w := d["total"]["bytes"] / 4096) and abs(l["count"] - w) <= max(2 * 2 * 4, 0.05 * w)' \
	'd["total"]["latency_us"]["p50"] < 1e6' \
	'd["rdma"]["bytes"], d["rdma"]["seconds"]'
check_eq "small: 4 KiB messages" 4096 "${J[0]}"
check_eq "small: WRITEs/s = bytes / 4096 / seconds" True "${J[1]}"
check_eq "small: the RDMA row's rate = the total's" True "${J[2]}"
check_eq "small: the rails' rates add up to the total" True "${J[3]}"
check_eq "small: some WRITEs moved (> 100/s)" True "${J[4]}"
check_eq "small: latency min <= p50 <= p90 <= p99 <= p99.9 <= p99.99 <= max, mean inside" True "${J[5]}"
check_eq "small: latencies counted = WRITEs of the window (+- in flight)" True "${J[6]}"
check_eq "small: p50 below a second" True "${J[7]}"
src_rdma=${J[8]}
jv small-sink '(r := d["rdma"]) and abs(r["writes_per_s"] - r["bytes"] / 4096 / r["seconds"]) <= 2e-5 * r["writes_per_s"]' \
	'd["rdma"]["bytes"], d["rdma"]["seconds"]' '"latency_us" in json.dumps(d)'
check_eq "small: the sink's WRITEs/s = its bytes / 4096 / seconds" True "${J[0]}"
check_eq "small: the sink counted what the source sent" "$src_rdma" "${J[1]}"
check_eq "small: the sink times nothing" False "${J[2]}"
# The same in text: the column and the latency line.
pair small-text "--no-local --dram 4M -s 4K" "--source mem -q 1 -s 4K --latency"
check_eq "small text: exits" "0 0" "$SINK_RC $SRC_RC"
out=$(cat "$TMPD/small-text-src.out")
check_match "small text: the M WRITE/s column" "^ +bytes +seconds +GB/s +M WRITE/s$" "$out"
check_match "small text: total row with its message rate" "^ total \(this side\) +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +0\.[0-9]{6}$" "$out"
check_match "small text: latency line" \
	"^ RDMA WRITE +latency us: min [0-9.]+  p50 [0-9.]+  p90 [0-9.]+  p99 [0-9.]+  p99\.9 [0-9.]+  p99\.99 [0-9.]+  max [0-9.]+  mean [0-9.]+$" "$out"
check_match "small text: the sink's RDMA row with its message rate" "^ RDMA \(1 QPs\) +[1-9][0-9]* +[0-9.]+ +[0-9.]+ +0\.[0-9]{6}$" \
	"$(cat "$TMPD/small-text-sink.out")"

# The io_uring source: reads and WRITEs in flight together, 4 deep, every chunk verified.
# Each worker opens, reads and closes its reader in its own thread (reader_close()).
if ! grep -q "io_uring (not built)" <("$FAKE" --help); then
	pair uring "-R --no-local --dram 8M -t 4 --verify full --json" \
		"-R --disks $f -q 2 -t 4 --verify full --engine io_uring --json"
	check_eq "uring: exits" "0 0" "$SINK_RC $SRC_RC"
	jv uring-sink 'd["verify"]' 'd["rdma"]["bytes"] > 0'
	check_eq "uring: verified, bytes landed" "pass True" "${J[0]} ${J[1]}"
fi
finish
