#!/bin/bash
# nvme_link_probe --topology on the two-socket fixture tree (tests/fixtures/pci/gen.py
# sysfs --topo): the relation of every kind of pair (PIX, PXB, PHB, NODE, SYS, X), the
# narrowest link between two devices, each drive's nearest ACTIVE RDMA device, the
# peer-to-peer audit (ACS redirect, IOMMU, p2pmem, GPUDirect), --expect p2p, and the
# bad inputs: a GPU without a driver, a bridge that hides its extended capabilities, a
# NUMA node of -1, IOMMU groups that cannot be read.
. "$abs_top_srcdir/tests/lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
P=$NVME_LINK_PROBE
R=$TMPD/topo
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$R" --topo

"$P" --sysfs-root "$R" --topology --json >"$TMPD/t.json"
check_eq "exit status" 0 $?
j=$TMPD/t.json
T="d['topology']"
rel() { json_get "$j" "[p['relation'] for p in ${T}['pairs'] if {p['a'], p['b']} == {'$1', '$2'}][0]"; }
pair() { json_get "$j" "[p for p in ${T}['pairs'] if {p['a'], p['b']} == {'$1', '$2'}][0]$3"; }
check_eq "placed: drives, RDMA devices (rxe0 through eth0), GPUs" \
	"nvme0 nvme1 nvme2 nvme3 nvme4 mlx5_0 mlx5_1 mlx5_2 rxe0 0000:05:00.0 0000:0a:00.0" \
	"$(json_get "$j" "' '.join(x['name'] for x in ${T}['devices'])")"
check_eq "every pair once" "55" "$(json_get "$j" "len(${T}['pairs'])")"
# Switch A (01:00.0) holds nvme0, mlx5_0 and the GPU; switch B below it holds nvme1.
check_eq "nvme0-mlx5_0: one switch" "PIX 1 0000:01:00.0" \
	"$(pair nvme0 mlx5_0 "['relation']") $(pair nvme0 mlx5_0 "['switches']") $(pair nvme0 mlx5_0 "['meet_bdf']")"
check_eq "nvme1-mlx5_0: two switches" "PXB 2" "$(pair nvme1 mlx5_0 "['relation']") $(pair nvme1 mlx5_0 "['switches']")"
check_eq "nvme1-mlx5_0: the Gen3 x4 link into switch B is the narrowest" "0000:06:00.0 3.94" \
	"$(pair nvme1 mlx5_0 "['narrowest']['bdf']") $(json_get "$j" "'%.2f' % [p for p in ${T}['pairs'] if {p['a'], p['b']} == {'nvme1', 'mlx5_0'}][0]['narrowest']['raw_gb_per_s']")"
check_eq "nvme0-GPU 05:00.0" "PIX" "$(rel nvme0 0000:05:00.0)"
check_eq "nvme2 on its own root port: host bridge" "PHB" "$(rel nvme2 mlx5_0)"
check_eq "nvme4 on pci0000:40, same node: NODE" "NODE False" "$(rel nvme4 mlx5_0) $(pair nvme4 mlx5_0 "['numa_unknown']")"
check_eq "across sockets: SYS" "SYS" "$(rel nvme0 mlx5_1)"
check_eq "socket 1: nvme3-mlx5_1 in switch C" "PIX" "$(rel nvme3 mlx5_1)"
check_eq "socket 1: mlx5_2 on another root port" "PHB" "$(rel nvme3 mlx5_2)"
check_eq "GPU without a driver: listed, no driver" "None gpu" \
	"$(json_get "$j" "[x for x in ${T}['devices'] if x['bdf'] == '0000:0a:00.0'][0]['driver'], [x for x in ${T}['devices'] if x['bdf'] == '0000:0a:00.0'][0]['kind']" | tr -d "(),'")"
check_eq "rxe0: placed through eth0's function" "0000:0b:00.0 eth0" \
	"$(json_get "$j" "[x for x in ${T}['devices'] if x['name'] == 'rxe0'][0]['bdf'], [x for x in ${T}['devices'] if x['name'] == 'rxe0'][0]['via']" | tr -d "(),'")"
