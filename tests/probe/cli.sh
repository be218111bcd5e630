#!/bin/bash
# nvme_link_probe's command line: --version, usage errors (exit 2 with one line),
# unreadable sources (exit 2/1), --json validity and --json=FILE (its --help and text:
# tests/golden.sh).
. "$abs_top_srcdir/tests/lib.sh"
P=$NVME_LINK_PROBE
D=$FIXTURES/pci/gen5_port_gen3_drive.lspci

check_match "--version" "^nvme_link_probe .* [0-9]+\.[0-9]+" "$("$P" --version)"
expect_exit 2 "^nvme_link_probe: unrecognized option '--bogus'$" "$P" --bogus
expect_exit 2 "invalid expected speed \(GT/s\) '7': not a PCIe value" "$P" --expect-speed 7
expect_exit 2 "invalid expected width '3': not a PCIe value" "$P" --expect-width 3
expect_exit 2 "invalid expectation \(genNxW, genN, xW, p2p or mps\) 'gen9x4'" "$P" --expect gen9x4
expect_exit 2 "invalid expectation" "$P" --expect fast
expect_exit 2 "unexpected argument 'nvme0'" "$P" nvme0
expect_exit 1 "nvme_link_probe: /nonexistent.lspci: No such file or directory" "$P" --pci-dump /nonexistent.lspci
expect_exit 1 "nvme_link_probe: /nonexistent/bus/pci/devices: No such file or directory" "$P" --sysfs-root /nonexistent
printf '00:00.0 Host bridge\n00: zz\n' >"$TMPD/bad.lspci"
expect_exit 1 "nvme_link_probe: .*bad.lspci:2: not a hex byte at column 5$" "$P" --pci-dump "$TMPD/bad.lspci"
printf '00:00.0 Host bridge\n00: 86 80 37 12\n' >"$TMPD/empty.lspci"
expect_exit 1 "^nvme_link_probe: no NVMe controllers, RDMA devices or GPUs found in $TMPD/empty.lspci: nothing to audit$" \
	"$P" --pci-dump "$TMPD/empty.lspci"
# Nothing to audit: the document is still written, and valid.
"$P" --pci-dump "$TMPD/empty.lspci" --json >"$TMPD/empty.json" 2>/dev/null
check_eq "nothing to audit: exit 1" 1 $?
check_eq "nothing to audit: a valid document, no device" "0 nvme_link_probe" \
	"$(json_get "$TMPD/empty.json" "'%d %s' % (len(d['devices']), d['tool'])")"
"$P" --pci-dump "$TMPD/empty.lspci" --topology --json >"$TMPD/empty.json" 2>/dev/null
check_eq "nothing to audit, --topology: an empty matrix" "0 0" \
	"$(json_get "$TMPD/empty.json" "'%d %d' % (len(d['topology']['devices']), len(d['topology']['pairs']))")"
# lspci -vvv text (or plain lspci) given for a dump: one line saying how to make a dump, exit 1.
printf '00:00.0 Host bridge: Intel Corporation 440FX\n\tControl: I/O- Mem+ BusMaster+\n\tLatency: 0\n\n01:00.0 Non-Volatile memory controller: Vendor Device 0a54\n\tLnkSta: Speed 8GT/s, Width x4\n' >"$TMPD/vvv.txt"
expect_exit 1 "^nvme_link_probe: .*/vvv.txt:1: no config bytes under this device \(lspci text, not a dump\): make one as root with 'lspci -xxx > FILE' \(-xxxx: the extended space too\)$" "$P" --pci-dump "$TMPD/vvv.txt"
printf '00:00.0 Host bridge\n00: 86 80 37 12\n\n01:00.0 Non-Volatile memory controller\n' >"$TMPD/half.txt"
expect_exit 1 "half.txt:4: no config bytes under this device" "$P" --pci-dump "$TMPD/half.txt"
if command -v lspci >/dev/null; then
	lspci -F "$D" -vvv >"$TMPD/real-vvv.txt" 2>/dev/null
	expect_exit 1 "real-vvv.txt:1: no config bytes under this device .*lspci -xxx > FILE" "$P" --pci-dump "$TMPD/real-vvv.txt"
