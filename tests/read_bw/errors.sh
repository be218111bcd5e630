#!/bin/bash
# tests/read_bw/errors.sh: every bad input gets one clear line on stderr and the documented
# exit code (2 usage, 1 runtime), never a crash or a hang.
. "$(dirname "$0")/../lib.sh"
B="$NVME_READ_BW"
f="$TMPD/small.img"
make_pattern "$f" $((4 * 1024 * 1024)) 1
mkdir "$TMPD/dir"

expect_exit 1 "nvme9n1: No such file or directory" "$B" --disks /nonexistent/nvme9n1
expect_exit 1 "dir: is a directory, not a block device or file" "$B" --disks "$TMPD/dir"
expect_exit 1 "/dev/null: not a block device or regular file" "$B" --disks /dev/null
expect_exit 2 "invalid --disks list: empty item" "$B" --disks "$f,"
expect_exit 2 "named twice in --disks" "$B" --disks "$f,$f"
expect_exit 2 "chunk 1000B is not a multiple of the logical block size 4096" "$B" --disks "$f" -s 1000
expect_exit 2 "chunk 8MiB is larger than the span \(4MiB\)" "$B" --disks "$f" -s 8M
expect_exit 2 "span 8MiB is larger than the target \(4MiB\)" "$B" --disks "$f" --span 8M
expect_exit 2 "span 64KiB is too small for 32 threads" "$B" --disks "$f" --span 64K -s 4K -t 32
expect_exit 2 "invalid thread count '0': out of range 1\.\.1024$" "$B" --disks "$f" -t 0
expect_exit 2 "invalid thread count '100000': out of range 1\.\.1024$" "$B" --disks "$f" -t 100000
expect_exit 2 "invalid thread count 'many': malformed" "$B" --disks "$f" -t many
expect_exit 2 "invalid chunk size '1.5M': malformed" "$B" --disks "$f" -s 1.5M
expect_exit 2 "invalid chunk size '0': out of range" "$B" --disks "$f" -s 0
expect_exit 2 "invalid chunk size '2G': out of range 1B\.\.1GiB$" "$B" --disks "$f" -s 2G
expect_exit 2 "invalid span '12Q': malformed" "$B" --disks "$f" --span 12Q
expect_exit 2 "invalid duration 'soon': malformed" "$B" --disks "$f" -D soon
expect_exit 2 "invalid duration '0': out of range, at least 0\.01s$" "$B" --disks "$f" -D 0
expect_exit 2 "invalid warm-up '-1': malformed" "$B" --disks "$f" --warmup -1
expect_exit 2 "invalid interval '0s': out of range" "$B" --disks "$f" --interval 0s
expect_exit 2 "unknown engine 'aio' \(psync or io_uring\)" "$B" --disks "$f" --engine aio
expect_exit 2 "--depth needs --engine io_uring" "$B" --disks "$f" --depth 4
# Built without liburing, naming the engine is the error that comes first.
uring_err() { if grep -q "io_uring (not built)" <("$B" --help); then echo "engine 'io_uring' was not built"; else echo "$1"; fi; }
expect_exit 2 "$(uring_err "invalid depth '0': out of range")" "$B" --disks "$f" --engine io_uring --depth 0
expect_exit 2 "--iopoll needs --engine io_uring" "$B" --disks "$f" --iopoll
expect_exit 2 "--sqpoll needs --engine io_uring" "$B" --disks "$f" --engine psync --sqpoll
expect_exit 2 "--baseline and --sweep cannot be combined" "$B" --disks "$f" --baseline --sweep
expect_exit 2 "--baseline and --sweep-threads cannot be combined" "$B" --disks "$f" --sweep-threads --baseline
expect_exit 2 "--sweep and --sweep-chunk cannot be combined" "$B" --disks "$f" --sweep-chunk 64K --sweep
expect_exit 2 "--sweep-threads and --sweep-chunk cannot be combined" "$B" --disks "$f" --sweep-threads=1,2 --sweep-chunk
expect_exit 2 "--sweep-threads given twice" "$B" --disks "$f" --sweep-threads --sweep-threads 2
expect_exit 2 "--sweep-threads: the values must increase \('2' after a larger one\)" "$B" --disks "$f" --sweep-threads 4,2
expect_exit 2 "--sweep-chunk: a comma list of up to 32 values" "$B" --disks "$f" --sweep-chunk=64K,,128K
expect_exit 2 "invalid chunk size '1X': malformed" "$B" --disks "$f" --sweep-chunk=1X
expect_exit 2 "invalid thread count '0': out of range" "$B" --disks "$f" --sweep-threads 0,1
expect_exit 2 "chunk 1000B is not a multiple of the logical block size 4096" "$B" --disks "$f" --sweep-chunk 1000,4K
expect_exit 2 "chunk 8MiB is larger than the span \(4MiB\)" "$B" --disks "$f" --sweep-chunk 64K,8M
expect_exit 2 "--list cannot be combined with --sweep-chunk" "$B" --disks "$f" --list --sweep-chunk
expect_exit 2 "--checksum needs a chunk that is a multiple of 4096" "$B" --disks "$f" -s 512 --checksum
expect_exit 1 "NUMA node 4000 does not exist here" "$B" --disks "$f" --numa 4000
expect_exit 2 "invalid NUMA policy \(auto, off or a node\) 'near'" "$B" --disks "$f" --numa near
# getopt's own line names the tool, not the path it was run from ($B is one).
expect_exit 2 "^nvme_read_bw: unrecognized option '--frobnicate'$" "$B" --frobnicate
expect_exit 2 "unexpected argument 'extra' \(targets go in --disks\)" "$B" --disks "$f" extra
expect_exit 1 "nojson/out.json: No such file or directory" "$B" --disks "$f" --json="$TMPD/nojson/out.json"

