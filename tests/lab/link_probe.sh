#!/bin/bash
# Lab test of nvme_link_probe: three emulated drives behind root ports advertising
# 8 GT/s x4, 16 GT/s x4 and 2.5 GT/s x16 (the last behind a PCIe switch). QEMU's NVMe
# endpoint advertises 2.5 GT/s x1, so every link trains at 2.5 x1 and the device limits
# it. The probe must find each drive behind its root port with the port's advertised
# link, agree with lspci, report the rxe device as having no PCIe link, fail a x4 audit
# (exit 3), and nvme_read_bw must get the same usable ceiling. QEMU's root ports carry
# slot=N: each drive's slot number is the SltCap "Slot #N" lspci shows for its port, its
# slot name lspci's "Physical Slot", and a site file with one bay short exits 3 naming it.
# smoke.sh runs the same checks (link_probe_check.sh) in its own boot; this test,
# not in make check, boots a lab for them alone.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

run_lab --drives 3 --links 8:4,16:4,2.5:16 --switch --drive-size 16M --timeout 200 \
	"$srcdir/tests/lab/link_probe_guest.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
out=$WORK/a/out
. "$srcdir/tests/lab/link_probe_check.sh"
echo "PASS: $test_name"
