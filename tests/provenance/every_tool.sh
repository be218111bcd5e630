#!/bin/bash
# The provenance block in every tool's JSON and the header line in every text report:
# nvme_read_bw (a plain run, --baseline, --memory, --list), nvme_link_probe (a captured
# sysfs tree: drives' serials and firmware, the HCA's fw_ver and board_id, "not readable"
# where sysfs has no file) and nvme_write_bw_remote over the fake fabric (the sink, the
# source, --bidir, -a, fan-in). Each block is read by the record's own reader
# (python/nbw/results/provenance.py: keys, types, ISO 8601 = Unix seconds, end >= start)
# and held against what the test knows: this host, the command it ran, a window inside
# the test's own time and as long as -D asked, a run id of its own per process.
. "${abs_top_srcdir:-$(dirname "$0")/../..}/tests/remote/fake_lib.sh"
command -v "$PYTHON3" >/dev/null || skip "python3 not installed"
HOST=$(hostname)
KERNEL=$(uname -r)

# prov FILE EXPR...: each EXPR on the block p (a Provenance: p.block the raw object), one
# line each into J[]; a block that breaks the contract fails the check and prints why.
prov() {
	local f=$1 out
	shift
	out=$(PYTHONPATH="$abs_top_srcdir/python" "$PYTHON3" - "$f" "$@" <<'PY'
import json, sys
from nbw.results import provenance
doc = json.load(open(sys.argv[1]))
try:
    p = provenance.read(doc)
except ValueError as e:
    print("BROKEN: %s" % e)
    sys.exit(0)
for expr in sys.argv[2:]:
    print(eval(expr) if p else "NO BLOCK")
PY
)
	mapfile -t J <<<"$out"
}

T0=$(date +%s)
# --- nvme_read_bw --------------------------------------------------------------------
IMG=$TMPD/drive.img
make_pattern "$IMG" $((8 << 20)) 1
R="$NVME_READ_BW --disks $IMG -t 1 -s 64K --warmup 0.2"
$R -D 1 --json >"$TMPD/read.json" 2>/dev/null
check_eq "read: exit" 0 $?
T1=$(date +%s)
prov "$TMPD/read.json" 'p.host' 'p.kernel' 'p.command' 'p.block["command_complete"]' \
	'p.measured' "$T0 <= p.start <= p.end <= $T1 + 1" \
	'0.9 <= p.end - p.start <= 1.5' 'p.version == doc["version"]' 'bool(p.build)' \
	'[(x["path"], x["kind"], x["model"], x["serial"], x["firmware"]) for x in p.drives]' \
	'p.ports' 'len(p.run_id)'
check_eq "read: the host" "$HOST" "${J[0]}"
check_eq "read: the kernel" "$KERNEL" "${J[1]}"
check_eq "read: the command line" "$R -D 1 --json" "${J[2]}"
check_eq "read: the command whole" True "${J[3]}"
check_eq "read: a window measured" True "${J[4]}"
check_eq "read: the window inside the test's time" True "${J[5]}"
check_eq "read: the window as long as -D 1" True "${J[6]}"
check_eq "read: the suite's version and a build" "True True" "${J[7]} ${J[8]}"
check_eq "read: a file has no drive identity (null)" "[('$IMG', 'file', None, None, None)]" "${J[9]}"
check_eq "read: no RDMA port" "[]" "${J[10]}"
check_eq "read: a run id" 36 "${J[11]}"
$R -D 1 >"$TMPD/read.txt" 2>/dev/null
check_match "read: the text header names host, date (UTC) and kernel" \
	"^ Host/date/kernel: $HOST  [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z  $KERNEL\$" \
	"$(grep '^ Host/date/kernel' "$TMPD/read.txt")"

# --baseline runs two windows of 0.5 s (each drive alone, then all; one drive: once):
# the span covers them all; --memory has its own window; --list measures none.
cp "$IMG" "$TMPD/drive2.img"
$NVME_READ_BW --disks "$IMG,$TMPD/drive2.img" -t 1 -s 64K --warmup 0 -D 0.5 --baseline --json \
	>"$TMPD/base.json" 2>/dev/null
prov "$TMPD/base.json" 'p.measured' '1.4 <= p.end - p.start <= 3' 'len(p.drives)'
check_eq "baseline: three windows (two drives alone, then together) in one span" \
	"True True 2" "${J[*]}"
$NVME_READ_BW --memory -t 1 -s 64K --warmup 0 -D 0.3 --numa off --json >"$TMPD/mem.json" 2>/dev/null
prov "$TMPD/mem.json" 'p.measured' '0.25 <= p.end - p.start <= 1'
check_eq "memory: its window" "True True" "${J[*]}"
$NVME_READ_BW --disks "$IMG" --list --json >"$TMPD/list.json" 2>/dev/null
prov "$TMPD/list.json" 'p.measured' '0 <= p.end - p.start < 5' 'p.drives[0]["path"]'
check_eq "list: no window, the tool's own span; the drive" "False True $IMG" "${J[*]}"

# --- nvme_link_probe ------------------------------------------------------------------
"$PYTHON3" "$FIXTURES/pci/gen.py" sysfs "$TMPD/root"
$NVME_LINK_PROBE --sysfs-root "$TMPD/root" --json >"$TMPD/probe.json"
check_eq "probe: exit" 0 $?
prov "$TMPD/probe.json" 'p.measured' \
	'[(x["controller"], x["model"], x["serial"], x["firmware"]) for x in p.drives]' \
	'[(x["device"], x["firmware"], x["board_id"]) for x in p.ports if x["device"] in ("mlx5_0", "mlx4_0")]'
