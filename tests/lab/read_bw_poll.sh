#!/bin/bash
# Lab test: nvme_read_bw --engine io_uring --iopoll and --sqpoll on the real NVMe driver
# loaded with poll queues (the guest reloads it: modprobe nvme poll_queues=2). Before the
# reload --iopoll stops with the one-line hint; after it, each mode's digest of every drive
# equals blockdigest of the backing file's span, and the backing files are unchanged.
# fio --hipri and --sqthread_poll figures of the same boot are printed beside ours.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

span=33554432
for f in "$builddir/nvme_read_bw/nvme_read_bw" "$builddir/tests/blockdigest"; do
	[ -x "$f" ] || fail "$f not built (run make first)"
done
run_lab --drives 2 --drive-size 64M --lbs 4096 --timeout 240 "$srcdir/tests/lab/read_bw_poll_guest.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
out=$WORK/a/out
[ "$(cat "$out/nopoll.rc")" = 1 ] || fail "--iopoll without poll queues: exit $(cat "$out/nopoll.rc"), expected 1"
grep -q "needs poll queues and nvme[0-9]*n[0-9]* has none; enable them with nvme.poll_queues=N" "$out/nopoll.err" ||
	fail "--iopoll without poll queues: no hint: $(cat "$out/nopoll.err")"
note "without poll queues: $(cat "$out/nopoll.err")"
while read -r d v; do
	[ "$v" = 1 ] || fail "$d: queue/io_poll is '$v' after modprobe nvme poll_queues=2"
done <"$out/io_poll.txt"
"$PY" - "$WORK" "$builddir/tests/blockdigest" "$span" <<'PY' || fail "a polled read does not hold (see above)"
import json, os, subprocess, sys
work, blockdigest, span = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = os.path.join(work, "a", "out")
drives = open(os.path.join(out, "drives.txt")).read().split()
bad = 0
def fio_gbps(name):
    p = os.path.join(out, "fio-%s.json" % name)
    if not os.path.exists(p):
        return None
    return sum(j["read"]["bw_bytes"] for j in json.load(open(p))["jobs"]) / 1e9
for mode, anchor in (("iopoll", "hipri"), ("sqpoll", "sqthread_poll")):
    rc = open(os.path.join(out, mode + ".rc")).read().strip()
    if rc != "0":
        print("FAIL: --%s: exit %s: %s" % (mode, rc, open(os.path.join(out, mode + ".err")).read()))
        bad += 1
        continue
    doc = json.load(open(os.path.join(out, mode + ".json")))
    if not doc["params"][mode]:
        print("FAIL: --%s not recorded in params" % mode)
        bad += 1
    for d in doc["drives"]:
        i = drives.index(d["path"])
        img = os.path.join(work, "images", "a%d.img" % i)
        want = subprocess.run([blockdigest, img, str(span)], check=True, stdout=subprocess.PIPE,
                              universal_newlines=True).stdout.strip()
        ck = d.get("checksum") or {}
        ok = ck.get("digest") == want and ck.get("complete") and ck.get("span") == span
        print("%s: --%s %s: digest %s (%s), %.3f GB/s" % ("ok" if ok else "FAIL", mode, d["path"],
              ck.get("digest"), "equals a%d.img's" % i if ok else "want " + want, d["gb_per_s"]))
        bad += not ok
    fio = fio_gbps(anchor)
    print("# --%s total %.3f GB/s, fio --%s %s GB/s (TCG: functional, not a benchmark)" % (
        mode, doc["total"]["gb_per_s"], anchor, "%.3f" % fio if fio is not None else "-"))
sys.exit(1 if bad else 0)
PY
assert_images_unchanged a
echo "PASS: $test_name"
