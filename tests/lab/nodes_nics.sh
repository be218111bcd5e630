#!/bin/bash
# Lab test: three nodes with two NICs each, then two nodes with two NICs.
# Three nodes: every node sees VLAB_NODES=3, VLAB_HOSTS with the three first
# addresses and two ACTIVE rxe devices; b and c reach a on both NICs (each NIC
# its own segment and subnet); c's lines are prefixed "[c] ". Two nodes: an
# RDMA WRITE test (ib_write_bw) runs on the second rail, rxe1, to a's second
# address, and b's rxe1 (not rxe0) carried it.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"
guest=$srcdir/tests/lab/nodes_nics_guest.sh

run_lab --nodes 3 --nics 2 --drives 1 --drive-size 4M --timeout 240 \
	--on-b "$guest" --on-c "$guest" "$guest"
[ "$vlab_rc" = 0 ] || fail "three nodes: vlab returned $vlab_rc"
assert_no_qemu
grep -q '^\[c\] ' "$WORK/out.txt" || fail "node c's output is not prefixed '[c] '"
grep -q '^a: heard from b c$' "$WORK/out.txt" || fail "node a did not hear from b and c"
hosts="10.77.0.1 10.77.0.2 10.77.0.3"
for n in a b c; do
	[ "$(guest_env $n VLAB_NODES)" = 3 ] || fail "node $n: VLAB_NODES $(guest_env $n VLAB_NODES)"
	[ "$(guest_env $n VLAB_HOSTS)" = "$hosts" ] || fail "node $n: VLAB_HOSTS $(guest_env $n VLAB_HOSTS)"
	[ "$(guest_env $n VLAB_RDMA_DEVS)" = "rxe0 rxe1" ] || fail "node $n: VLAB_RDMA_DEVS"
	# shellcheck disable=SC2046 # the node's addresses, a word each
	set -- $(guest_env $n VLAB_ADDRS)
	[ $# = 2 ] && [ "$1" = "$(guest_env $n VLAB_ADDR)" ] || fail "node $n: VLAB_ADDRS $*"
	for d in rxe0 rxe1; do
		grep -q "^link $d/1 state ACTIVE" "$WORK/$n/out/rdma.txt" ||
			fail "node $n: $d not active: $(cat "$WORK/$n/out/rdma.txt")"
		grep -q "^$d PORT_ACTIVE$" "$WORK/$n/out/ports.txt" ||
			fail "node $n: ibv_devinfo: $(cat "$WORK/$n/out/ports.txt")"
	done
done
[ "$(guest_env a VLAB_PEERS)" = "10.77.0.2 10.77.1.2" ] || fail "a's peers are not b's addresses"
for n in b c; do
	[ "$(guest_env $n VLAB_PEERS)" = "10.77.0.1 10.77.1.1" ] || fail "node $n: peers are not a's"
	for addr in 10.77.0.1 10.77.1.1; do
		grep -q "^$addr ok$" "$WORK/$n/out/ping.txt" || fail "node $n: ping $addr failed"
	done
done
note "3 nodes x 2 NICs: b and c reach a on 10.77.0.1 and 10.77.1.1"
assert_images_unchanged c

run_lab --nodes 2 --nics 2 --drives 1 --drive-size 4M --timeout 240 --on-b "$guest" "$guest"
[ "$vlab_rc" = 0 ] || fail "two nodes: vlab returned $vlab_rc"
assert_no_qemu
res=$(awk '/#bytes/ { getline; print; exit }' "$WORK/b/out/ib_write_bw.txt")
# shellcheck disable=SC2086 # the result line's columns
set -- $res
[ "${1:-}" = 65536 ] || fail "no ib_write_bw result on node b: $(cat "$WORK/b/out/ib_write_bw.txt")"
awk -v it="$2" -v bw="$4" 'BEGIN { exit !(it > 0 && bw > 0) }' || fail "ib_write_bw moved nothing: $res"
read -r _ sent0 _ sent1 <"$WORK/b/out/sent.txt"
[ "$sent1" -gt "$sent0" ] || fail "rxe1 sent $sent1 packets, rxe0 $sent0: not the second rail"
note "ib_write_bw b -> a on rxe1 (10.77.1.1): $4 Gb/s, $2 iterations; packets rxe1 $sent1, rxe0 $sent0"
echo "PASS: $test_name"