# The machine is missing something (the device has no poll queues) is exit 1, with the
# hint that fits the device: a loop device has none to enable, only NVMe has poll_queues.
if "$B" --help | grep -q "io_uring (not built)"; then
	echo "note: --iopoll hint cases not run (built without liburing)"
else
	majmin=$(stat -c '%Hd:%Ld' "$f")
	for dev in loop7 nvme3n1; do
		mkdir -p "$TMPD/sys-$dev/devices/virtual/block/$dev/queue" "$TMPD/sys-$dev/dev/block"
		echo 0 >"$TMPD/sys-$dev/devices/virtual/block/$dev/queue/io_poll"
		ln -s "../../devices/virtual/block/$dev" "$TMPD/sys-$dev/dev/block/$majmin"
	done
	expect_exit 1 "small.img: --iopoll needs poll queues and loop7 has none: its driver offers none \(only NVMe and virtio disks have them\); run without --iopoll$" \
		"$B" --sysfs-root "$TMPD/sys-loop7" --disks "$f" --engine io_uring --iopoll -t 1 -D 0.2 --warmup 0
	expect_exit 1 "small.img: --iopoll needs poll queues and nvme3n1 has none; enable them with nvme.poll_queues=N on the kernel command line or 'modprobe nvme poll_queues=N'$" \
		"$B" --sysfs-root "$TMPD/sys-nvme3n1" --disks "$f" --engine io_uring --iopoll -t 1 -D 0.2 --warmup 0
fi

# Memory that cannot be locked: a 1 GiB buffer under a 64 KiB memlock limit without
# CAP_IPC_LOCK (root is stripped of it with setpriv): the read runs unlocked and says so.
if command -v setpriv >/dev/null && command -v prlimit >/dev/null && [ "$(id -u)" = 0 ]; then
	big="$TMPD/big.img"
	truncate -s 2G "$big"
	out=$(prlimit --memlock=65536 setpriv --bounding-set=-ipc_lock --inh-caps=-ipc_lock \
		"$B" --disks "$big" -t 1 -s 1G -D 0.5 --warmup 0 2>&1)
	check_eq "memlock 64 KiB: runs" 0 "$?"
	check_match "memlock 64 KiB: unlocked, said" "note: buffers not locked: they need 1GiB and RLIMIT_MEMLOCK is 64KiB" "$out"
else
	echo "note: memlock case not run (needs root, setpriv and prlimit)"
fi
# Memory that cannot be allocated: a 1 GiB buffer under a 600 MiB address-space limit.
if command -v prlimit >/dev/null; then
	truncate -s 2G "$TMPD/big2.img"
	expect_exit 1 "big2.img: cannot allocate a 1GiB reader buffer: Cannot allocate memory" \
		prlimit --as=$((600 * 1024 * 1024)) "$B" --disks "$TMPD/big2.img" -t 1 -s 1G -D 1 --warmup 0
fi

# Ctrl-C: SIGINT during the window still prints what was measured, marked interrupted,
# and exits 1 (a run cut short is no success); during the warm-up nothing was measured
# (exit 1).
"$B" --disks "$f" -t 1 --warmup 0.2 -D 30 --json >"$TMPD/int.json" 2>"$TMPD/int.err" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
check_eq "SIGINT in the window: exit" 1 "$rc"
check_match "SIGINT in the window: says so" "interrupted: the figures cover only what ran" "$(cat "$TMPD/int.err")"
check_eq "SIGINT: valid JSON, marked interrupted" True "$(json_get "$TMPD/int.json" 'd["interrupted"] and d["total"]["bytes"] > 0 and d["total"]["seconds"] < 5')"
"$B" --disks "$f" -t 1 --warmup 30 -D 1 >"$TMPD/w.out" 2>"$TMPD/w.err" &
pid=$!
sleep 1
kill -INT $pid
wait $pid
check_eq "SIGINT in the warm-up: exit" 1 "$?"
check_match "SIGINT in the warm-up: message" "interrupted during warm-up: nothing was measured" "$(cat "$TMPD/w.err")"

# --version goes to stdout and exits 0 (--help: tests/golden.sh).
check_match "--version" "^nvme_read_bw \(nvme-rdma-bw\) [0-9]" "$("$B" --version)"
finish
