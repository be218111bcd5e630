#!/bin/bash
# Guest side of smoke.sh (node a): record what the real kernel sees, with
# stock tools only, into $VLAB_OUT; the host side judges. Exits 7 on purpose
# (the host checks that vlab passes the status through).
set -u
out=$VLAB_OUT
env | grep '^VLAB_' | sort >"$out/env.txt"
i=0
for d in $VLAB_DRIVES; do
	n=${d#/dev/}
	ctrl=$(readlink -f "/sys/block/$n/device")
	pdev=$(readlink -f "$ctrl/device")          # the NVMe function
	port=$(readlink -f "$pdev/..")              # its upstream port
	root=$pdev
	while [ "$(basename "$(dirname "$root")")" != pci0000:00 ]; do
		root=$(dirname "$root")
	done
	printf '%s %s %s %s %s\n' "$i" "$d" "$(cat "/sys/block/$n/queue/logical_block_size")" \
		"$(basename "$root")" "$(basename "$port")" >>"$out/drives.txt"
	dd if="$d" bs=1M iflag=direct status=none | sha256sum | cut -d' ' -f1 >"$out/sha-$i.txt"
	i=$((i + 1))
done
# The link each root port advertises (LnkCap) and what it trained at (LnkSta).
for b in $(lspci -D -d ::0604 | cut -d' ' -f1); do
	printf '%s %s\n' "$b" "$(lspci -s "$b" -vv | grep -E 'LnkCap:|LnkSta:' | tr -s ' \t' ' ' | tr '\n' ' ')"
done >"$out/links.txt"
rdma link show >"$out/rdma.txt"
ib_devices >>"$out/rdma.txt" 2>&1
echo "smoke: $(wc -l <"$out/drives.txt") drives, $(wc -l <"$out/links.txt") bridges"
# The same boot serves link_probe's checks (link_probe_check.sh on the host).
mkdir -p "$out/probe"
VLAB_OUT=$out/probe bash "$VLAB_SRCDIR/tests/lab/link_probe_guest.sh" >"$out/probe/guest.log" 2>&1
exit 7