nearest() { json_get "$j" "[x['rdma'] + ' ' + x['relation'] for x in ${T}['nearest_rdma'] if x['name'] == '$1'][0]"; }
check_eq "nearest: nvme0" "mlx5_0 PIX" "$(nearest nvme0)"
check_eq "nearest: nvme1" "mlx5_0 PXB" "$(nearest nvme1)"
check_eq "nearest: nvme2 (rxe0 as near, narrower)" "mlx5_0 PHB ['rxe0']" \
	"$(nearest nvme2) $(json_get "$j" "[x['equally_near'] for x in ${T}['nearest_rdma'] if x['name'] == 'nvme2'][0]")"
check_eq "nearest: nvme3 (mlx5_2 is DOWN)" "mlx5_1 PIX" "$(nearest nvme3)"
check_eq "nearest: nvme4 (its node's NIC, not socket 1's)" "mlx5_0 NODE" "$(nearest nvme4)"

# The audit.
check_eq "IOMMU" "translated 8" "$(json_get "$j" "${T}['iommu']['mode'], ${T}['iommu']['groups']" | tr -d "(),'")"
check_eq "p2pmem providers" "2" "$(json_get "$j" "${T}['p2pdma']['providers']")"
check_eq "nvme0-mlx5_0: direct, CMB: can" "direct True True" \
	"$(pair nvme0 mlx5_0 "['p2p']['verdict']") $(pair nvme0 mlx5_0 "['p2p']['memory']") $(pair nvme0 mlx5_0 "['p2p']['can']")"
check_match "nvme0-mlx5_0 reason" "meet at 0000:01:00.0 and no port between them redirects; nvme0 publishes 1024 MiB of p2pmem .*IOMMU groups 5 and 5 \(one group\)" \
	"$(pair nvme0 mlx5_0 "['p2p']['reason']")"
check_eq "nvme1-mlx5_0: direct, no CMB" "direct False False" \
	"$(pair nvme1 mlx5_0 "['p2p']['verdict']") $(pair nvme1 mlx5_0 "['p2p']['memory']") $(pair nvme1 mlx5_0 "['p2p']['can']")"
check_eq "nvme3-mlx5_1: ACS redirect on both ports" "via_root ACS ReqRedir CmpltRedir on 0000:82:00.0; ACS ReqRedir CmpltRedir on 0000:82:01.0" \
	"$(pair nvme3 mlx5_1 "['p2p']['verdict']") $(pair nvme3 mlx5_1 "['p2p']['acs']")"
check_eq "nvme3-mlx5_1: redirected to an allow-listed host bridge: can" "allow_list True" \
	"$(pair nvme3 mlx5_1 "['p2p']['host_rule']") $(pair nvme3 mlx5_1 "['p2p']['can']")"
check_match "nvme3-mlx5_1: the rule and the IOMMU named" "redirected up to the root port, host bridge on the kernel's p2pdma allow-list \(8086:09a2\): p2pdma allows it; the IOMMU translates it" \
	"$(pair nvme3 mlx5_1 "['p2p']['reason']")"
check_eq "nvme2-mlx5_0: a host bridge off the allow-list" "no refused" \
	"$(pair nvme2 mlx5_0 "['p2p']['verdict']") $(pair nvme2 mlx5_0 "['p2p']['host_rule']")"
check_match "nvme2-mlx5_0: why" "^across root ports: host bridge 8086:1237 is neither an AMD Zen one nor on the kernel's p2pdma allow-list: p2pdma refuses it" \
	"$(pair nvme2 mlx5_0 "['p2p']['reason']")"
check_eq "across sockets, one host bridge off the list: no" "no" "$(pair nvme0 mlx5_1 "['p2p']['verdict']")"
check_eq "across sockets, both allow-listed (8086:09a2): via_root" "via_root allow_list" \
	"$(pair nvme4 mlx5_1 "['p2p']['verdict']") $(pair nvme4 mlx5_1 "['p2p']['host_rule']")"
check_eq "in one switch: no host rule" "none" "$(pair nvme0 mlx5_0 "['p2p']['host_rule']")"
check_eq "two drives: not audited" "None" "$(pair nvme0 nvme1 "['p2p']")"
check_match "GPU without a driver: named" "GPU 0000:0a:00.0: no driver bound" "$(pair nvme0 0000:0a:00.0 "['p2p']['reason']")"
check_eq "NIC-GPU without nvidia_peermem: cannot" "direct False" \
	"$(pair mlx5_0 0000:05:00.0 "['p2p']['verdict']") $(pair mlx5_0 0000:05:00.0 "['p2p']['can']")"
