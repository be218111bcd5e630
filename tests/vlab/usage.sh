#!/bin/bash
# scripts/vlab's command line, without booting anything (options are checked
# before the lab is): bad values of --nodes, --nics, --nic-link and the other
# options exit 2 with one line on stderr; --help: tests/golden.sh;
# `vlab pattern` works.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"
VLAB=$abs_top_srcdir/scripts/vlab
S=$TMPD/script.sh
echo 'exit 0' >"$S"

expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes 0 "$S"
expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes 5 "$S"
expect_exit 2 '^vlab: --nodes: 1\.\.4$' "$VLAB" run --nodes two "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics 0 "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics 9 "$S"
expect_exit 2 '^vlab: --nics: 1\.\.4$' "$VLAB" run --nics -1 "$S"
expect_exit 2 "^vlab: bad link '8:3'" "$VLAB" run --nics 2 --nic-link 16:16,8:3 "$S"
expect_exit 2 "^vlab: bad link '3:4'" "$VLAB" run --links 8:4,3:4 "$S"
expect_exit 2 '^vlab: option --on-c needs a value$' "$VLAB" run --on-c
expect_exit 2 '^vlab: cannot read /nonexistent/c\.sh$' "$VLAB" run --on-c /nonexistent/c.sh "$S"
expect_exit 2 '^vlab: run: SCRIPT missing$' "$VLAB" run --nodes 3
expect_exit 2 '^vlab: unknown option --node$' "$VLAB" run --node 2 "$S"
expect_exit 2 '^vlab: --drives: 1\.\.16$' "$VLAB" run --drives 17 "$S"
expect_exit 2 '^vlab: --lbs: 512 or 4096$' "$VLAB" run --lbs 1024 "$S"
expect_exit 2 '^vlab: --drive-size: a multiple of 1M$' "$VLAB" run --drive-size 1500K "$S"
expect_exit 2 '^vlab: --timeout: a positive integer$' "$VLAB" run --timeout 0 "$S"
# A part slowed on purpose: a node of the lab, an index in range, a whole rate above 0;
# each wrong value named in one line, exit 2, before anything boots.
expect_exit 2 "^vlab: --slow-drive e:0:20: no node 'e' in this lab \(a, b\)$" "$VLAB" run --nodes 2 --slow-drive e:0:20 "$S"
expect_exit 2 "^vlab: --slow-drive c:0:20: no node 'c' in this lab \(a, b\)$" "$VLAB" run --nodes 2 --slow-drive c:0:20 "$S"
expect_exit 2 "^vlab: --slow-drive b:2:20: no drive '2' \(--drives 2: 0\.\.1\)$" "$VLAB" run --nodes 2 --slow-drive b:2:20 "$S"
expect_exit 2 "^vlab: --slow-drive b:x:20: no drive 'x' \(--drives 2: 0\.\.1\)$" "$VLAB" run --nodes 2 --slow-drive b:x:20 "$S"
expect_exit 2 "^vlab: --slow-drive b:0:0: rate '0': a whole number of MB/s \(10\^6 bytes\), 1 to 999999$" "$VLAB" run --nodes 2 --slow-drive b:0:0 "$S"
expect_exit 2 "^vlab: --slow-drive b:0:fast: rate 'fast': a whole number of MB/s" "$VLAB" run --nodes 2 --slow-drive b:0:fast "$S"
expect_exit 2 "^vlab: --slow-drive b:0: NODE:INDEX:MBPS$" "$VLAB" run --nodes 2 --slow-drive b:0 "$S"
expect_exit 2 "^vlab: --slow-nic a:1:20: no NIC '1' \(--nics 1: 0\.\.0\)$" "$VLAB" run --slow-nic a:1:20 "$S"
expect_exit 2 "^vlab: --slow-nic a:0:-5: rate '-5': a whole number of Mbit/s \(10\^6 bits\), 1 to 999999$" "$VLAB" run --slow-nic a:0:-5 "$S"
expect_exit 2 "^vlab: --slow-nic a:0:30: NIC 0 of node a is slowed twice$" "$VLAB" run --slow-nic a:0:20 --slow-nic a:0:30 "$S"
expect_exit 2 "^vlab: option --slow-nic needs a value$" "$VLAB" run --slow-nic
# A drive's critical warning: bits 1..31 (qemu's smart_critical_warning), once a drive.
expect_exit 2 "^vlab: --smart-warning a:0:32: value '32': a whole number of critical warning bits \(1 spare, 2 temperature, 4 reliability, 8 read-only, 16 volatile backup\), 1 to 31$" "$VLAB" run --smart-warning a:0:32 "$S"
expect_exit 2 "^vlab: --smart-warning a:2:4: no drive '2' \(--drives 2: 0\.\.1\)$" "$VLAB" run --smart-warning a:2:4 "$S"
expect_exit 2 "^vlab: --smart-warning a:0:2: drive 0 of node a is given twice$" "$VLAB" run --smart-warning a:0:4 --smart-warning a:0:2 "$S"
got=$(vlab_py 'from nbw.lab.options import parse_run_args, validate
from nbw.lab.qemu import qemu_args
o, sc, a = parse_run_args(["--smart-warning", "a:1:4", "'"$S"'"])
s = validate(o, sc)
s.kernel = "K"
print([w for w in qemu_args(s, "/w", 0, None, "none") if w.startswith("nvme,")])')
check_eq "--smart-warning: drive 1's -device only" \
	"['nvme,drive=d0,serial=vlab-a-0,bus=rp1,logical_block_size=512,physical_block_size=512', 'nvme,drive=d1,serial=vlab-a-1,bus=rp2,logical_block_size=512,physical_block_size=512,smart_critical_warning=4']" "$got"
expect_exit 2 "^vlab: --slow-nic d:0:20: no node 'd' in this lab \(a, b, c\)$" "$VLAB" fleet --nodes 3 --slow-nic d:0:20
expect_exit 2 '^vlab: fleet: --nodes: 2\.\.4 \(a sweep measures pairs\)$' "$VLAB" fleet --nodes 1
expect_exit 2 "^vlab: fleet: unexpected argument extra \(nbw-fleet run's own options go after --\)$" "$VLAB" fleet extra
# The lab's qemu line and the node's settings: the throttled drive, the shaped NIC.
got=$(vlab_py 'from nbw.lab.options import parse_run_args, validate
from nbw.lab.qemu import qemu_args, node_env
from nbw.lab.cli import fleet_argv
o, sc, a = parse_run_args(fleet_argv(["--slow-drive", "b:1:20", "--slow-nic", "c:0:16", "--", "--duration", "8"]))
s = validate(o, sc)
s.kernel = "K"
print(s.nodes, a, [w for w in qemu_args(s, "/w", 1, None, "none") if "throttling" in w])
print([w for n in range(4) for w in qemu_args(s, "/w", n, None, "none") if "throttling" in w].__len__())
print([l for l in node_env(s, 2).splitlines() if "SLOW" in l])
print([l for l in node_env(s, 1).splitlines() if "SLOW_NICS" in l])')
check_eq "vlab fleet: 4 nodes, its args to nbw-fleet run, b's drive 1 throttled to 20 MB/s, only it, c's NIC 0 shaped" \
	"4 ['--duration', '8'] ['file=/w/images/b1.img,if=none,id=d1,format=raw,cache=none,throttling.bps-read=20000000']
1
[\"VLAB_SLOW_NICS='0:16'\", \"VLAB_SLOWED='drive:b:1:20 nic:c:0:16'\"]
[\"VLAB_SLOW_NICS=''\"]" "$got"
expect_exit 2 '^vlab: unknown command frob$' "$VLAB" frob
expect_exit 2 '' "$VLAB"

VLAB_CABLE=bogus expect_exit 2 "^vlab: VLAB_CABLE: stream, socket, hub, not 'bogus'\$" "$VLAB" run "$S"
VLAB_CABLE=bogus expect_exit 2 "^vlab: VLAB_CABLE: stream, socket, hub, not 'bogus'\$" "$VLAB" check
check_eq "--version" "vlab 1" "$("$VLAB" --version)"
"$VLAB" pattern write "$TMPD/p.img" 1048576 64 && "$VLAB" pattern check "$TMPD/p.img" 64
check_eq "vlab pattern write/check" 0 $?
# The lab's default kernel: the newest 6.1 by version (not by spelling), else the newest.
pick() { vlab_py 'print(vlab.pick_kernel(sys.argv[3:]))' "$@"; }
check_eq "kernel: the newest 6.1" 6.1.0-57-amd64 "$(pick 6.12.117+deb12-amd64 6.1.0-9-amd64 6.1.0-57-amd64 5.10.0-30-amd64)"
check_eq "kernel: without a 6.1, the newest by version" 6.12.117+deb12-amd64 "$(pick 6.9.0-1-amd64 6.12.117+deb12-amd64 5.10.0-30-amd64)"
check_eq "kernel: none" None "$(pick)"
finish
