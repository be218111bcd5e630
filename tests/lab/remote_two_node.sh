#!/bin/bash
# Lab test of nvme_write_bw_remote between two nodes: the sink on node a with
# its drive, the source on node b with its drive; verification PASS on both;
# the sink's slice holds exactly node b's drive bytes at the offsets reported
# (node b's pattern names node and offset in every word); the sink's table
# adds local and RDMA.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab-lib.sh"

run_lab --nodes 2 --drives 1 --drive-size 64M --timeout 250 \
	--on-b "$srcdir/tests/lab/remote_two_node_b.sh" "$srcdir/tests/lab/remote_two_node_a.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
A=$WORK/a/out B=$WORK/b/out
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
[ "$(cat "$A/sink.rc")" = 0 ] || fail "sink exit $(cat "$A/sink.rc"): $(cat "$A/sink.err")"
[ "$(cat "$B/src.rc")" = 0 ] || fail "source exit $(cat "$B/src.rc"): $(cat "$B/src.err")"
[ "$(jq_ "$A/sink.json" 'd["verify"]')" = pass ] || fail "sink: verify not pass"
[ "$(jq_ "$B/src.json" 'd["verify"]')" = pass ] || fail "source: verify not pass"
[ "$(jq_ "$A/sink.json" 'd["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"] and d["local"]["bytes"] > 0 and d["rdma"]["bytes"] > 0')" = True ] ||
	fail "total is not local + RDMA"
[ "$(jq_ "$A/sink.json" 'd["rdma"]["bytes"]')" = "$(jq_ "$B/src.json" 'd["rdma"]["bytes"]')" ] ||
	fail "the sink's RDMA bytes are not the source's"
"$PY" - "$A/slice.bin" "$A/slice.bin.map" "$WORK/images/b0.img" 1048576 <<'PY' || fail "slice differs from node b's drive"
import sys
dump, mp, img, chunk = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
d = open(dump, "rb").read()
n = 0
with open(img, "rb") as f:
    for line in open(mp):
        slot, off, ln = map(int, line.split())
        f.seek(off)
        if d[slot * chunk: slot * chunk + ln] != f.read(ln):
            sys.exit("slot %d differs from node b's drive at offset %d" % (slot, off))
        n += 1
if n < 2:
    sys.exit("only %d slots in the map" % n)
print("# %d slots of the sink's slice equal node b's drive at their offsets" % n)
PY
note "two nodes: local $(jq_ "$A/sink.json" 'd["local"]["gb_per_s"]') + RDMA $(jq_ "$A/sink.json" 'd["rdma"]["gb_per_s"]') = $(jq_ "$A/sink.json" 'd["total"]["gb_per_s"]') GB/s, verify pass"
assert_images_unchanged a
assert_images_unchanged b
echo "PASS: $test_name"
