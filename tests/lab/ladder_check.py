#!/usr/bin/env python3
# tests/lab/ladder_check.py NBW_RESULTS OUT TMP: the record of the lab's
# two ladders (tests/lab/ladder.sh; node a's OUT/record, written in the guest
# by run_bench.sh, results in OUT/results/ladder and ladder-2) read on the host
# with nbw-results, its index rebuilt in TMP. Checks, each against figures taken
# from the run directories or the record, not from the verb under test:
#   list     two ladder runs of nodes a and b, the second with its note and the
#            mark of a known change, the same parameters;
#   show     each run's inventory of a and b, and its fabric figure the one in
#            its ladder.json;
#   compare  every figure of both runs paired, each change (B - A) / A, its
#            class within its noise band, the inventory identical on both
#            hosts (one boot) and the summary saying so, the change named;
#   trend    "fabric (mem)" on b: the two ladders' figures in order, the second
#            with its note, the baseline restarting there, a PNG of the size;
#   check    against a reference from the first run: each verdict from the
#            bounds, exit 3 exactly when one is outside; with bounds of 0 the
#            PCIe link rungs (identical) ok and every figure that moved outside;
#            the first run against it: exit 0.
# Prints one line per verb; the first failed check: "FAIL: ..." and exit 1.
import json
import struct
import subprocess
import sys

nbw, out, tmp = sys.argv[1:4]
base = [sys.executable, nbw, "--db", out + "/record", "--index", tmp + "/index.sqlite"]


def fail(msg):
    print("FAIL: ladder record: " + msg)
    sys.exit(1)


def run(*args, codes=(0,)):
    p = subprocess.run(base + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True)
    if p.returncode not in codes:
        fail("nbw-results %s: exit %d: %s" % (" ".join(args), p.returncode,
                                              p.stderr.strip() or p.stdout.strip()))
    return p.returncode, p.stdout


def js(*args, codes=(0,)):
    rc, text = run(*(args + ("--json",)), codes=codes)
    return rc, json.loads(text)


def expect(ok, msg):
    if not ok:
        fail(msg)


def close(a, b):
    return abs(a - b) <= 1e-9 * max(1.0, abs(a), abs(b))


def fabric_b(run_name):
    d = json.load(open("%s/results/%s/ladder.json" % (out, run_name)))
    return [r["measured_gb_per_s"] for r in d["rungs"]
            if r["name"] == "fabric (mem)" and r["node"] == "b"][0]


# list
_, runs = js("list")
expect(len(runs) == 2, "%d runs recorded, not 2: %s" % (len(runs), runs))
r1, r2 = runs
expect([r["mode"] for r in runs] == ["ladder", "ladder"], "modes %s" % [r["mode"] for r in runs])
expect(all(sorted(r["hosts"]) == ["a", "b"] for r in runs), "hosts %s" % [r["hosts"] for r in runs])
expect((r1["note"], r1["change_starts"]) == (None, False), "first run: %s" % r1)
expect((r2["note"], r2["change_starts"]) == ("second ladder, same lab", True), "second: %s" % r2)
expect(r1["params_hash"] == r2["params_hash"], "parameters differ: %s" % runs)
expect(all(r["exit_status"] == 0 for r in runs), "exit statuses %s" % runs)
print("# list: 2 ladder runs of a and b, %d and %d figures, the second noted" % (
    r1["figures"], r2["figures"]))

# show
shown = {}
for r, name in ((r1, "ladder"), (r2, "ladder-2")):
    _, s = js("show", r["uuid"])
    shown[r["uuid"]] = s
    expect(sorted(s["inventory"]) == ["a", "b"], "%s: inventory of %s" % (name, sorted(s["inventory"])))
    fab = [f["gb_per_s"] for f in s["figures"] if (f["rung"], f["node"], f["drive"]) == ("fabric (mem)", "b", None)]
    expect(fab == [fabric_b(name)], "%s: fabric figure %s, ladder.json %s" % (name, fab, fabric_b(name)))
fig = {u: {(f["rung"], f["node"] or "", f["drive"] or ""): f["gb_per_s"] for f in s["figures"]}
       for u, s in shown.items()}
fa, fb = fig[r1["uuid"]], fig[r2["uuid"]]
print("# show: inventory of a and b in both runs; fabric (mem) on b %.4f then %.4f GB/s" % (
    fabric_b("ladder"), fabric_b("ladder-2")))

# compare
# Two runs on emulated drives and an emulated fabric: a figure may move beyond its noise
# between them, and compare's answer to that is exit 3 (a drop), not a failure of the record.
_, c = js("compare", "latest~1", "latest", codes=(0, 3))
rows = {(x["rung"], x["node"] or "", x["drive"] or ""): x for x in c["figures"]}
expect(set(rows) == set(fa) | set(fb), "compare's figures %s, the runs' %s" % (
    sorted(rows), sorted(set(fa) | set(fb))))