check_eq "a switch port's ACS in the path" "{'capability': 'SrcValid ReqRedir CmpltRedir UpstreamFwd EgressCtrl', 'control': 'SrcValid ReqRedir CmpltRedir UpstreamFwd'}" \
	"$(json_get "$j" "[h for x in d['devices'] if x['name'] == 'nvme3' for h in x['path'] if h['bdf'] == '0000:82:00.0'][0]['acs']")"
mkdir -p "$R/module/nvidia_peermem"
"$P" --sysfs-root "$R" --topology --json >"$j"
check_eq "NIC-GPU with nvidia_peermem: can" "True True" \
	"$(json_get "$j" "${T}['gpudirect']['nvidia_peermem']") $(pair mlx5_0 0000:05:00.0 "['p2p']['can']")"

# Text: the matrix row of nvme0 and the audit's line.
"$P" --sysfs-root "$R" --topology >"$TMPD/t.txt"
check_match "text matrix row" "nvme0 +X +PXB +PHB +SYS +NODE +PIX +SYS +SYS +PHB +PIX +PHB" "$(cat "$TMPD/t.txt")"
check_match "text nearest" "nvme1 +mlx5_0 +PXB +narrowest 0000:06:00.0" "$(cat "$TMPD/t.txt")"
check_match "text audit" "nvme3 +mlx5_1 +PIX +via_root yes +ACS ReqRedir CmpltRedir on 0000:82:00.0" "$(cat "$TMPD/t.txt")"

# --expect p2p: the drives --dev names against their nearest RDMA device.
expect_exit 0 "" "$P" --sysfs-root "$R" --dev nvme0 --expect p2p
expect_exit 0 "" "$P" --sysfs-root "$R" --dev nvme3 --expect p2p
expect_exit 3 "nvme2 \(0000:09:00.0\) and mlx5_0: peer-to-peer not possible \(no\): across root ports: host bridge 8086:1237" \
	"$P" --sysfs-root "$R" --dev nvme2 --expect p2p
expect_exit 3 "nvme1 \(0000:08:00.0\) and mlx5_0: peer-to-peer not possible \(direct\): .*nvme1 publishes no p2pmem" \
	"$P" --sysfs-root "$R" --dev nvme1 --expect p2p
expect_exit 2 "invalid expectation \(genNxW, genN, xW, p2p or mps\) 'p2q': malformed" "$P" --sysfs-root "$R" --expect p2q

# --project: the staging hop's DRAM traffic and the drives p2pdma could spare it.
"$P" --sysfs-root "$R" --project --json >"$TMPD/p.json"
check_eq "--project staging hop: 2 per GB/s, at twice today's sum; 2 of 5 drives (nvme0, and nvme3 through its allow-listed host bridge)" "2 True 5 2" \
	"$(json_get "$TMPD/p.json" "d['projection']['staging_hop']['dram_gb_per_gb'], abs(d['projection']['staging_hop']['dram_gb_per_s'] - 2 * d['projection']['today_gb_per_s']) < 1e-6, d['projection']['staging_hop']['drives'], d['projection']['staging_hop']['p2p_drives']" | tr -d "(),'")"
check_eq "--project alone: no matrix printed" "False" "$(json_get "$TMPD/p.json" "'topology' in d")"
check_match "--project text" "p2pdma could remove it for 2 of 5 drives" "$("$P" --sysfs-root "$R" --project)"

# Bad input. A NUMA node of -1: NODE, said to be unknown.
echo -1 >"$R/devices/pci0000:40/0000:40:01.0/0000:41:00.0/numa_node"
echo -1 >"$R/devices/pci0000:40/0000:40:01.0/numa_node"
"$P" --sysfs-root "$R" --topology --json >"$j"
check_eq "NUMA -1: NODE, unknown" "NODE True None" \
	"$(rel nvme4 mlx5_1) $(pair nvme4 mlx5_1 "['numa_unknown']") $(json_get "$j" "[x for x in ${T}['devices'] if x['name'] == 'nvme4'][0]['numa_node']")"
