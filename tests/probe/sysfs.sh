#!/bin/bash
# nvme_link_probe on captured sysfs trees (tests/fixtures/pci/gen.py sysfs): discovery of
# NVMe controllers and RDMA devices, fabric and software devices without a PCIe link, a
# VF judged by its PF, NIC port rate vs PCIe ceiling, the no-root fallback to the sysfs
# link attributes, and pcitree_usable_ceiling() (common/pci/pcitree.c) as nvme_read_bw sees it.
. "$abs_top_srcdir/tests/lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
P=$NVME_LINK_PROBE
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/root"
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/noroot" --no-root

"$P" --sysfs-root "$TMPD/root" --json >"$TMPD/r.json"
check_eq "exit status" 0 $?
j=$TMPD/r.json
sel() { echo "[x for x in d['devices'] if x['name']=='$1'][0]"; }
# Sorted by slot: slot 4 (mlx4_0), slot 6 (nvme0), the named slot OCP0 (mlx5_0 and its
# VF), then the devices without a slot in discovery order.
check_eq "devices found, by slot" "mlx4_0 nvme0 mlx5_0 mlx5_1 nvme1 rxe0" "$(json_get "$j" "' '.join(x['name'] for x in d['devices'])")"
check_eq "nvme0 slot" "{'number': 6, 'name': '6', 'port_bdf': '0000:00:01.0'}" "$(json_get "$j" "$(sel nvme0)['slot']")"
check_eq "mlx4_0 slot (SltCap number, ACPI name)" "4 CPU1_SLOT4" "$(json_get "$j" "$(sel mlx4_0)['slot']['number'], $(sel mlx4_0)['slot']['name']" | tr -d "(),'")"
check_eq "mlx5_0 slot (name only)" "None OCP0" "$(json_get "$j" "$(sel mlx5_0)['slot']['number'], $(sel mlx5_0)['slot']['name']" | tr -d "(),'")"
check_eq "VF: the PF's slot" "OCP0" "$(json_get "$j" "$(sel mlx5_1)['slot']['name']")"
# A drive's health log is read only on this machine's own sysfs: in a tree, the reason;
# an RDMA device has none.
check_eq "nvme0 health: not read in a tree, with why" "False not read: not this machine's sysfs" \
	"$(json_get "$j" "'%s %s' % ($(sel nvme0)['health']['log_read'], $(sel nvme0)['health']['why'])")"
check_eq "mlx4_0: no health entry" False "$(json_get "$j" "'health' in $(sel mlx4_0)")"
check_eq "fabric controller: no slot" "None" "$(json_get "$j" "$(sel nvme1)['slot']")"
check_match "no slot: why" "NVMe over tcp" "$(json_get "$j" "$(sel nvme1)['slot_reason']")"
check_eq "nvme0 slot ceiling" "7.20 0000:00:01.0" "$(json_get "$j" "'%.2f' % $(sel nvme0)['slot_ceiling_gb_per_s']['usable'], $(sel nvme0)['slot_bottleneck_bdf']" | tr -d "(),'")"
check_eq "RDMA ports active" "1" "$(json_get "$j" "$(sel mlx4_0)['ports_active']")"
check_eq "nvme0 bdf" "0000:01:00.0" "$(json_get "$j" "$(sel nvme0)['bdf']")"
check_eq "nvme0 model" "Fixture NVMe 4.0" "$(json_get "$j" "$(sel nvme0)['model']")"
check_eq "nvme0 firmware" "1.2.3" "$(json_get "$j" "$(sel nvme0)['firmware']")"
check_eq "nvme0 numa" "0" "$(json_get "$j" "$(sel nvme0)['numa_node']")"
check_eq "nvme0 driver" "nvme" "$(json_get "$j" "$(sel nvme0)['driver']")"
check_eq "nvme0 verdict" "ok" "$(json_get "$j" "$(sel nvme0)['verdict']")"
check_eq "nvme0 usable" "7.20" "$(json_get "$j" "'%.2f' % $(sel nvme0)['ceiling_gb_per_s']['usable']")"
check_eq "nvme0 path" "0000:01:00.0 0000:00:01.0" "$(json_get "$j" "' '.join(h['bdf'] for h in $(sel nvme0)['path'])")"
check_eq "fabric controller" "no_link None" "$(json_get "$j" "$(sel nvme1)['verdict'], $(sel nvme1)['bdf']" | tr -d "(),'")"
check_eq "rxe0 has no PCIe link" "no_link" "$(json_get "$j" "$(sel rxe0)['verdict']")"
check_match "rxe0 reason" "software RDMA over eth0" "$(json_get "$j" "$(sel rxe0)['reason']")"
check_eq "QDR HCA: device limit" "downgraded device" "$(json_get "$j" "$(sel mlx4_0)['verdict'] + ' ' + $(sel mlx4_0)['limited_by']")"
check_eq "QDR data rate" "4" "$(json_get "$j" "$(sel mlx4_0)['network']['gb_per_s']")"
check_eq "QDR: PCIe is lower" "pcie" "$(json_get "$j" "$(sel mlx4_0)['network']['lower']")"
check_eq "EDR: the network is lower" "network" "$(json_get "$j" "$(sel mlx5_0)['network']['lower']")"
check_eq "VF" "True 0000:03:00.0" "$(json_get "$j" "$(sel mlx5_1)['virtual_function'], $(sel mlx5_1)['physical_function']" | tr -d "(),'")"
check_eq "VF path from the PF" "0000:03:00.0" "$(json_get "$j" "$(sel mlx5_1)['path'][0]['bdf']")"