check_eq "probe: no window" False "${J[0]}"
check_eq "probe: each controller's model, serial, firmware ('not readable' where sysfs has none)" \
	"[('nvme0', 'Fixture NVMe 4.0', 'FX0001', '1.2.3'), ('nvme1', 'Linux', 'not readable', '6.1.0')]" "${J[1]}"
check_eq "probe: each HCA's firmware and board id" \
	"[('mlx4_0', 'not readable', 'not readable'), ('mlx5_0', '16.35.2000', 'MT_0000000080')]" "${J[2]}"
check_match "probe: the text's first line" "^ Host/date/kernel: $HOST  .*Z  $KERNEL\$" \
	"$($NVME_LINK_PROBE --sysfs-root "$TMPD/root" | head -n1)"
$NVME_LINK_PROBE --pci-dump "$FIXTURES/pci/link_down.lspci" --json >"$TMPD/dump.json" 2>/dev/null
prov "$TMPD/dump.json" 'p.host' 'len(p.drives) + len(p.ports)'
check_eq "probe: a dump is another machine's: the host it ran on, no identities" "$HOST 0" "${J[*]}"

# --- nvme_write_bw_remote: sink and source ------------------------------------------
mkdir -p "$TMPD/sys/class/infiniband/fake0"
echo "20.31.1014" >"$TMPD/sys/class/infiniband/fake0/fw_ver"
echo "MT_0000000223" >"$TMPD/sys/class/infiniband/fake0/board_id"
pair rm "--no-local --dram 4M --json --sysfs-root $TMPD/sys" "--source mem --json"
check_eq "remote: exits" "0 0" "$SINK_RC $SRC_RC"
declare -A id start end ports
for side in sink src; do
	prov "$TMPD/rm-$side.out" 'p.host' 'p.measured' '0.9 <= p.end - p.start <= 1.6' \
		'[(x["device"], x["port"], x["firmware"], x["board_id"]) for x in p.ports]' \
		'p.run_id' 'p.start' 'p.end' '"--json" in p.command'
	check_eq "remote $side: host, a window of about -D 1" "$HOST True True" "${J[*]:0:3}"
	check_eq "remote $side: the command" True "${J[7]}"
	id[$side]=${J[4]} start[$side]=${J[5]} end[$side]=${J[6]}
	ports[$side]=${J[3]}
done
check_eq "remote sink: its ports, fake0's identity from --sysfs-root" \
	"[('fake0', 1, '20.31.1014', 'MT_0000000223'), ('fake1', 1, 'not readable', 'not readable')]" "${ports[sink]}"
check_eq "remote source: its ports (no identity under /sys)" \
	"[('fake0', 1, 'not readable', 'not readable'), ('fake1', 1, 'not readable', 'not readable')]" "${ports[src]}"
check_eq "remote: two processes, two run ids" True "$([ "${id[sink]}" != "${id[src]}" ] && echo True)"
check_eq "remote: the two windows overlap" True "$("$PYTHON3" -c "print(${start[sink]} < ${end[src]} and ${start[src]} < ${end[sink]})")"
pair rt "--no-local --dram 4M" "--source mem"
for side in sink src; do
	check_match "remote $side: the text header line" "^ Host/date/kernel: $HOST  .*Z  $KERNEL\$" \
		"$(grep '^ Host/date/kernel' "$TMPD/rt-$side.out")"
done

# --- --bidir, -a, fan-in: one block per document, at its top -------------------------
# shellcheck disable=SC2086 # RUN is a list of options
NBW_FAKE_PORTS=$SINK_PORTS timeout 60 "$FAKE" -p "$((PORT + 1))" --bidir $RUN --dram 4M --source mem \
	--json 127.0.1.2 >"$TMPD/bidir-a.out" 2>"$TMPD/bidir-a.err" &
bpid=$!
# shellcheck disable=SC2086
NBW_FAKE_PORTS=$SRC_PORTS timeout 60 "$FAKE" -p "$((PORT + 1))" --bidir $RUN --dram 4M --source mem \
	--json 127.0.1.1 >"$TMPD/bidir-b.out" 2>"$TMPD/bidir-b.err"
wait "$bpid"
prov "$TMPD/bidir-a.out" 'p.measured' '"provenance" in doc["send"] or "provenance" in doc["receive"]'
check_eq "bidir: one block at the top, a window measured" "True False" "${J[*]}"
sink sz -a --warmup 0 -D 0.2 --timeout 3 -t 1 --no-local --dram 128M --json
src sz-src -a --warmup 0 -D 0.2 --timeout 3 -t 1 --disks "$IMG" --json
sink_status
check_eq "-a: exits" "0 0" "$SINK_RC $SRC_RC"
prov "$TMPD/sz-src.out" 'p.measured' '1.3 <= p.end - p.start <= 10' 'len(doc["sizes"])' \
	'any("provenance" in s for s in doc["sizes"])' '[x["path"] for x in p.drives]'
check_eq "-a: one block over the 7 sizes' windows, the drive once" "True True 7 False ['$IMG']" "${J[*]}"
# shellcheck disable=SC2086
sink fan $RUN --no-local --dram 8M --sources 2 --json
# shellcheck disable=SC2086
src fan-src1 $RUN --source mem --json &
spid=$!
# shellcheck disable=SC2086
src fan-src2 $RUN --source mem --json
wait "$spid"
sink_status
prov "$TMPD/fan.out" 'p.measured' 'len(p.ports)'
check_eq "fan-in: the sink's block" "True 2" "${J[*]}"
finish
