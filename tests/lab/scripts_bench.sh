#!/bin/bash
# Lab test of the orchestration scripts on two nodes: node a runs
# scripts/run_bench.sh aggregate and local and scripts/scale_sweep.sh with
# LAUNCHER=scripts/vlab.d/launch (node b serves it with launch-agent), so every
# command meant for node b really runs there. Checks the saved JSON (the sink's
# total = local + RDMA, both sides verified, the source's RDMA bytes = the
# sink's, both nodes' local results), the sweep's rows (ideal = k x the 1-drive
# figure, link ceiling = the sum of the drives' ceilings), then plots the sweep
# on the host and reads the PNG's size from its header.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

# The guests find the source tree at $VLAB_SRCDIR (the host's /tmp is elsewhere for them).
run_lab --nodes 2 --drives 2 --drive-size 64M --timeout 600 \
	--on-b "$srcdir/tests/lab/scripts_bench_b.sh" "$srcdir/tests/lab/scripts_bench_a.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
R=$WORK/a/out/results
jq_() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
check() { # check FILE EXPR WHAT: EXPR on the document must be True
	[ -r "$1" ] || fail "$3: $1 is missing"
	[ "$(jq_ "$1" "$2" 2>&1)" = True ] || fail "$3 ($1: $2)"
}
for s in aggregate local sweep bidir boundary; do
	[ "$(cat "$WORK/a/out/$s.rc" 2>/dev/null)" = 0 ] || fail "$s exited $(cat "$WORK/a/out/$s.rc" 2>/dev/null || echo '(none)')"
done
grep -q 'launch-agent\[b\]: run .*nvme_write_bw_remote' "$WORK/out.txt" ||
	fail "node b's agent ran no nvme_write_bw_remote"

# run_bench.sh aggregate: sink on a (its own drives + b's through RDMA), source on b.
A=$R/aggregate
check "$A/aggregate-a.json" 'd["role"] == "sink" and d["verify"] == "pass" and d["ok"] is not False' "sink on a"
check "$A/aggregate-a.json" 'd["total"]["bytes"] == d["local"]["bytes"] + d["rdma"]["bytes"]' "sink: total = local + RDMA"
check "$A/aggregate-a.json" 'd["local"]["bytes"] > 0 and d["rdma"]["bytes"] > 0' "sink: bytes > 0"
check "$A/aggregate-b.json" 'd["role"] == "source" and d["verify"] == "pass"' "source on b"
[ "$(jq_ "$A/aggregate-a.json" 'd["rdma"]["bytes"]')" = "$(jq_ "$A/aggregate-b.json" 'd["rdma"]["bytes"]')" ] ||
	fail "the sink's RDMA bytes are not the source's"
check "$A/run.json" 'd["mode"] == "aggregate" and d["exit_status"] == 0' "run.json"
grep -Eq '^aggregate +a +sink ' "$A/summary.txt" || fail "no sink row in the summary: $(cat "$A/summary.txt")"
note "aggregate: $(grep -E '^aggregate +a +sink' "$A/summary.txt")"

# run_bench.sh local: nvme_read_bw on each node, both nodes' drives.
for n in a b; do
	check "$R/local/local-$n.json" 'len(d["drives"]) == 2 and all(x["path"].startswith("/dev/nvme") and x["bytes"] > 0 and x["zero_fraction"] == 0 for x in d["drives"])' "local on $n"
	check "$R/local/local-$n.json" 'd["total"]["bytes"] == sum(x["bytes"] for x in d["drives"])' "local on $n: total"
done
grep -Eq '^local +all +sum of nodes' "$R/local/summary.txt" || fail "no sum row in the local summary"

# scale_sweep.sh: 2 rows, ideal = k x the 1-drive local figure, ceiling = sum of ceilings.
S=$R/sweep
check "$S/sweep.json" 'len(d["rows"]) == 2 and [r["drives"] for r in d["rows"]] == [1, 2]' "sweep rows"
check "$S/sweep.json" 'all(abs(r["ideal_gb_per_s"] - r["drives"] * d["rows"][0]["local_gb_per_s"]) < 1e-9 for r in d["rows"])' "ideal = k x 1-drive"
check "$S/sweep.json" 'all(r["local_gb_per_s"] > 0 and r["remote_gb_per_s"] > 0 and r["remote_verify"] == "pass" for r in d["rows"])' "measured figures"
ceil=$(jq_ "$S/local/local-b.json" '[x["link_ceiling_gb_per_s"] for x in d["drives"]]')
check "$S/sweep.json" "all(isinstance(c, float) for c in $ceil) and abs(d['rows'][1]['link_ceiling_gb_per_s'] - sum($ceil)) < 1e-9" "link ceiling = sum of the drives' ($ceil)"
check "$S/remote-2/aggregate-b.json" 'len(d["drives"]) == 2' "remote-2: two source drives"
[ "$(awk -F'\t' '$1 ~ /^[0-9]+$/' "$S/sweep.tsv" | wc -l)" = 2 ] || fail "sweep.tsv: not 2 rows"
cat "$S/sweep.txt"