# Without root: the sysfs link attributes, MPS and target unknown and named.
"$P" --sysfs-root "$TMPD/noroot" --json >"$TMPD/n.json" 2>"$TMPD/n.err"
check_eq "no-root exit" 0 $?
j=$TMPD/n.json
check_eq "no-root root_access" "False" "$(json_get "$j" "d['root_access']")"
check_eq "no-root nvme0 link" "16 4" "$(json_get "$j" "$(sel nvme0)['link']['speed_gts'], $(sel nvme0)['link']['width']" | tr -d "(),'")"
check_eq "no-root usable unknown" "None" "$(json_get "$j" "$(sel nvme0)['ceiling_gb_per_s']['usable']")"
check_eq "no-root missing" "['LnkCtl2 target speed', 'MPS']" "$(json_get "$j" "$(sel nvme0)['missing']")"
check_eq "no-root roles inferred" "endpoint root_port" "$(json_get "$j" "' '.join(h['role'] for h in $(sel nvme0)['path'])")"
check_match "no-root warning" "readable only by root" "$(cat "$TMPD/n.err")"
check_eq "no-root: slot names only" "None 6" "$(json_get "$j" "$(sel nvme0)['slot']['number'], $(sel nvme0)['slot']['name']" | tr -d "(),'")"

# --slot by number or kernel name; an unknown one is a usage error.
out=$("$P" --sysfs-root "$TMPD/root" --slot CPU1_SLOT4,6 --json)
check_eq "--slot selects" "mlx4_0 nvme0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["devices"]))')"
out=$("$P" --sysfs-root "$TMPD/root" --slot OCP0 --json)
check_eq "--slot by name only" "mlx5_0 mlx5_1" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["devices"]))')"
# A number names a slot by its SltCap number when a device has one, not the kernel slot of
# that name: with OCP0 renamed "4", --slot 4 is still mlx4_0's slot 4.
cp -a "$TMPD/root" "$TMPD/root4"
mv "$TMPD/root4/bus/pci/slots/OCP0" "$TMPD/root4/bus/pci/slots/4"
out=$("$P" --sysfs-root "$TMPD/root4" --slot 4 --json)
check_eq "--slot NUMBER before a name" "mlx4_0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["devices"]))')"
expect_exit 1 "nvme_link_probe: --slot SLOT9: no NVMe controller or RDMA device in such a slot$" \
	"$P" --sysfs-root "$TMPD/root" --slot SLOT9
# A site specification by kernel slot name: OCP0 must deliver Gen4 x16 (it runs Gen3).
printf 'CPU1_SLOT4 2 8\n6 4 4\nOCP0 4 16\n' >"$TMPD/site.spec"
expect_exit 3 "slot OCP0: expected 16 GT/s x16 \(.*site.spec:3\), mlx5_0 \(0000:03:00.0\) runs at 8 GT/s x16" \
	"$P" --sysfs-root "$TMPD/root" --expect-file "$TMPD/site.spec" --dev mlx4_0,nvme0,mlx5_0

# RDMA locality: nvme0 (node 0) has no ACTIVE RDMA port on its node (mlx4_0 and mlx5_* are
# on node 1, rxe0 reports no state); once rxe0 (no node: any) is ACTIVE, it has one.
"$P" --sysfs-root "$TMPD/root" --project --json >"$TMPD/p.json"
check_eq "nvme0 local RDMA ports" "0" "$(json_get "$TMPD/p.json" "$(sel nvme0)['rdma_active_ports_on_node']")"
check_eq "--project flags nvme0" "['nvme0 (0000:01:00.0)']" "$(json_get "$TMPD/p.json" "d['projection']['no_local_rdma']")"
check_match "--project text flags nvme0" "nvme0 \(0000:01:00.0\), NUMA node 0: no ACTIVE RDMA port on its NUMA node" \
	"$("$P" --sysfs-root "$TMPD/root" --project)"