moved = 0
for k, x in rows.items():
    if k not in fa or k not in fb:
        expect(x["class"] == "missing", "%s: in one run only, class %s" % (k, x["class"]))
        continue
    a, b = fa[k], fb[k]
    if not a:
        continue
    d = (b - a) / a * 100
    expect(x["a_gb_per_s"] == a and x["b_gb_per_s"] == b and close(x["change_pct"], d),
           "%s: %s, figures %s -> %s (%+.3f%%)" % (k, x, a, b, d))
    band = x["noise_pct"]
    want = "noise" if abs(d) <= band else "large" if abs(d) >= 10 and abs(d) > 2 * band else "moderate"
    expect(x["class"] == want, "%s: class %s, %+.2f%% against noise %.2f%%: %s" % (k, x["class"], d, band, want))
    moved += want != "noise"
expect(c["inventory"] == {"a": [], "b": []}, "inventory difference %s" % c["inventory"])
summary = c["summary"]
expect(summary[1] == ("unexplained: inventory identical" if moved else "inventory identical"),
       "summary %s with %d figures beyond noise" % (summary, moved))
expect("a known change starts at %s: second ladder, same lab" % r2["uuid"][:8] in summary,
       "summary %s" % summary)
print("# compare: %d figures, %d beyond noise; %s" % (len(rows), moved, "; ".join(summary)))

# trend
png = tmp + "/trend.png"
_, t = js("trend", "fabric (mem)", "--node", "b", "--out", png, "--size", "640x360")
pts = t["points"]
expect([(p["run"], p["gb_per_s"], p["note"], p["change_starts"]) for p in pts] ==
       [(r1["uuid"], fabric_b("ladder"), None, False),
        (r2["uuid"], fabric_b("ladder-2"), "second ladder, same lab", True)], "trend points %s" % pts)
since = t.get("since_change") or {}
expect((since.get("run"), since.get("points"), since.get("mean_gb_per_s")) ==
       (r2["uuid"], 1, fabric_b("ladder-2")), "since the change: %s" % since)
with open(png, "rb") as f:
    h = f.read(24)
expect(h[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", h[16:24]) == (640, 360),
       "trend.png is not a 640x360 PNG")
print("# trend: fabric (mem) on b, 2 points, the baseline restarting at the second; trend.png 640x360")

# reference from the first run, default bounds (-5%, no upper)
_, ref = js("reference", "set", "latest~1", "--single")
expect(ref["run"] == r1["uuid"] and {(e["rung"], e["node"] or "", e["drive"] or ""): e["ref"]
                                     for e in ref["entries"]} == fa, "reference %s" % ref)
rc, ck = js("check", "latest", codes=(0, 3))
# The GB/s rows against the figures recorded; the other figures (CPU, latency, IOPS: a
# row each, "figure" names it) are judged by their own direction, counted below.
gb = [x for x in ck["figures"] if x["figure"] == "gb_per_s"]
outside = 0
for x in gb:
    k = (x["rung"], x["node"] or "", x["drive"] or "")
    want = "below" if fb[k] < fa[k] * 0.95 else "ok"
    expect((x["ref"], x["value"], x["verdict"]) == (fa[k], fb[k], want), "check %s: %s" % (k, x))
    outside += want != "ok"
expect(len(gb) == len(set(fa) & set(fb)), "check: %d GB/s figures" % len(gb))
others = [x for x in ck["figures"] if x["figure"] != "gb_per_s"]
for x in others:
    if x["verdict"] in ("below", "above"):
        outside += 1
        lo, hi = x["accepted_change"]
        expect((lo is not None and x["value"] < x["ref"] * (1 + lo)) or
               (hi is not None and x["value"] > x["ref"] * (1 + hi)), "check, outside: %s" % x)
expect(rc == (3 if outside else 0) and ck["outside"] == outside, "check: exit %d, %s outside, %d expected" % (
    rc, ck["outside"], outside))
print("# check (reference: the first run, -5%%): exit %d, %d of %d figures outside (%d GB/s, %d others)" % (
    rc, outside, len(ck["figures"]), len(gb), len(others)))

# bounds of 0: what did not move is ok (the PCIe link rungs), the rest outside
js("reference", "set", "latest~1", "--single", "--lower", "0", "--upper", "0")
rc, ck = js("check", "latest", codes=(0, 3))
links = [x for x in ck["figures"] if x["rung"] == "link"]
expect(links and all(x["verdict"] == "ok" for x in links), "link rungs: %s" % links)
want = sum(1 for x in ck["figures"] if x["verdict"] != "not comparable" and x["value"] != x["ref"])
expect(want > 0 and rc == 3 and ck["outside"] == want, "bounds 0: exit %d, %s outside, %d moved" % (
    rc, ck["outside"], want))
rc, ck = js("check", "latest~1")
expect(rc == 0 and ck["outside"] == 0, "the first run against its own reference: %s" % ck)
print("# check (bounds 0): exit 3, %d moved figures outside, %d link rungs ok; the first run: exit 0" % (
    want, len(links)))
