#!/bin/bash
# Guest side of drive_health.sh (node a). Drive 0 boots with critical warning bit 4
# (reliability degraded: vlab --smart-warning a:0:4, qemu's smart_critical_warning); the
# harness, not a tool of the suite, lowers drive 1's over-temperature threshold below its
# temperature with nvme-cli's Set Features (Temperature Threshold, FID 04h), where
# nvme-cli is installed. Then: each controller's raw health log page as nvme-cli reads it
# (the fixtures of tests/unit/test_health.c), nvme_read_bw in JSON and text, and
# nvme_write_bw_remote on rxe0 loopback (the source reads both drives, the sink none):
# the sink's report in JSON and text. Outputs and exit codes go to $VLAB_OUT.
set -u
O=$VLAB_OUT
B=nvme_write_bw_remote
# shellcheck disable=SC2086 # the drives' paths, a word each
set -- $VLAB_DRIVES
d0=$1 d1=$2

# The controller whose serial is $1 (vlab-a-N: drive N), e.g. nvme0.
ctrl_of() {
	local c
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' <"$c/serial")" = "$1" ] && basename "$c"
	done
}
c0=$(ctrl_of vlab-a-0)
c1=$(ctrl_of vlab-a-1)
# Each drive's namespace by its controller (the order of $VLAB_DRIVES is the kernel's).
[ -b "/dev/${c0}n1" ] && d0=/dev/${c0}n1
[ -b "/dev/${c1}n1" ] && d1=/dev/${c1}n1
echo "drive 0: $d0 on $c0; drive 1: $d1 on $c1"

if command -v nvme >/dev/null; then
	# 0 C (273 K): under any temperature the device reports (qemu's: 50 C).
	nvme set-feature "/dev/$c1" --feature-id=4 --value=273 >"$O/temp.out" 2>&1
	echo $? >"$O/temp.rc"
	nvme smart-log "/dev/$c0" -o binary >"$O/warning.page" 2>"$O/page.err"
	nvme smart-log "/dev/$c1" -o binary >"$O/temperature.page" 2>>"$O/page.err"
	echo $? >"$O/page.rc"
else
	echo "nvme-cli not installed: the temperature part is not set" >"$O/temp.skip"
fi

nvme_read_bw --disks "$d0,$d1" -t 2 --warmup 0.5 -D 3 --json >"$O/read.json" 2>"$O/read.err"
echo $? >"$O/read.rc"
nvme_read_bw --disks "$d0,$d1" -t 2 --warmup 0.5 -D 3 >"$O/read.txt" 2>&1
echo $? >"$O/read-text.rc"
cat "$O/read.txt"

# The remote tool: the source reads both drives; its RESULT carries their health.
listening() { ss -Hltn 'sport = :18515' | grep -q .; }
run_remote() { # NAME SINK-FORMAT-ARGS...
	local n=$1 sp
	shift
	"$B" --dram 64M --no-local --warmup 1 -D 3 -s 1M --depth 4 --timeout 10 "$@" \
		>"$O/$n.sink.out" 2>"$O/$n.sink.err" &
	sp=$!
	for _ in $(seq 300); do
		listening && break
		sleep 0.1
	done
	timeout 90 "$B" --disks "$d0,$d1" -q 2 --warmup 1 -D 3 -s 1M --depth 4 --timeout 10 \
		"$VLAB_ADDR" >"$O/$n.src.out" 2>"$O/$n.src.err"
	echo $? >"$O/$n.src.rc"
	wait "$sp"
	echo $? >"$O/$n.sink.rc"
	echo "$n: sink $(cat "$O/$n.sink.rc") source $(cat "$O/$n.src.rc")"
}
run_remote remote --json
run_remote remote-text
cat "$O/remote-text.sink.out"
exit 0
