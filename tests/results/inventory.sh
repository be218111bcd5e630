#!/bin/bash
# nbw-results inventory on a fake host: a sysfs tree (tests/fixtures/sysfs/mksysfs.py's
# two-ns drives, plus DMI, an RDMA device with its port and netdev, CPU governors,
# NUMA nodes, huge pages, THP) and a procfs tree, with a stand-in nvme_link_probe:
# every value read back from its file; a changed firmware changes the hash; a
# missing probe is said, not fatal.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
NR_PY="$abs_top_srcdir/scripts/nbw-results"
S=$TMPD/sys/two-ns P=$TMPD/proc
"$PYTHON3" "$FIXTURES/sysfs/mksysfs.py" "$TMPD/sys" || fail "mksysfs.py"
"$PYTHON3" - "$S" "$P" <<'PY'
import os, sys
sysfs, proc = sys.argv[1], sys.argv[2]
def w(root, path, text):
    p = os.path.join(root, path)
    os.makedirs(os.path.dirname(p), exist_ok=True)
    open(p, "w").write(text + "\n")
for k, v in {"bios_vendor": "Vendor Inc.", "bios_version": "2.19.1", "bios_date": "07/14/2025",
             "sys_vendor": "Vendor", "product_name": "Server R760", "board_name": "0ABCDE"}.items():
    w(sysfs, "class/dmi/id/" + k, v)
ib = "class/infiniband/mlx5_0/"
w(sysfs, ib + "fw_ver", "28.39.1002")
w(sysfs, ib + "board_id", "MT_0000000838")
w(sysfs, ib + "hca_type", "MT4129")
w(sysfs, ib + "ports/1/state", "4: ACTIVE")
w(sysfs, ib + "ports/1/phys_state", "5: LinkUp")
w(sysfs, ib + "ports/1/rate", "400 Gb/sec (4X NDR)")
w(sysfs, ib + "ports/1/link_layer", "Ethernet")
w(sysfs, ib + "ports/1/gid_attrs/ndevs/0", "ens1f0np0")
w(sysfs, "class/net/ens1f0np0/mtu", "9000")
for c in range(4):
    w(sysfs, "devices/system/cpu/cpu%d/cpufreq/scaling_governor" % c,
      "performance" if c < 3 else "powersave")