fi
# --dev naming nothing the probe audits: exit 1, the line names the device and why; with
# --json the document is still written, the miss in it.
expect_exit 1 "^nvme_link_probe: --dev 09:00.0: no PCI function 0000:09:00.0 in the dump$" "$P" --pci-dump "$D" --dev 09:00.0
expect_exit 1 "^nvme_link_probe: --dev 00:02.0: 0000:00:02.0 is a PCI bridge \(class 0604\), not an NVMe controller or RDMA device$" "$P" --pci-dump "$D" --dev 00:02.0
"$P" --pci-dump "$D" --dev 00:02.0,01:00.0 --json >"$TMPD/m.json" 2>/dev/null
check_eq "--dev miss: exit" 1 $?
check_eq "--dev miss: the document still lists what matched" "0000:01:00.0" "$(json_get "$TMPD/m.json" "' '.join(x['bdf'] for x in d['devices'])")"
check_eq "--dev miss: in the document" "00:02.0|0000:00:02.0 is a PCI bridge (class 0604), not an NVMe controller or RDMA device" \
	"$(json_get "$TMPD/m.json" "'|'.join([d['unmatched'][0]['item'], d['unmatched'][0]['reason']])")"
"$P" --pci-dump "$D" --dev 09:00.0 --json >"$TMPD/m0.json" 2>/dev/null
check_eq "--dev matching nothing at all: a document with no devices" "0 1" "$(json_get "$TMPD/m0.json" "'%d %d' % (len(d['devices']), len(d['unmatched']))")"

# --json: nothing but the document on stdout; --json=FILE writes it there.
"$P" --pci-dump "$D" --json >"$TMPD/a.json"
T_CHECKS=$((T_CHECKS + 1))
if json_valid "$TMPD/a.json"; then ok "--json is valid JSON"; else fail "--json is not valid JSON"; fi
check_eq "json tool" nvme_link_probe "$(json_get "$TMPD/a.json" "d['tool']")"
check_eq "json keys" "bdf kind name numa_node link path ceiling_gb_per_s bottleneck_bdf verdict limited_by slot slot_reason slot_ceiling_gb_per_s slot_bottleneck_bdf" \
	"$(json_get "$TMPD/a.json" "' '.join(k for k in ['bdf','kind','name','numa_node','link','path','ceiling_gb_per_s','bottleneck_bdf','verdict','limited_by','slot','slot_reason','slot_ceiling_gb_per_s','slot_bottleneck_bdf'] if k in d['devices'][0])")"
"$P" --pci-dump "$D" --project --json >"$TMPD/p.json"
T_CHECKS=$((T_CHECKS + 1))
if json_valid "$TMPD/p.json"; then ok "--project --json is valid JSON"; else fail "--project --json is not valid JSON"; fi
check_eq "--project scenarios" "as_is gen4x4 gen5x4" "$(json_get "$TMPD/p.json" "' '.join(s['scenario'] for s in d['projection']['scenarios'])")"
"$P" --pci-dump "$D" -v --json="$TMPD/b.json" >"$TMPD/b.out"
check_eq "--json=FILE leaves stdout empty" 0 "$(wc -c <"$TMPD/b.out")"
check_eq "--json=FILE" "3" "$(json_get "$TMPD/b.json" "len(d['devices'])")"
# --expect in JSON.
"$P" --pci-dump "$D" --expect gen3x4 --json >"$TMPD/c.json" 2>"$TMPD/c.err"
check_eq "--expect exit" 3 $?
check_eq "--expect in JSON" "False" "$(json_get "$TMPD/c.json" "d['expect']['met']")"
check_match "audit line per device" "^nvme_link_probe: 0000:01:00.0: expectation not met: downgraded" "$(cat "$TMPD/c.err")"
check_eq "expectation per device" "False" "$(json_get "$TMPD/c.json" "[x for x in d['devices'] if x['bdf']=='0000:01:00.0'][0]['expectation']['met']")"
# A long reason (a narrower hop further up, with its own link's reason) is whole, in
# stderr and in JSON: it ends with the closing parenthesis of the switch's reason.
S=$FIXTURES/pci/switch_chain_gen2.lspci
"$P" --pci-dump "$S" --expect gen4x4 --json >"$TMPD/l.json" 2>"$TMPD/l.err"
check_match "long --expect reason whole in stderr" "0000:05:00.0: expectation not met: downgraded: a hop further up is narrower: .*switch capable of only 5 GT/s x16\)$" "$(cat "$TMPD/l.err")"
check_match "long --expect reason whole in JSON" "switch capable of only 5 GT/s x16\)$" \
	"$(json_get "$TMPD/l.json" "[x for x in d['devices'] if x['bdf']=='0000:05:00.0'][0]['expectation']['reason']")"
finish