# IOMMU groups that cannot be read (a file where the directory should be): unknown, named.
rm -rf "$R/kernel/iommu_groups" && echo x >"$R/kernel/iommu_groups"
"$P" --sysfs-root "$R" --topology --json >"$j"
check_eq "IOMMU unreadable: exit 0" 0 $?
check_match "IOMMU unreadable: unknown, named" "unknown .*kernel/iommu_groups: Not a directory" \
	"$(json_get "$j" "${T}['iommu']['mode'] + ' ' + ${T}['iommu']['reason']")"
rm -f "$R/kernel/iommu_groups"
check_eq "IOMMU off" "off" "$("$P" --sysfs-root "$R" --topology --json | "$PYTHON3" -c 'import json,sys; print(json.load(sys.stdin)["topology"]["iommu"]["mode"])')"
# Without root the ports hide their extended capabilities: the audit says unknown.
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/noroot" --topo --no-root
"$P" --sysfs-root "$TMPD/noroot" --topology --json >"$j" 2>/dev/null
check_eq "hidden capabilities: unknown, named" "unknown" "$(pair nvme0 mlx5_0 "['p2p']['verdict']")"
check_match "hidden capabilities: the port" "port 0000:02:0[01].0 hides its extended capabilities" "$(pair nvme0 mlx5_0 "['p2p']['reason']")"
check_eq "hidden capabilities: relation still known" "PIX" "$(rel nvme0 mlx5_0)"
# A dump: no IOMMU or modules to read, the matrix all the same.
"$P" --pci-dump "$FIXTURES/pci/switch_acs.lspci" --topology --json >"$j"
check_eq "dump: drive-NIC-GPU in one switch" "PIX PIX" "$(rel 0000:03:00.0 0000:04:00.0) $(rel 0000:03:00.0 0000:05:00.0)"
check_eq "dump: the drive's port redirects to a host bridge off the list" "no unknown" "$(pair 0000:03:00.0 0000:04:00.0 "['p2p']['verdict']") $(json_get "$j" "${T}['iommu']['mode']")"

# The kernel's host-bridge rule on both vendors' hosts (dumps: the IOMMU is unknown).
"$P" --pci-dump "$FIXTURES/pci/amd_zen_hosts.lspci" --topology --json >"$j"
check_eq "AMD Zen: drive-GPU across root ports" "PHB via_root amd_zen" \
	"$(rel 0000:02:00.0 0000:01:00.0) $(pair 0000:02:00.0 0000:01:00.0 "['p2p']['verdict']") $(pair 0000:02:00.0 0000:01:00.0 "['p2p']['host_rule']")"
check_match "AMD Zen: the reason names the rule" "^across root ports of an AMD Zen host \(1022:14a4\): p2pdma allows it; IOMMU mode unknown \(a dump\); GPU 0000:01:00.0: its driver is unknown \(a dump\)" \
	"$(pair 0000:02:00.0 0000:01:00.0 "['p2p']['reason']")"
check_eq "AMD Zen: drive-NIC across root complexes" "NODE via_root" \
	"$(rel 0000:02:00.0 0000:21:00.0) $(pair 0000:02:00.0 0000:21:00.0 "['p2p']['verdict']")"
"$P" --pci-dump "$FIXTURES/pci/intel_hosts.lspci" --topology --json >"$j"
check_eq "Intel 8086:2020: across root ports allowed" "via_root allow_list" \
	"$(pair 0000:01:00.0 0000:02:00.0 "['p2p']['verdict']") $(pair 0000:01:00.0 0000:02:00.0 "['p2p']['host_rule']")"
check_eq "Intel 8086:2f00: within its host bridge allowed" "via_root" "$(pair 0000:41:00.0 0000:42:00.0 "['p2p']['verdict']")"
check_match "Intel 8086:2f00: across host bridges refused" "^no host bridge 8086:2f00 is on the kernel's p2pdma allow-list only within one host bridge: p2pdma refuses it" \
	"$(pair 0000:01:00.0 0000:42:00.0 "['p2p']['verdict']") $(pair 0000:01:00.0 0000:42:00.0 "['p2p']['reason']" | sed 's/^across root complexes: //')"
check_eq "Intel 8086:1237: refused" "no refused" \
	"$(pair 0000:81:00.0 0000:02:00.0 "['p2p']['verdict']") $(pair 0000:81:00.0 0000:02:00.0 "['p2p']['host_rule']")"
