#!/bin/bash
# Hostile input files: crafted `lspci -xxx` dumps (offsets out of range or negative as 32-bit
# values, non-hex bytes, long lines, oversized files) exit 1 with one line naming the file and
# line, never a signal; sysfs trees where a device is its own ancestor or where FIFOs stand
# for attributes end in seconds (probe and nvme_read_bw --list); a 200-PF SR-IOV dump whose
# PFs claim 65535 VFs each is probed in well under a second (VFs are matched to their PF
# without comparing every function with every VF).
. "$abs_top_srcdir/tests/lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
P=$NVME_LINK_PROBE
D=$FIXTURES/pci/gen5_port_gen3_drive.lspci
hdr='01:00.0 Non-Volatile memory controller: Device 144d:a808'
row='00 11 22 33 44 55 66 77 88 99 aa bb cc dd ee ff'

# bad NAME LINE REASON-REGEX CONTENT: the dump NAME (printf format CONTENT) is refused.
bad() {
	# shellcheck disable=SC2059 # CONTENT is a printf format
	printf "$4" >"$TMPD/$1.lspci"
	expect_exit 1 "^nvme_link_probe: $TMPD/$1.lspci:$2: $3\$" "$P" --pci-dump "$TMPD/$1.lspci"
}
bad off80000000 2 "offset 80000000 out of range \(0-fff\)" "$hdr\n80000000: $row\n"
bad offfffffff0 3 "offset fffffff0 out of range \(0-fff\)" "$hdr\n00: 86 80\nfffffff0: $row\n"
bad off1000 2 "offset 1000 out of range \(0-fff\)" "$hdr\n1000: 00\n"
bad off9digits 2 "offset 100000000 too long" "$hdr\n100000000: 00\n"
bad beyond4096 2 "bytes beyond offset fff \(config space is 4096 bytes\)" "$hdr\nff8: $row\n"
bad nonhex 2 "not a hex byte at column 8" "$hdr\n00: 86 8g 37 12\n"
bad truncated 2 "not a hex byte at column 5" "$hdr\n00: 8\n"
bad doublespace 2 "not a hex byte at column 8" "$hdr\n00: 86  80\n"
bad seventeen 2 "more than 16 bytes on a line" "$hdr\n00: $row 00\n"
bad orphan 1 "config bytes outside a device \(no header above\)" "00: $row\n"
bad afterblank 4 "config bytes outside a device \(no header above\)" "$hdr\n00: 86 80\n\n10: 00\n"
bad garbage 2 "neither a device header \(BB:DD.F ...\) nor config bytes \(OOO: xx ...\)" \
	"$hdr\nhello world\n"
bad baddev 1 "device 20 out of range \(00-1f\)" "01:20.0 x\n"
bad badfn 1 "function '8' out of range \(0-7\)" "0000:01:00.8 x\n"
bad nul 2 "NUL byte \(not a text file\)" "$hdr\n00: 86\0000 80\n"
bad longline 2 "line longer than 253 characters" "$hdr\n\t$(head -c 253 /dev/zero | tr '\0' x)\n"
# 253 characters (a tab and 252) is the longest line libpci reads: accepted.
{ head -n1 "$D"; printf '\t%s\n' "$(head -c 252 /dev/zero | tr '\0' x)"; tail -n +2 "$D"; } \
	>"$TMPD/line253.lspci"
expect_exit 0 "" "$P" --pci-dump "$TMPD/line253.lspci"
# A device with more than 4096 bytes: every line 000-ff0, then 1000.
{
	echo "$hdr"
	for o in $(seq 0 16 4095); do printf '%03x: %s\n' "$o" "$row"; done
	echo "1000: $row"
} >"$TMPD/over4k.lspci"
expect_exit 1 "^nvme_link_probe: $TMPD/over4k.lspci:258: offset 1000 out of range \(0-fff\)$" \
	"$P" --pci-dump "$TMPD/over4k.lspci"
# 10 MB: refused by size before any line is read.
head -c 10000000 /dev/zero | tr '\0' '\n' >"$TMPD/big.lspci"
expect_exit 1 "^nvme_link_probe: $TMPD/big.lspci: larger than 4 MiB$" "$P" --pci-dump "$TMPD/big.lspci"
expect_exit 1 "^nvme_link_probe: /dev/zero: not a regular file or a pipe$" "$P" --pci-dump /dev/zero
# A FIFO nobody writes: read as empty, not waited on.
mkfifo "$TMPD/idle.fifo"
expect_exit 1 "no NVMe controllers, RDMA devices or GPUs found in $TMPD/idle.fifo: nothing to audit" \
	timeout 20 "$P" --pci-dump "$TMPD/idle.fifo"

