# tests/lab/lab_lib.sh: shared setup of the lab tests (sourced, bash).
#
# Sets srcdir, builddir, VLAB (the vlab script), PY (python3) and WORK (a
# private directory removed on exit, also vlab's --workdir) and skips (77)
# when qemu or a kernel image is missing. Every lab test boots its own lab in
# its own WORK; the labs take turns (lab_lock).
# shellcheck shell=bash

set -u
srcdir=${abs_top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
builddir=${abs_top_builddir:-$srcdir}
VLAB=$srcdir/scripts/vlab
PY=${PYTHON3:-python3}
command -v "$PY" >/dev/null || PY=python3
test_name=$(basename "$0" .sh)

fail() {
	echo "FAIL: $test_name: $*" >&2
	exit 1
}

note() { echo "# $*"; }

# Skip only where the lab cannot exist: no qemu or no kernel image (vlab check
# exits 77); a lab that is broken (125) or misconfigured (2, e.g. $VLAB_CABLE) fails.
why=$("$VLAB" check 2>&1)
case $? in
0) ;;
77) echo "$why"; exit 77 ;;
*) fail "$why" ;;
esac
echo "# $why"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/vlab-test.XXXXXX") || fail "mktemp"
trap 'rm -rf "$WORK"' EXIT

# No retry: a lab test that stalls fails. The guests run with a long ACK timeout
# (NBW_QP_TIMEOUT=20 in scripts/vlab.d/guest.sh: a starved responder ACKs late, and a
# requester would resend WRITEs that were not lost), and a one-vCPU node keeps its
# memory barriers (smp_arg in scripts/vlab's package: qemu 7.2 drops them otherwise and
# a virtio ring misses a kick); docs/investigations.md tells how each was found. A step
# that hangs prints its node's Soft-RoCE state (bounded() in guest_lib.sh), and vlab's
# link watch says which ring stopped.
#
# One lab at a time: each boots two or three guests on a 2-core host, and two
# labs side by side starve each other's guests into timing failures. The other
# tests still run beside the lab under make -j2. One lock file, by default in
# the build tree ($NBW_LAB_LOCK names another, so that several build trees on
# one machine take turns), taken here and held until the test exits (fd 9).
lab_lock() {
	command -v flock >/dev/null || return 0
	exec 9>"${NBW_LAB_LOCK:-$builddir/.lab.lock}" || return 0
	flock -x 9
}
lab_lock

# Run vlab with the build tree; its exit status in $vlab_rc, output in $WORK/out.txt
# (streamed too). NBW_LAB_KEEP=DIR: that output and every node's out/ directory
# are copied into DIR/TEST (WORK itself is removed at the exit).
run_lab() {
	local n d node
	"$VLAB" run --builddir "$builddir" --workdir "$WORK" "$@" 2>&1 | tee "$WORK/out.txt"
	vlab_rc=${PIPESTATUS[0]}
	note "vlab exit status $vlab_rc"
	[ -n "${NBW_LAB_KEEP:-}" ] || return 0
	n=$NBW_LAB_KEEP/$test_name${NBW_LAB_ATTEMPT:+-$NBW_LAB_ATTEMPT}
	mkdir -p "$n" && cp "$WORK/out.txt" "$n/" && for d in "$WORK"/[a-d]/out; do
		node=${d%/out}
		node=${node##*/}
		[ -d "$d" ] && mkdir -p "$n/$node" && cp -r "$d" "$n/$node/"
	done
	note "kept in $n"
}

# No qemu of this test may survive vlab.
assert_no_qemu() {
	local f pid left=
	for f in /proc/[0-9]*/cmdline; do
		pid=${f#/proc/}
		pid=${pid%/cmdline}
		[ "$pid" = $$ ] && continue
		{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -qF -- "-pidfile $WORK/" && left="$left $pid"
	done
	[ -z "$left" ] || fail "qemu still running after vlab returned:$left"
}

# The images of node $1 are byte for byte what vlab wrote before the boot.
assert_images_unchanged() {
	local n=$1 i f
	(cd "$WORK/images" && sha256sum --quiet -c "SHA256SUMS.$n") ||
		fail "node $n: backing files changed"
	# Pattern ID: node a 0x00, b 0x80, c 0x40, d 0xc0, | drive.
	local -A node_id=([a]=0 [b]=128 [c]=64 [d]=192)
	for f in "$WORK/images/$n"[0-9]*.img; do
		i=${f##*/"$n"}
		i=${i%.img}
		"$PY" "$srcdir/scripts/vlab.d/pattern.py" check "$f" $((node_id[$n] | i)) ||
			fail "node $n: $f no longer holds the pattern"
	done
	note "node $n: backing files unchanged"
}

# Value of VLAB_* variable $2 as node $1 exported it to its script.
guest_env() {
	sed -n "s/^$2=//p" "$WORK/$1/vlab.env"
}