# plot_scaling on the real sweep: the PNG has the size asked for.
command -v gnuplot >/dev/null || fail "gnuplot is missing: apt-get install gnuplot-nox (scripts/quickstart does)"
"$srcdir/scripts/plot_scaling" --size 640x480 -o "$WORK/scaling.png" "$S" || fail "plot_scaling failed"
size=$("$PY" -c 'import struct,sys
h = open(sys.argv[1], "rb").read(24)
assert h[:8] == b"\x89PNG\r\n\x1a\n" and h[12:16] == b"IHDR", "not a PNG"
print("%dx%d" % struct.unpack(">II", h[16:24]))' "$WORK/scaling.png") || fail "scaling.png is not a PNG"
[ "$size" = 640x480 ] || fail "scaling.png is $size, asked for 640x480"
note "scaling.png: $size, $(stat -c %s "$WORK/scaling.png") bytes"

# run_bench.sh BIDIR=1 aggregate: each node's JSON has both directions, verified;
# what a sent is what b received.
for n in a b; do
	check "$R/bidir/aggregate-$n.json" 'd["role"] == "bidir" and d["send"]["verify"] == "pass" and d["receive"]["verify"] == "pass" and d["bidir"]["send_gb_per_s"] > 0 and d["bidir"]["receive_gb_per_s"] > 0' "bidir on $n"
done
[ "$(jq_ "$R/bidir/aggregate-a.json" 'd["send"]["rdma"]["bytes"]')" = "$(jq_ "$R/bidir/aggregate-b.json" 'd["receive"]["rdma"]["bytes"]')" ] ||
	fail "bidir: what a sent is not what b received"
grep -Eq '^aggregate +a +bidir sum ' "$R/bidir/summary.txt" || fail "bidir: no sum row in the summary: $(cat "$R/bidir/summary.txt")"
note "bidir: $(grep -E '^aggregate +a +bidir sum' "$R/bidir/summary.txt")"

# scale_sweep.sh BOUNDARY=yes: rows 1, 2 local only, then 3, 4 with b's drives added.
Bd=$R/boundary
check "$Bd/boundary.json" '[(r["drives"], r["local_drives"], r["remote_drives"]) for r in d["rows"]] == [(1, 1, 0), (2, 2, 0), (3, 2, 1), (4, 2, 2)]' "boundary rows"
check "$Bd/boundary.json" 'all(r["rdma_gb_per_s"] == 0 and r["local_gb_per_s"] > 0 for r in d["rows"][:2]) and all(r["rdma_gb_per_s"] > 0 and r["local_gb_per_s"] > 0 and abs(r["total_gb_per_s"] - r["local_gb_per_s"] - r["rdma_gb_per_s"]) < 1e-3 for r in d["rows"][2:])' "boundary figures (total = local + RDMA)"
check "$Bd/boundary.json" 'all(abs(r["ideal_gb_per_s"] - r["drives"] * d["one_drive_gb_per_s"]) < 1e-9 and r["valid"] in ("yes", "no") for r in d["rows"])' "boundary ideal and validity"
check "$Bd/boundary-remote-2/aggregate-b.json" 'len(d["drives"]) == 2 and d["verify"] == "pass"' "boundary-remote-2: two source drives, verified"
cat "$Bd/boundary.txt"
"$srcdir/scripts/plot_scaling" -o "$WORK/boundary.png" "$Bd" || fail "plot_scaling (boundary) failed"
head -c 8 "$WORK/boundary.png" | od -c | grep -q 'P   N   G' || fail "boundary.png is not a PNG"
note "boundary.png: $(stat -c %s "$WORK/boundary.png") bytes"
assert_images_unchanged a
assert_images_unchanged b
echo "PASS: $test_name"
