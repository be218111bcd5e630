# SPDX-License-Identifier: MIT
"""The host's judgement of tests/lab/drive_health.sh: what the guest left in OUT (argv[1]).
Drive 0 booted with critical warning reliability_degraded; drive 1's over-temperature
threshold was lowered under its temperature by the harness (temp.rc 0), or that part was
skipped (temp.skip). Each is named by nvme_read_bw (JSON and text), by the remote tool's
sink for the source's drives (JSON drives[].health and drive_attribution, text), and by
the fleet judge's evidence (nbw.fleet.health.drive_evidence)."""
import json
import os
import sys

from nbw.fleet import health

out = sys.argv[1]
bad = 0


def check(what, ok):
    global bad
    print("%s: %s" % ("ok" if ok else "FAIL", what))
    bad += not ok


def text(name):
    try:
        with open(os.path.join(out, name)) as f:
            return f.read()
    except OSError:
        return ""


def doc(name):
    try:
        return json.loads(text(name))
    except ValueError:
        return {}


temp = text("temp.rc").strip() == "0"
if os.path.exists(os.path.join(out, "temp.skip")):
    print("SKIP (part): %s" % text("temp.skip").strip())
else:
    check("harness: nvme-cli lowered drive 1's threshold (exit %s)" % text("temp.rc").strip(),
          temp)
    page = open(os.path.join(out, "warning.page"), "rb").read()
    check("drive 0's raw page: 512 bytes, critical warning 0x%02x has reliability (4)"
          % (page[0] if page else 0), len(page) == 512 and page[0] & 4)
    page = open(os.path.join(out, "temperature.page"), "rb").read()
    check("drive 1's raw page: critical warning has temperature (2)",
          len(page) == 512 and page[0] & 2)
want = [("reliability_degraded", 0)] + ([("temperature", 1)] if temp else [])

# nvme_read_bw: the health log read (as root), the warning at the close, named in text.
check("nvme_read_bw: exit %s" % text("read.rc").strip(), text("read.rc").strip() == "0")
read = doc("read.json")
drives = read.get("drives", [])
for warn, k in want:
    h = drives[k].get("health", {}) if k < len(drives) else {}
    check("nvme_read_bw: drive %d's log read (%s)" % (k, h.get("why")), h.get("log_read") is True)
    check("nvme_read_bw: drive %d: %s in %s" % (k, warn, h.get("after", {}).get("warnings")),
          warn in h.get("after", {}).get("warnings", []))
    check("nvme_read_bw: drive %d: finding critical_warning" % k,
          "critical_warning" in h.get("findings", []))
    name = drives[k]["path"].rsplit("/", 1)[-1] if k < len(drives) else "?"
    check("nvme_read_bw text: %s: critical warning: %s" % (name, warn),
          "%s: " % name in text("read.txt") and "critical warning: %s" % warn in text("read.txt"))
    # The fleet judge's evidence of that drive, from the node's document.
    ev = health.drive_evidence(read, name) or {}
    check("fleet evidence: %s: rules %s, says %r" % (name, ev.get("rules"), ev.get("says")),
          "critical_warning" in (ev.get("rules") or []) and warn in (ev.get("says") or ""))

# The remote tool: the sink's combined report names the source's drives' warnings.
for side in ("sink", "src"):
    check("remote: %s exit %s" % (side, text("remote.%s.rc" % side).strip()),
          text("remote.%s.rc" % side).strip() == "0")
sink = doc("remote.sink.out")
rdma = [d for d in sink.get("drives", []) if d.get("side") == "rdma"]
expl = {a.get("path"): [r.get("rule") for r in a.get("rules", [])]
        for a in sink.get("drive_attribution", [])}
for warn, k in want:
    h = rdma[k].get("health", {}) if k < len(rdma) else {}
    check("remote sink: the source's drive %d: %s in %s" % (
        k, warn, h.get("after", {}).get("warnings")), warn in h.get("after", {}).get("warnings", []))
    path = rdma[k].get("path") if k < len(rdma) else None
    check("remote sink: drive_attribution names %s: %s" % (path, expl.get(path)),
          "critical_warning" in (expl.get(path) or []))
sink_text = text("remote-text.sink.out")
check("remote sink text: Drives explained, critical warning: reliability_degraded",
      "Drives explained:" in sink_text and "critical warning: reliability_degraded" in sink_text)
sys.exit(1 if bad else 0)
