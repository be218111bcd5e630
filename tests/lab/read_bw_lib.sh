# tests/lab/read_bw_lib.sh: body of read_bw.sh and read_bw_4k.sh (sourced, bash), with
# lbs (512|4096) and anchors (words for read_bw_guest.sh) set by the caller.
#
# One node, two 64 MiB drives: nvme_read_bw reads every drive; the digest of
# what it read equals blockdigest of the backing file's span; the backing files
# are unchanged afterwards (checked on the host after shutdown); fio and
# ib_write_bw run in the same boot and their figures are printed beside ours.
# shellcheck shell=bash disable=SC2154 # lbs and anchors: the caller's
. "$(dirname "$0")/lab_lib.sh"

span=33554432
for f in "$builddir/nvme_read_bw/nvme_read_bw" "$builddir/tests/blockdigest"; do
	[ -x "$f" ] || fail "$f not built (run make first)"
done
# shellcheck disable=SC2086 # anchors: words, one argument each
run_lab --drives 2 --drive-size 64M --lbs "$lbs" --links 8:4,16:4 --timeout 180 \
	"$srcdir/tests/lab/read_bw_guest.sh" $anchors
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
"$PY" "$srcdir/tests/lab/read_bw_check.py" "$WORK" "$builddir/tests/blockdigest" "$span" "$lbs" ||
	fail "nvme_read_bw's result does not hold (see above)"
assert_images_unchanged a
echo "PASS: $test_name"
