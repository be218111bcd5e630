#!/bin/bash
# nvme_link_probe on captured sysfs trees (tests/fixtures/pci/gen.py sysfs): discovery of
# NVMe controllers and RDMA devices, fabric and software devices without a PCIe link, a
# VF judged by its PF, NIC port rate vs PCIe ceiling, the no-root fallback to the sysfs
# link attributes, and pcilink_usable_ceiling() as nvme_read_bw sees it.
. "$abs_top_srcdir/tests/lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
P=$NVME_LINK_PROBE
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/root"
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/noroot" --no-root

"$P" --sysfs-root "$TMPD/root" --json >"$TMPD/r.json"
check_eq "exit status" 0 $?
j=$TMPD/r.json
sel() { echo "[x for x in d['devices'] if x['name']=='$1'][0]"; }
check_eq "devices found" "nvme0 nvme1 mlx4_0 mlx5_0 mlx5_1 rxe0" "$(json_get "$j" "' '.join(x['name'] for x in d['devices'])")"
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

# --dev by name and by address; an unknown one is a usage error.
out=$("$P" --sysfs-root "$TMPD/root" --dev mlx4_0,01:00.0 --json)
check_eq "--dev selects" "nvme0 mlx4_0" "$(printf '%s' "$out" | "$PYTHON3" -c 'import json,sys; print(" ".join(x["name"] for x in json.load(sys.stdin)["devices"]))')"
expect_exit 2 "nvme_link_probe: --dev nvme7: no such NVMe controller or RDMA device" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme7

# Audits: the QDR HCA is downgraded (3); nvme0 alone meets gen4x4 (0) but not x8 (3).
expect_exit 3 "mlx4_0 \(0000:02:00.0\): expectation not met: downgraded" \
	"$P" --sysfs-root "$TMPD/root" --dev mlx4_0 --expect-speed 2.5
expect_exit 0 "" "$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect gen4x4
expect_exit 3 "nvme0 \(0000:01:00.0\): expectation not met: link 16 GT/s x4 is below the expected 16 GT/s x8" \
	"$P" --sysfs-root "$TMPD/root" --dev nvme0 --expect-speed 16 --expect-width 8
expect_exit 0 "" "$P" --sysfs-root "$TMPD/root" --dev rxe0,nvme1 --expect gen5

# What nvme_read_bw gets for the drive: the same usable ceiling.
if [ -x "$BLOCKDIGEST" ] && [ -f "$abs_top_builddir/tests/unit/test_pcilink" ]; then
	check_eq "pcilink_usable_ceiling" "7.20" "$("$abs_top_builddir/tests/unit/test_pcilink" --ceiling "$TMPD/root" 0000:01:00.0)"
	check_eq "pcilink_usable_ceiling unknown" "nan" "$("$abs_top_builddir/tests/unit/test_pcilink" --ceiling "$TMPD/noroot" 0000:01:00.0)"
fi
finish