w(sysfs, "devices/system/cpu/online", "0-3")
w(sysfs, "devices/system/node/node0/cpulist", "0-1")
w(sysfs, "devices/system/node/node0/meminfo", "Node 0 MemTotal:       131072000 kB")
w(sysfs, "devices/system/node/node1/cpulist", "2-3")
w(sysfs, "devices/system/node/node1/meminfo", "Node 1 MemTotal:       131072004 kB")
w(sysfs, "kernel/mm/hugepages/hugepages-2048kB/nr_hugepages", "1024")
w(sysfs, "kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages", "4")
w(sysfs, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never")
w(sysfs, "kernel/mm/transparent_hugepage/defrag", "[always] defer madvise never")
w(proc, "cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test Xeon 6430\n"
  "microcode\t: 0x2b000590\n\nprocessor\t: 1\nmodel name\t: other")
w(proc, "meminfo", "MemTotal:       262144004 kB\nMemFree:        1000 kB")
w(proc, "cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt")
w(proc, "sys/kernel/osrelease", "6.1.0-18-amd64")
w(proc, "sys/kernel/version", "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1")
PY
cat >"$TMPD/probe" <<'EOF'
#!/bin/sh
cat <<'J'
{"tool": "nvme_link_probe", "devices": [{"name": "nvme0", "kind": "nvme", "bdf": "0000:01:00.0",
 "links": [{"port_bdf": "0000:00:01.1", "device_bdf": "0000:01:00.0", "speed_gts": 8.0, "width": 4,
 "expected_speed_gts": 16.0, "expected_width": 4}], "verdict": "downgraded"}]}
J
EOF
chmod +x "$TMPD/probe"

inv() { "$PYTHON3" "$NR_PY" inventory --sysfs-root "$S" --proc-root "$P" --host n1 "$@"; }
inv --probe "$TMPD/probe" >"$TMPD/inv.json" 2>"$TMPD/err"
check_eq "inventory: exit status, nothing on stderr" "0 " "$? $(cat "$TMPD/err")"
j() { json_get "$TMPD/inv.json" "$1"; }
check_eq "kernel and command line" "6.1.0-18-amd64|BOOT_IMAGE=/vmlinuz root=/dev/sda1 iommu=pt" "$(j 'd["kernel"]["release"] + "|" + d["kernel"]["cmdline"]')"
check_eq "CPU model, microcode, governors" "Test Xeon 6430 0x2b000590 {'performance': 3, 'powersave': 1}" \
	"$(j '"%s %s %s" % (d["cpu"]["model"], d["cpu"]["microcode"], d["cpu"]["governors"])')"
check_eq "memory, NUMA nodes" "262144004 {'node0': {'cpus': '0-1', 'mem_kib': 131072000}, 'node1': {'cpus': '2-3', 'mem_kib': 131072004}}" \
	"$(j '"%s %s" % (d["memory"]["total_kib"], d["memory"]["numa_nodes"])')"
check_eq "huge pages and THP" "{'1048576kB': '4', '2048kB': '1024'} madvise always" \
	"$(j '"%s %s %s" % (d["memory"]["hugepages"], d["memory"]["thp"]["enabled"], d["memory"]["thp"]["defrag"])')"
check_eq "BIOS from DMI" "2.19.1 07/14/2025" "$(j '"%s %s" % (d["bios"]["bios_version"], d["bios"]["bios_date"])')"
check_eq "RDMA device" "28.39.1002 MT_0000000838" "$(j '"%s %s" % (d["rdma"]["mlx5_0"]["fw_ver"], d["rdma"]["mlx5_0"]["board_id"])')"
check_eq "its port: state, rate, link layer, netdev MTU" "4: ACTIVE|400 Gb/sec (4X NDR)|Ethernet|9000" \
	"$(j '"|".join(d["rdma"]["mlx5_0"]["ports"]["1"][k] for k in ("state", "rate", "link_layer", "mtu"))')"
check_eq "NVMe controllers" "['nvme0', 'nvme1', 'nvme2']" "$(j 'sorted(d["nvme"])')"
check_eq "nvme0: model, firmware, PCI address" "Vendor Gen4 3.84TB|2.1.0|0000:01:00.0" \
	"$(j '"|".join(d["nvme"]["nvme0"][k] for k in ("model", "firmware_rev", "pci_address"))')"
check_eq "nvme0's namespaces: capacity (512-byte sectors) and block size" "[('nvme0n1', 3840755982336, '512'), ('nvme0n2', 1073741824, '4096')]" \
	"$(j '[(k, v["bytes"], v["logical_block_size"]) for k, v in sorted(d["nvme"]["nvme0"]["namespaces"].items())]')"
check_eq "PCIe link from the probe: current and maximum" "8.0 4 16.0 4 downgraded" \
	"$(j '" ".join(str(d["pcie"]["nvme0"][k]) for k in ("speed_gts", "width", "max_speed_gts", "max_width", "verdict"))')"
h1=$(j 'd["hash"]')
inv --probe "$TMPD/probe" >"$TMPD/inv2.json"
check_eq "the same host twice: the same hash (the time is not hashed)" "$h1" "$(json_get "$TMPD/inv2.json" 'd["hash"]')"
echo 28.41.1000 >"$S/class/infiniband/mlx5_0/fw_ver"
inv --probe "$TMPD/probe" >"$TMPD/inv3.json"
check_eq "new NIC firmware: another hash" 1 "$(json_get "$TMPD/inv3.json" "int(d['hash'] != '$h1')")"
# Recorded with two runs: the comparison names the firmware, and only it.
echo '{"tool": "nvme_read_bw", "total": {"gb_per_s": 3.0}}' >"$TMPD/doc.json"
for i in "" 3; do
	"$PYTHON3" "$NR_PY" --db "$TMPD/db" record --node n1 --inventory "$TMPD/inv$i.json" "$TMPD/doc.json" >/dev/null
done
check_eq "compare: the firmware change, nothing else" 'inventory n1: rdma.mlx5_0.fw_ver: "28.39.1002" -> "28.41.1000"' \
	"$("$PYTHON3" "$NR_PY" --db "$TMPD/db" compare latest~1 latest | grep '^inventory n1')"
inv --probe /nonexistent/nvme_link_probe >"$TMPD/inv4.json"
check_eq "no probe: said in the inventory, not fatal" "nvme_link_probe not found" "$(json_get "$TMPD/inv4.json" 'd["pcie"]["error"]')"
expect_exit 2 'nbw-results: /nonexistent: not a directory' "$PYTHON3" "$NR_PY" inventory --sysfs-root /nonexistent
finish
