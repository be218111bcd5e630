#!/bin/bash
# Lab test: nvme_read_bw --pattern rand on the real NVMe driver (4096-byte blocks):
# random 4 KiB reads with io_uring and psync count IOPS and latency percentiles (ordered,
# bytes = reads x 4 KiB), --sweep-depth prints a verdict per drive, and the drives'
# backing files are unchanged afterwards (checked on the host after shutdown).
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/lab_lib.sh"

[ -x "$builddir/nvme_read_bw/nvme_read_bw" ] || fail "nvme_read_bw not built (run make first)"
run_lab --drives 2 --drive-size 64M --lbs 4096 --timeout 240 "$srcdir/tests/lab/read_rand_guest.sh"
[ "$vlab_rc" = 0 ] || fail "vlab returned $vlab_rc"
assert_no_qemu
out=$WORK/a/out
"$PY" - "$out" <<'PY' || fail "a random read result does not hold (see above)"
import json, os, sys
out = sys.argv[1]
bad = 0
def check(what, ok):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad += not ok
keys = ("min", "p50", "p90", "p99", "p99.9", "p99.99", "max")
for name in ("uring", "psync", "depth"):
    rc = open(os.path.join(out, name + ".rc")).read().strip()
    check("%s: exit 0 (%s)" % (name, rc), rc == "0")
    if rc != "0":
        print(open(os.path.join(out, name + ".err")).read())
        continue
    d = json.load(open(os.path.join(out, name + ".json")))
    check("%s: pattern rand, seed 3" % name, (d["params"]["pattern"], d["params"]["seed"]) == ("rand", 3))
    if name == "depth":
        for drv in d["drives"]:
            pts = drv["sweep"]
            check("%s: depths 1,4,16 with IOPS and p99" % drv["path"],
                  [p["depth"] for p in pts] == [1, 4, 16] and all(p["iops"] > 0 and p["p99_us"] > 0 for p in pts))
            check("%s: verdict %s: %s" % (drv["path"], drv["verdict"]["kind"], drv["verdict"]["text"]),
                  drv["verdict"]["kind"] in ("knee", "flat", "rising"))
        check("all drives: verdict", d.get("verdict", {}).get("kind") in ("knee", "flat", "rising"))
        continue
    t = d["total"]
    lat = t["latency_us"]
    check("%s: %.0f IOPS, %d reads = bytes / 4 KiB" % (name, t["iops"], t["ios"]),
          t["ios"] > 0 and t["bytes"] == 4096 * t["ios"])
    check("%s: latency us %s ordered, every read timed" % (name, [lat[k] for k in keys]),
          [lat[k] for k in keys] == sorted(lat[k] for k in keys) and lat["count"] == t["ios"])
    check("%s: no zero blocks (the pattern)" % name,
          all(drv["zero_fraction"] == 0 for drv in d["drives"]))
rc = open(os.path.join(out, "depth-text.rc")).read().strip()
text = open(os.path.join(out, "depth.txt")).read()
check("--sweep-depth text: exit %s, a verdict line" % rc,
      rc == "0" and "   verdict: IOPS " in text)
sys.exit(1 if bad else 0)
PY
assert_images_unchanged a
echo "PASS: $test_name"
