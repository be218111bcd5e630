#!/bin/bash
# Lab test: two nodes joined by qemu's socket netdev on loopback. RDMA WRITE
# crosses from node a's rxe to node b's (ib_write_bw, its clock calibrated on
# the guest's TSC); each node sees its own drives (distinct patterns); the
# environment names each node's peer; node b's failure makes vlab fail
# although node a succeeded; b's lines are prefixed.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

run_lab --nodes 2 --drives 2 --drive-size 8M --timeout 120 \
	--on-b "$srcdir/tests/lab/two_node_b.sh" "$srcdir/tests/lab/two_node_a.sh"
[ "$vlab_rc" = 5 ] || fail "vlab returned $vlab_rc; node a exited 0, node b 5: wanted 5"
assert_no_qemu
grep -q '^\[b\] server done$' "$WORK/out.txt" || fail "node b's output is not prefixed '[b] '"

for n in a b; do
	[ "$(guest_env $n VLAB_NODE)" = $n ] || fail "node $n: VLAB_NODE"
	[ -n "$(guest_env $n VLAB_DRIVES)" ] || fail "node $n: VLAB_DRIVES empty"
	[ "$(guest_env $n VLAB_RDMA_DEV)" = rxe0 ] || fail "node $n: VLAB_RDMA_DEV"
done
[ "$(guest_env a VLAB_PEER)" = "$(guest_env b VLAB_ADDR)" ] || fail "a's peer is not b"
[ "$(guest_env b VLAB_PEER)" = "$(guest_env a VLAB_ADDR)" ] || fail "b's peer is not a"
[ "$(guest_env a VLAB_ADDR)" != "$(guest_env b VLAB_ADDR)" ] || fail "same address"

# Each node reads its own images (the patterns differ per node).
for n in a b; do
	for i in 0 1; do
		want=$(head -c 1048576 "$WORK/images/$n$i.img" | sha256sum | cut -d' ' -f1)
		[ "$(cat "$WORK/$n/out/sha-$i.txt")" = "$want" ] || fail "node $n drive $i: wrong data"
	done
done
[ "$(head -c 4096 "$WORK/images/a0.img" | sha256sum)" != "$(head -c 4096 "$WORK/images/b0.img" | sha256sum)" ] ||
	fail "nodes a and b have the same pattern"

# The guest keeps time with the TSC where the host's is invariant (vlab's tsc=reliable):
# with the HPET that a one-vCPU node fell back to, perftest's clock calibration failed
# under load (r^2 < 0.9: "Can't produce a report").
if grep -qw constant_tsc /proc/cpuinfo && grep -qw nonstop_tsc /proc/cpuinfo; then
	[ "$(cat "$WORK/a/out/clocksource.txt")" = tsc ] ||
		fail "node a keeps time with $(cat "$WORK/a/out/clocksource.txt"), not the TSC"
fi
# ib_write_bw result line: bytes iterations peak average msgrate.
res=$(awk '/#bytes/ { getline; print; exit }' "$WORK/a/out/ib_write_bw.txt")
# shellcheck disable=SC2086 # the result line's columns
set -- $res
[ "${1:-}" = 65536 ] || fail "no ib_write_bw result on node a: $(cat "$WORK/a/out/ib_write_bw.txt")"
awk -v it="$2" -v bw="$4" 'BEGIN { exit !(it > 0 && bw > 0) }' || fail "ib_write_bw moved nothing: $res"
note "ib_write_bw a -> b over rxe (virtual lab, 64 KiB, 6 s): $4 Gb/s, $2 iterations"
assert_images_unchanged a
assert_images_unchanged b
echo "PASS: $test_name"