# An AMD host bridge of no known Zen root complex: unknown, with why.
"$PYTHON3" - "$FIXTURES/pci/amd_zen_hosts.lspci" "$TMPD/amd_old.lspci" <<'PY'
import sys
text = open(sys.argv[1]).read()
# the host bridges' device ID (config bytes 02-03): a23 = 0x1423, an AMD family 15h one
text = text.replace("00: 22 10 a4 14", "00: 22 10 23 14")
open(sys.argv[2], "w").write(text)
PY
"$P" --pci-dump "$TMPD/amd_old.lspci" --topology --json >"$j"
check_eq "AMD of unknown age: unknown" "unknown unknown" \
	"$(pair 0000:02:00.0 0000:01:00.0 "['p2p']['verdict']") $(pair 0000:02:00.0 0000:01:00.0 "['p2p']['host_rule']")"
check_match "AMD of unknown age: why" "AMD host bridge 1022:1423 is not known as Zen or newer \(p2pdma allows CPUs of family 17h and newer\)" \
	"$(pair 0000:02:00.0 0000:01:00.0 "['p2p']['reason']")"
# IOMMU passthrough on the topology tree: named in the reason of a pair crossing the host.
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/pt" --topo
for g in "$TMPD"/pt/kernel/iommu_groups/*; do echo identity >"$g/type"; done
"$P" --sysfs-root "$TMPD/pt" --topology --json >"$j"
check_match "IOMMU passthrough named" "p2pdma allows it; IOMMU passthrough" "$(pair nvme3 mlx5_2 "['p2p']['reason']")"

# Eight GPUs and nothing else (the ESC8000A-E13P): the matrix and the audit without
# --topology, said on stderr; GPU pairs behind one switch are redirected by ACS, and the
# fix is named.
G=$TMPD/gpus
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$G" --gpus
"$P" --sysfs-root "$G" --json >"$j" 2>"$TMPD/g.err"
check_eq "GPUs only: exit 0" 0 $?
check_match "GPUs only: said" "no NVMe controllers or RDMA devices found under $G: the 8 GPUs audited as with --topology" "$(cat "$TMPD/g.err")"
check_eq "GPUs only: 8 placed, 28 pairs, all audited" "8 28 28" \
	"$(json_get "$j" "'%d %d %d' % (len(${T}['devices']), len(${T}['pairs']), sum(p['p2p'] is not None for p in ${T}['pairs']))")"
check_eq "GPU pair behind one switch: PIX, redirected through an AMD Zen host" "PIX via_root amd_zen" \
	"$(rel 0000:13:00.0 0000:14:00.0) $(pair 0000:13:00.0 0000:14:00.0 "['p2p']['verdict']") $(pair 0000:13:00.0 0000:14:00.0 "['p2p']['host_rule']")"
check_eq "GPU pair: the redirecting ports" "ACS ReqRedir CmpltRedir on 0000:12:00.0; ACS ReqRedir CmpltRedir on 0000:12:01.0" \
	"$(pair 0000:13:00.0 0000:14:00.0 "['p2p']['acs']")"
check_eq "GPU pair: the fix" "setpci -s 0000:12:00.0 106.w=0000:000c; setpci -s 0000:12:01.0 106.w=0000:000c (as root, until reboot), or boot with pci=disable_acs_redir=0000:12:00.0;0000:12:01.0, or turn ACS off in the firmware's setup" \
	"$(pair 0000:13:00.0 0000:14:00.0 "['p2p']['acs_fix']")"
check_eq "GPU pair across sockets: no fix to name" "SYS via_root None" \
	"$(rel 0000:13:00.0 0000:f4:00.0) $(pair 0000:13:00.0 0000:f4:00.0 "['p2p']['verdict']") $(pair 0000:13:00.0 0000:f4:00.0 "['p2p']['acs_fix']")"
"$P" --sysfs-root "$G" --topology >"$TMPD/g.txt" 2>"$TMPD/g.err"
check_eq "GPUs only with --topology: not said again" "" "$(cat "$TMPD/g.err")"
check_match "GPUs only: the fix in the text" "fix: setpci -s 0000:f2:00.0 106.w=0000:000c; setpci -s 0000:f2:01.0" "$(cat "$TMPD/g.txt")"
check_match "GPUs only: no drive for the nearest NIC" "nearest ACTIVE RDMA device of each drive: no drive is placed" "$(cat "$TMPD/g.txt")"
# With the redirection cleared on one switch (as the fix does), its pair stays in it.
for port in 0000:72:00.0 0000:72:01.0; do
	"$PYTHON3" - "$G/bus/pci/devices/$port/config" <<'PY'
import sys
with open(sys.argv[1], "r+b") as f:
    f.seek(0x106)
    ctl = int.from_bytes(f.read(2), "little") & ~0x2c
    f.seek(0x106)
    f.write(ctl.to_bytes(2, "little"))
PY
done
"$P" --sysfs-root "$G" --json >"$j" 2>/dev/null
check_eq "ACS cleared: direct, can, no fix" "direct True None none" \
	"$(pair 0000:73:00.0 0000:74:00.0 "['p2p']['verdict']") $(pair 0000:73:00.0 0000:74:00.0 "['p2p']['can']") $(pair 0000:73:00.0 0000:74:00.0 "['p2p']['acs_fix']") $(pair 0000:73:00.0 0000:74:00.0 "['p2p']['host_rule']")"
# NICs only: the table and, with --topology, the matrix.
expect_exit 0 "" "$P" --pci-dump "$FIXTURES/pci/nic_idle.lspci" --topology

# A crafted tree: device names with control bytes (an escape sequence, a bell, a newline
# that would forge a line). Every text line prints them escaped (\xNN), the devices, the
# matrix, the nearest NIC, the audit's reasons and --expect p2p's line on stderr alike;
# the JSON keeps them as they are.
C=$TMPD/crafted
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$C" --topo
NIC=$'mlx5\e[31m_0\nforged' DRIVE=$'nv\e]0;x\ame3'
mv "$C/class/infiniband/mlx5_1" "$C/class/infiniband/$NIC"
mv "$C/class/nvme/nvme3" "$C/class/nvme/$DRIVE"
rm -r "$C/bus/pci/devices/0000:83:00.0/p2pmem" # nowhere to stage: --expect p2p has a line
"$P" --sysfs-root "$C" --topology >"$TMPD/c.txt" 2>"$TMPD/c.err"
check_eq "crafted: exit status" 0 $?
check_eq "crafted: no control byte in the text but newlines" 0 \
	"$(LC_ALL=C tr -cd '\000-\011\013-\037\177' <"$TMPD/c.txt" | wc -c)"
ESC_NIC='mlx5\\x1b\[31m_0\\x0aforged' ESC_DRIVE='nv\\x1b\]0;x\\x07me3'
check_match "crafted: the devices" "^  $ESC_NIC rdma " "$(cat "$TMPD/c.txt")"
check_match "crafted: the matrix" "^  $ESC_DRIVE +X " "$(cat "$TMPD/c.txt")"
check_match "crafted: the nearest" "^  $ESC_DRIVE $ESC_NIC PIX +narrowest" "$(cat "$TMPD/c.txt")"
check_match "crafted: the audit's reason" "^  $ESC_DRIVE $ESC_NIC PIX +via_root no +ACS .*; $ESC_DRIVE publishes" \
	"$(cat "$TMPD/c.txt")"
"$P" --sysfs-root "$C" --dev "$DRIVE" --expect p2p >/dev/null 2>"$TMPD/c.err"
check_match "crafted: --expect p2p's line" "^nvme_link_probe: $ESC_DRIVE \(0000:83:00.0\) and $ESC_NIC: peer-to-peer not possible" \
	"$(cat "$TMPD/c.err")"
check_eq "crafted: nor on stderr" 0 "$(LC_ALL=C tr -cd '\000-\011\013-\037\177' <"$TMPD/c.err" | wc -c)"
"$P" --sysfs-root "$C" --topology --json >"$j"
check_eq "crafted: the JSON keeps the names" "True True" \
	"$(json_get "$j" "'mlx5\\x1b[31m_0\\nforged' in [x['name'] for x in ${T}['devices']], 'nv\\x1b]0;x\\x07me3' in [x['name'] for x in ${T}['devices']]" | tr -d "(),'")"
finish
