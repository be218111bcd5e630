#!/bin/bash
# Lab test: drives that tell their health, on the real NVMe driver. Drive 0 of node a boots
# with critical warning bit 4 (reliability degraded: vlab --smart-warning a:0:4, qemu's nvme
# smart_critical_warning); the guest harness lowers drive 1's over-temperature threshold
# under its temperature with nvme-cli (where installed: else that part is skipped and said).
# nvme_read_bw reads both controllers' health logs (the admin passthrough, as root) and
# names the warnings; the remote tool's sink, whose source read the drives, names them in
# its combined report (the source's RESULT carries them); the fleet judge's evidence of the
# drive (nbw.fleet.health on the node's nvme_read_bw document) names the critical warning.
# The raw pages nvme-cli read are checked and kept (NBW_LAB_KEEP) as fixtures. The drives'
# backing files are unchanged afterwards: only the log was read.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

[ -x "$builddir/nvme_read_bw/nvme_read_bw" ] || fail "nvme_read_bw not built (run make first)"
run_lab --drives 2 --drive-size 64M --smart-warning a:0:4 --timeout 300 \
	"$srcdir/tests/lab/drive_health_guest.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
PYTHONPATH="$srcdir/python${PYTHONPATH:+:$PYTHONPATH}" "$PY" \
	"$srcdir/tests/lab/drive_health_check.py" "$WORK/a/out" ||
	fail "a drive's health is not named where it should be (see above)"
assert_images_unchanged a
echo "PASS: $test_name"
