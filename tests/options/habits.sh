#!/bin/bash
# tests/options/habits.sh: the options fio users (nvme_read_bw) and perftest users
# (nvme_write_bw_remote) type out of habit: each is the same option here, or one line
# naming what to type instead (exit 2), or taken with a one-line note. And the
# contradictions each tool refuses, one line and exit 2. One row per case:
# TOOL | ARGS | EXIT | what stderr (or stdout) says.
. "$(dirname "$0")/../lib.sh"
f="$TMPD/small.img"
make_pattern "$f" $((1024 * 1024)) 1
run="--disks $f -t 1 -s 64K -D 0.2 --warmup 0"

while IFS='|' read -r tool args code want; do
	[ -n "$tool" ] || continue
	case $tool in
	read) bin=$NVME_READ_BW ;;
	remote) bin=$NVME_WRITE_BW_REMOTE ;;
	probe) bin=$NVME_LINK_PROBE ;;
	esac
	args=${args//@RUN@/$run}
	args=${args//@DUMP@/$FIXTURES/pci/gen5_port_gen3_drive.lspci}
	# shellcheck disable=SC2086
	timeout 30 "$bin" $args >"$TMPD/out" 2>"$TMPD/err"
	rc=$?
	check_eq "$tool $args: exit" "$code" "$rc"
	check_match "$tool $args: says" "$want" "$(cat "$TMPD/err" "$TMPD/out")"
done <<'CASES'
read|--bs 4k|2|^nvme_read_bw: --bs: use -s/--chunk SIZE
read|--bs=4k|2|--bs: use -s/--chunk SIZE
read|--iodepth=32|2|--iodepth: use --depth N with --engine io_uring
read|--numjobs 4|2|--numjobs: use -t/--threads N \(reader threads per drive\)
read|--rw=randread|2|--rw: use --pattern rand \(randread\) or --pattern seq \(read\)
read|--runtime 30|2|--runtime: use -D/--duration SECONDS
read|--output-format=json|2|--output-format: use --json
read|--filename /dev/nvme0n1|2|--filename: use --disks LIST
read|--ioengine=libaio|2|--ioengine: use --engine psync or --engine io_uring
read|--direct=1 @RUN@|0|--direct: every read is O_DIRECT already
read|--percentile_list=50:99 @RUN@ --json|0|"p99": [0-9]
read|--percentile_list 99.9 @RUN@|0|--percentile_list: taken as --latency
read|--percentile_list=99:abc|2|invalid percentile list '99:abc': malformed
read|--percentile_list=0|2|invalid percentile list '0': out of range
read|--percentile_list=50:101|2|invalid percentile list '50:101': out of range
read|--json out.json|2|unexpected argument 'out.json': --json takes its file with '=' \(--json=out.json\)
remote|-b|2|--bidir needs a PEER
remote|--bidirectional -a peer|2|--bidir runs one size: drop -a
remote|--all --dump-slice x|2|-a runs every size \(2 bytes to 8M from memory, 64K to 4M from drives\): drop --dump-slice
remote|--all -s 1M peer|2|drop -s/--size
remote|-i 1 peer|2|^nvme_write_bw_remote: -i: the port goes in -d: -d DEV:PORT
remote|--ib-port=2 peer|2|--ib-port: the port goes in -d: -d DEV:PORT
remote|-O peer|2|-O: name both ports in -d \(-d DEV:1,DEV:2\)
remote|-n 1000 peer|2|-n: the run is timed, not counted: use -D/--duration SECONDS
remote|--iters 5000 peer|2|--iters: the run is timed, not counted
remote|-l 4 peer|2|-l: WRITEs are posted one at a time; the WRITEs in flight per QP are -t/--tx-depth
remote|-c UC peer|2|unknown connection type 'UC' \(RC\)
remote|-c RC -m 1000 peer|2|unknown MTU '1000' \(256, 512, 1024, 2048 or 4096\)
remote|-S 16 peer|2|invalid service level '16': out of range
remote|-T 256 peer|2|invalid traffic class '256': out of range
remote|--tos 300 peer|2|invalid traffic class '300': out of range
remote|-F --sl 16 peer|2|-F: nothing to skip: this tool does not check the CPU frequency governor
remote|--cpu_util --sl 16 peer|2|--cpu_util: CPU use is always reported
remote|--output=text peer|2|unknown output 'text' \(bandwidth\)
remote|--output=bandwidth -a peer|2|--output=bandwidth prints one figure: not with -a
remote|--output bandwidth --json peer|2|--output=bandwidth prints one figure: not with --json
remote|--out_json --output bandwidth peer|2|--output=bandwidth prints one figure: not with --json
remote|--out_json_file=x.json --output bandwidth peer|2|--output=bandwidth prints one figure: not with --json
remote|--out_json out.json|2|PEER 'out.json' looks like a file
remote|--run_infinitely peer|2|^nvme_write_bw_remote: --run_infinitely: every run has an end: use -D/--duration SECONDS .* with --interval SECONDS
remote|--source_ip 10.0.0.1 peer|2|^nvme_write_bw_remote: --source_ip: a source's addresses are its RDMA ports': pick them with -d DEV:PORT
remote|--verify full --no-verify|2|--verify and --no-verify cannot be combined
remote|--no-verify --verify canary|2|--verify and --no-verify cannot be combined
remote|--local-disks x --no-local|2|--local-disks and --no-local cannot be combined: the sink reads its drives or none
remote|--source mem --disks x peer|2|--source mem and --disks cannot be combined: a memory source reads no drives
remote|--json out.json|2|PEER 'out.json' looks like a file: --json takes its file with '=' \(--json=out.json\)
probe|--pci-dump x --sysfs-root y|2|--pci-dump and --sysfs-root cannot be combined
probe|-s 01:00.0 --pci-dump @DUMP@|0|^ *- +nvme +0000:01:00\.0 
probe|-s 0000:02:00.0 --pci-dump @DUMP@ --json|0|"bdf": "0000:02:00\.0"
probe|-s 03: --pci-dump @DUMP@ --json|0|"bdf": "0000:03:00\.0"
probe|-s .0 --pci-dump @DUMP@ --json|0|"bdf": "0000:03:00\.0"
probe|-s 0:01:*.0 --pci-dump @DUMP@ --json|0|"bdf": "0000:01:00\.0"
probe|-s 01:zz --pci-dump @DUMP@|2|^nvme_link_probe: invalid lspci selector \(\[\[\[\[domain\]:\]bus\]:\]\[slot\]\[\.\[func\]\]\) '01:zz'
probe|-s 00:02.0 --pci-dump @DUMP@|1|^nvme_link_probe: -s 00:02\.0: 0000:00:02\.0 is a PCI bridge \(class 0604\), not an NVMe controller or RDMA device
probe|--json out.json|2|^nvme_link_probe: unexpected argument 'out.json': --json takes its file with '=' \(--json=out.json\)$
CASES

# perftest's --out_json_file FILE: the JSON document into FILE, as --json=FILE (a sink that
# finds no RDMA port still writes its document, and says why).
timeout 30 "$NVME_WRITE_BW_REMOTE" --out_json_file "$TMPD/out.json" --wait 0.2 --no-local \
	--sysfs-root "$TMPD/none" >"$TMPD/out" 2>"$TMPD/err"
check_eq "remote --out_json_file FILE: exit (no RDMA port)" 1 "$?"
check_eq "remote --out_json_file FILE: the document in FILE" "nvme_write_bw_remote sink" \
	"$(json_get "$TMPD/out.json" 'd["tool"] + " " + d["role"]')"
finish
