#!/bin/bash
# The lab's guests keep their memory barriers. qemu 7.2's TCG (Debian 12) drops a
# guest's barriers (mfence, lock) when the machine can have only one vCPU, though
# its device threads share the guest's memory: a virtio ring then misses a kick now
# and then and stops for good (the two-node lab's stall, docs/investigations.md "Soft-RoCE
# stalls, found and removed"). vlab starts a one-vCPU node with room for a second (-smp
# 1,maxcpus=2), which keeps them. Checked on qemu itself: a boot sector that runs
# one mfence, and the barrier ops qemu's translator emits for it (-d op).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

# smp [ENV...]: vlab's -smp for a one-vCPU and a two-vCPU node.
smp() { (
	# shellcheck disable=SC2163 # the arguments are NAME=VALUE
	[ $# = 0 ] || export "$@"
	vlab_py 'print(vlab.smp_arg(1), vlab.smp_arg(2))'
); }
check_eq "-smp of one and two vCPUs" "1,maxcpus=2 2" "$(smp)"
check_eq "... with VLAB_SPARE_CPU=0 (to compare)" "1 2" "$(smp VLAB_SPARE_CPU=0)"

QEMU=${VLAB_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || { echo "# no $QEMU: the translation is not checked"; finish; exit; }
# cli; mfence; hlt; jmp back to hlt; the boot signature.
IMG=$TMPD/mfence.img
"$PYTHON3" -c 'import sys
code = bytes([0xfa, 0x0f, 0xae, 0xf0, 0xf4, 0xeb, 0xfd])
open(sys.argv[1], "wb").write(code + bytes(510 - len(code)) + b"\x55\xaa")' "$IMG"

# barriers SMP: the barrier ops qemu emits for the boot sector's code with -smp SMP.
barriers() {
	local log=$TMPD/op.$1.log pid
	rm -f "$log"
	"$QEMU" -M pc -accel tcg -cpu "${VLAB_CPU:-max}" -m 64 -smp "$1" -display none -monitor none \
		-serial none -drive "file=$IMG,format=raw,if=ide" -boot c \
		-d in_asm,op -dfilter 0x7c00+0x200 -D "$log" >/dev/null 2>&1 &
	pid=$!
	for _ in $(seq 300); do
		grep -q mfence "$log" 2>/dev/null && grep -q '^ *exit_tb' "$log" && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
	grep -q mfence "$log" 2>/dev/null || { echo "the boot sector did not run"; return; }
	grep -c '^ *mb ' "$log"
}
lab=$(smp | cut -d' ' -f1)
check_eq "a one-vCPU lab node (-smp $lab): its mfence is a barrier" 1 "$(barriers "$lab")"
check_eq "a two-vCPU lab node (-smp 2): its mfence is a barrier" 1 "$(barriers 2)"
# What the spare works around, for the log: 0 on qemu 7.2, 1 from qemu 8.1 on.
echo "# -smp 1 without the spare: $(barriers 1) barrier op(s) for the mfence ($("$QEMU" --version | head -n1))"
finish