# What lspci writes still passes: CRLF lines, no final newline, `-v` detail lines, a pipe
# (the documents compared without their provenance: each run has its own id and time).
probe_doc() { "$P" --pci-dump "$1" --json | "$PYTHON3" -c 'import json, sys
d = json.load(sys.stdin); d.pop("provenance", None); print(json.dumps(d, indent=1))'; }
ref=$(probe_doc "$D")
sed 's/$/\r/' "$D" >"$TMPD/crlf.lspci"
check_eq "CRLF dump" "$ref" "$(probe_doc "$TMPD/crlf.lspci")"
printf '%s' "$(cat "$D")" >"$TMPD/nonl.lspci"
check_eq "no final newline" "$ref" "$(probe_doc "$TMPD/nonl.lspci")"
sed '/^[0-9a-f][0-9a-f]:[0-9a-f]/a\\tSubsystem: Device 0000:0000' "$D" >"$TMPD/verbose.lspci"
check_eq "-v detail lines" "$ref" "$(probe_doc "$TMPD/verbose.lspci")"
check_eq "dump from a pipe" "$ref" "$(probe_doc <(cat "$D"))"

# run_in SECONDS WHAT CMD...: CMD must end (no signal) within SECONDS; sets rc.
run_in() {
	local s=$1 what=$2
	shift 2
	timeout "$s" "$@" >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	T_CHECKS=$((T_CHECKS + 1))
	if [ "$rc" -ge 124 ]; then
		fail "$what: exit $rc (timeout or signal): $(head -c 300 "$TMPD/err")"
	else
		ok "$what: exit $rc"
	fi
}

# sysfs: a device that is its own parent, two that are each other's, FIFOs for attributes.
"$PYTHON3" "$FIXTURES/sysfs/mkhostile.py" "$TMPD/h"
run_in 20 "probe, looping tree" "$P" --sysfs-root "$TMPD/h/loop" --json
check_eq "looping tree exit" 0 "$rc"
check_eq "own parent: becomes a root port" "0000:01:00.0 endpoint 0000:00:01.0 root_port" \
	"$(json_get "$TMPD/out" "' '.join(h['bdf'] + ' ' + h['role'] for h in d['devices'][0]['path'])")"
run_in 20 "nvme_read_bw --list, looping tree" "$NVME_READ_BW" --sysfs-root "$TMPD/h/loop" --list
check_eq "--list looping tree" "0 1" "$rc $(grep -c '^/dev/nvme0n1 ' "$TMPD/out")"
run_in 20 "probe, FIFO attributes" "$P" --sysfs-root "$TMPD/h/fifo" --json
check_eq "FIFO attributes exit" 0 "$rc"
check_eq "FIFO model and speed unread" "None None" \
	"$(json_get "$TMPD/out" "str(d['devices'][0]['model']) + ' ' + str(d['devices'][0]['link']['speed_gts'])")"
run_in 20 "nvme_read_bw --list, FIFO size" "$NVME_READ_BW" --sysfs-root "$TMPD/h/fifo" --list
check_eq "--list FIFO size: no namespace" 1 "$rc"
check_match "--list FIFO size message" "no NVMe namespaces found" "$(cat "$TMPD/err")"
expect_exit 1 "^nvme_link_probe: $TMPD/h/fifocfg/bus/pci/devices/0000:01:00.0/config: not a regular file$" \
	timeout 20 "$P" --sysfs-root "$TMPD/h/fifocfg"
run_in 20 "nvme_read_bw --list, FIFO config" "$NVME_READ_BW" --sysfs-root "$TMPD/h/fifocfg" --list
check_eq "--list FIFO config: listed without a ceiling" "0 1" "$rc $(grep -c '^/dev/nvme0n1 ' "$TMPD/out")"

# 200 SR-IOV PFs claiming 65535 VFs each: VF matching is indexed, not quadratic.
"$PYTHON3" "$FIXTURES/pci/gen.py" sriov-many 200 65535 >"$TMPD/pf200.lspci"
t0=$(date +%s%N)
"$P" --pci-dump "$TMPD/pf200.lspci" --json >"$TMPD/pf200.json"
rc=$?
t1=$(date +%s%N)
ms=$(((t1 - t0) / 1000000))
echo "200-PF dump ($(wc -c <"$TMPD/pf200.lspci") bytes): probed in $ms ms"
check_eq "200-PF exit" 0 "$rc"
T_CHECKS=$((T_CHECKS + 1))
if [ "$ms" -lt 2000 ]; then ok "200-PF dump in $ms ms (< 2000)"; else fail "200-PF dump took $ms ms"; fi
check_eq "200-PF devices (the probe's limit)" 256 "$(json_get "$TMPD/pf200.json" "len(d['devices'])")"
check_eq "a VF's PF" "0000:02:00.0" \
	"$(json_get "$TMPD/pf200.json" "[x for x in d['devices'] if x['bdf']=='0000:02:00.1'][0]['physical_function']")"
finish
