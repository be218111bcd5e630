#!/bin/bash
# Lab test: one node, three drives at three link speeds (the last behind a PCIe
# switch): every byte of every drive read in the guest equals the host's
# backing file; each root port advertises the link asked for; Soft-RoCE is up;
# the script's exit status passes through; nothing is left running. The same
# boot runs nvme_link_probe's lab checks (link_probe_check.sh, see link_probe.sh).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

run_lab --drives 3 --links 8:4,16:4,2.5:16 --switch --drive-size 16M --timeout 200 \
	"$srcdir/tests/lab/smoke_guest.sh"
[ "$vlab_rc" = 7 ] || fail "vlab returned $vlab_rc, the script exited 7"
assert_no_qemu
out=$WORK/a/out
[ -s "$out/drives.txt" ] || fail "guest wrote no drives.txt"

# Contract: the environment of the script.
[ "$(guest_env a VLAB_NODE)" = a ] || fail "VLAB_NODE"
[ "$(guest_env a VLAB_RDMA_DEV)" = rxe0 ] || fail "VLAB_RDMA_DEV"
[ "$(guest_env a VLAB_PEER)" = "$(guest_env a VLAB_ADDR)" ] || fail "one node: VLAB_PEER != VLAB_ADDR"
[ "$(guest_env a VLAB_OUT)" = /run/vlab/out ] || fail "VLAB_OUT"
# shellcheck disable=SC2046 # the drives' paths, a word each
set -- $(guest_env a VLAB_DRIVES)
[ $# = 3 ] || fail "VLAB_DRIVES has $# drives, not 3"

# Every byte read in the guest is the backing file's.
for i in 0 1 2; do
	want=$(sha256sum <"$WORK/images/a$i.img" | cut -d' ' -f1)
	got=$(cat "$out/sha-$i.txt")
	[ "$got" = "$want" ] || fail "drive $i: guest read sha256 $got, backing file $want"
done
note "3 drives read in the guest match their backing files"

# Each drive sits behind the root port it asked for.
speeds=(8GT/s 16GT/s 2.5GT/s)
widths=(x4 x4 x16)
while read -r i dev lbs root port; do
	[ "$lbs" = 512 ] || fail "$dev: logical block size $lbs"
	line=$(grep "^0000:00:${root#0000:00:} " "$out/links.txt") || fail "$dev: no root port $root"
	cap=${line#*LnkCap:}
	cap=${cap%%LnkSta:*}
	case $cap in
	*"Speed ${speeds[i]}, Width ${widths[i]},"*) ;;
	*) fail "$dev: root port $root advertises '$cap', wanted ${speeds[i]} ${widths[i]}" ;;
	esac
	note "$dev: root port $root LnkCap ${speeds[i]} ${widths[i]}"
	if [ "$i" = 2 ]; then
		[ "$port" != "$root" ] || fail "$dev: not behind a switch"
		note "$dev: behind switch port $port"
	fi
done <"$out/drives.txt"

grep -q 'rxe0/1 state ACTIVE' "$out/rdma.txt" || fail "rxe0 not active: $(cat "$out/rdma.txt")"
out=$WORK/a/out/probe
. "$srcdir/tests/lab/link_probe_check.sh"
assert_images_unchanged a
echo "PASS: $test_name"
