#!/bin/bash
# Guest side of link_probe.sh: run nvme_link_probe (JSON and text, -v) and record what the
# kernel and lspci say, into $VLAB_OUT; the host side judges.
set -u
out=$VLAB_OUT
nvme_link_probe --json >"$out/probe.json" 2>"$out/probe.err"
echo $? >"$out/probe.rc"
nvme_link_probe -v >"$out/probe.txt" 2>&1
nvme_link_probe --dev "$VLAB_RDMA_DEV" --json >"$out/rdma.json" 2>>"$out/probe.err"
nvme_link_probe --expect-width 4 >/dev/null 2>"$out/expect.err"
echo $? >"$out/expect.rc"
for d in $VLAB_DRIVES; do
	c=$(basename "$(readlink -f "/sys/block/${d#/dev/}/device")")
	echo "$d $c $(basename "$(readlink -f "/sys/class/nvme/$c/device")")"
done >"$out/drives.txt"
for b in $(lspci -D | cut -d' ' -f1); do
	printf '%s|%s\n' "$b" "$(lspci -s "$b" -vv | grep -E 'LnkCap:|LnkSta:' | tr -s ' \t' ' ' | tr '\n' '|')"
done >"$out/lspci.txt"
# Slots as lspci sees them: the kernel's "Physical Slot" of a device, the SltCap "Slot #N"
# of a port.
for b in $(lspci -D | cut -d' ' -f1); do
	v=$(lspci -s "$b" -vvv 2>/dev/null)
	ps=$(printf '%s\n' "$v" | sed -n 's/^[[:space:]]*Physical Slot: //p' | head -n1)
	sn=$(printf '%s\n' "$v" | sed -n 's/.*[[:space:]]Slot #\([0-9]*\),.*/\1/p' | head -n1)
	printf '%s|%s|%s\n' "$b" "$ps" "$sn"
done >"$out/slots.txt"
ls /sys/bus/pci/slots >"$out/kslots.txt" 2>&1
# A site specification with one bay short: slot 2 must deliver 5 GT/s x1 (QEMU's drive
# runs 2.5 GT/s x1).
printf '# bay gen width\n1 1 1\n2 2 1   # one bay short\n' >"$out/site.spec"
nvme_link_probe --expect-file "$out/site.spec" >"$out/site.out" 2>"$out/site.err"
echo $? >"$out/site.rc"
nvme_link_probe --slot 1 --json >"$out/slot1.json" 2>>"$out/probe.err"
ls -l "/sys/class/infiniband/$VLAB_RDMA_DEV/" >"$out/rdma-sysfs.txt" 2>&1
nvme_read_bw --disks "${VLAB_DRIVES%% *}" -t 1 --warmup 0 -D 1 --json >"$out/read.json" 2>"$out/read.err"
# The affinity matrix, and the PCI tree it must agree with: lspci -t, and each
# device's place in sysfs (the tree lspci -t draws).
nvme_link_probe --topology --json >"$out/topo.json" 2>"$out/topo.err"
echo $? >"$out/topo.rc"
nvme_link_probe --topology >"$out/topo.txt" 2>&1
lspci -t >"$out/lspci-t.txt" 2>&1
for b in $(lspci -D | cut -d' ' -f1); do
	printf '%s %s\n' "$b" "$(readlink -f "/sys/bus/pci/devices/$b")"
done >"$out/pcipaths.txt"
cat "$out/probe.txt"
exit 0
