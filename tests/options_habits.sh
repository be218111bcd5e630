#!/bin/bash
# options_habits.sh: the options fio users (nvme_read_bw) and perftest users
# (nvme_write_bw_remote) type out of habit: each is the same option here, or one line
# naming what to type instead (exit 2), or taken with a one-line note. And the
# contradictions each tool refuses, one line and exit 2. One row per case:
# TOOL | ARGS | EXIT | what stderr (or stdout) says.
. "$(dirname "$0")/lib.sh"
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
read|--json out.json|2|unexpected argument 'out.json': --json takes its file with '=' \(--json=out.json\)
probe|--pci-dump x --sysfs-root y|2|--pci-dump and --sysfs-root cannot be combined
CASES
finish