echo "4: ACTIVE" >"$TMPD/root/devices/virtual/infiniband/rxe0/ports/1/state"
"$P" --sysfs-root "$TMPD/root" --project --json >"$TMPD/p2.json"
check_eq "rxe0 ACTIVE counts for nvme0" "1 []" "$(json_get "$TMPD/p2.json" "$(sel nvme0)['rdma_active_ports_on_node'], d['projection']['no_local_rdma']" | tr -d "(),'")"

# --dev by name and by address; an unknown one is said (exit 1).
out=$("$P" --sysfs-root "$TMPD/root" --dev mlx4_0,01:00.0 --json)
check_eq "--dev selects (in slot order)" "mlx4_0 nvme0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["devices"]))')"
expect_exit 1 "nvme_link_probe: --dev nvme7: no NVMe controller or RDMA device of that name in the sysfs tree$" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme7

# Audits: the QDR HCA is downgraded (3); nvme0 alone meets gen4x4 (0) but not x8 (3).
expect_exit 3 "mlx4_0 \(0000:02:00.0\): expectation not met: downgraded" \
	"$P" --sysfs-root "$TMPD/root" --dev mlx4_0 --expect-speed 2.5
expect_exit 0 "" "$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect gen4x4
expect_exit 3 "nvme0 \(0000:01:00.0\): expectation not met: link 16 GT/s x4 is below the expected 16 GT/s x8" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect-speed 16 --expect-width 8
expect_exit 0 "" "$P" --sysfs-root "$TMPD/root" --dev rxe0,nvme1 --expect gen5
# A VF whose physical function is not in the tree: its link is unknown, with no
# ceiling (not "ok" with 0.00 GB/s and a port the slot "cannot fill").
cp -a "$TMPD/root" "$TMPD/nopf"
rm "$TMPD/nopf/bus/pci/devices/0000:03:00.0"
"$P" --sysfs-root "$TMPD/nopf" --dev mlx5_1 --json >"$TMPD/nopf.json"
check_eq "VF without its PF: verdict, usable ceiling, PCIe beside the port" "unknown None None" \
	"$(json_get "$TMPD/nopf.json" '" ".join(str(x) for x in (d["devices"][0]["verdict"], d["devices"][0]["ceiling_gb_per_s"]["usable"], d["devices"][0]["network"]["pcie_gb_per_s"]))')"
"$P" --sysfs-root "$TMPD/nopf" --dev mlx5_1 >"$TMPD/nopf.txt"
check_match "VF without its PF: the reason names the PF" \
	'unknown +virtual function of 0000:03:00.0, which is not in the PCI tree' "$(cat "$TMPD/nopf.txt")"
check_eq "VF without its PF: no 'judged by its physical function', no 'cannot fill'" "" \
	"$(grep -e 'judged by its physical' -e 'cannot fill' "$TMPD/nopf.txt")"
expect_exit 3 "mlx5_1 \(0000:03:00.1\): expectation not met: unknown: virtual function of 0000:03:00.0" \
	"$P" --sysfs-root "$TMPD/nopf" --dev mlx5_1 --expect gen3
# Only what was given is said to be expected: no "x0", no "any GT/s".
expect_exit 3 "nvme0 \(0000:01:00.0\): expectation not met: link 16 GT/s x4 is below the expected 32 GT/s\$" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect-speed 32
expect_exit 3 "nvme0 \(0000:01:00.0\): expectation not met: link 16 GT/s x4 is below the expected x8\$" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect-width 8

# What nvme_read_bw gets for the drive: the same usable ceiling.
if [ -x "$BLOCKDIGEST" ] && [ -f "$abs_top_builddir/tests/unit/test_pcilink" ]; then
	check_eq "pcilink_usable_ceiling" "7.20" "$("$abs_top_builddir/tests/unit/test_pcilink" --ceiling "$TMPD/root" 0000:01:00.0)"
	check_eq "pcilink_usable_ceiling unknown" "nan" "$("$abs_top_builddir/tests/unit/test_pcilink" --ceiling "$TMPD/noroot" 0000:01:00.0)"
fi
finish
