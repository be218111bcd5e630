#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""crosscheck.py LSPCI_VVV_OUTPUT PROBE_JSON: every function the probe decoded (each
device's own function and every hop of its path) has the LnkCap and LnkSta speed and
width that `lspci -vvv` prints for the same dump, and every device's slot number is the
"Slot #N" of its port's SltCap (a port lspci shows as "(Slot+)"), a device without a slot
sits below a "(Slot-)" port, and the ACS Control bits set are those of lspci's ACSCtl line
(no ACSCtl line: the probe found no ACS capability). Prints one line per comparison and exits 1 on any
difference (or when nothing was compared)."""
import json
import re
import sys

SPEED = re.compile(r"Speed (unknown|[0-9.]+GT/s)")
WIDTH = re.compile(r"Width x([0-9]+)")


def speed(text):
    m = SPEED.search(text)
    if not m or m.group(1) == "unknown":
        return None
    return float(m.group(1)[:-4])


def width(text):
    m = WIDTH.search(text)
    return int(m.group(1)) if m else None


def parse_lspci(path):
    devs, cur = {}, None
    for line in open(path):
        m = re.match(r"^(?:([0-9a-f]{4}):)?([0-9a-f]{2}:[0-9a-f]{2}\.[0-7]) ", line)
        if m:
            cur = (m.group(1) or "0000") + ":" + m.group(2)
            devs[cur] = {}
            continue
        if cur is None:
            continue
        s = line.strip()
        if s.startswith("LnkCap:"):
            devs[cur]["cap"] = (speed(s), width(s))
        elif s.startswith("LnkSta:"):
            devs[cur]["sta"] = (speed(s), width(s))
        m = re.search(r"Express \(v[0-9]\) .*\(Slot([+-])\)", s)
        if m:
            devs[cur]["slot_impl"] = m.group(1) == "+"
        if s.startswith("ACSCtl:"):
            devs[cur]["acsctl"] = " ".join(w[:-1] for w in s.split()[1:] if w.endswith("+"))
        m = re.match(r"Slot #([0-9]+),", s)
        if m:
            devs[cur]["slot"] = int(m.group(1))
    return devs


def main():
    lspci = parse_lspci(sys.argv[1])
    doc = json.load(open(sys.argv[2]))
    fns = {}
    for d in doc["devices"]:
        for f in [d.get("function")] + d.get("path", []):
            if f:
                fns[f["bdf"]] = f
    bad = n = 0
    for bdf, f in sorted(fns.items()):
        want = lspci.get(bdf)
        if want is None or "cap" not in want:
            print("FAIL %s: decoded by the probe, no LnkCap in lspci" % bdf)
            bad += 1
            continue
        got_cap = (f["lnkcap_speed_gts"], f["lnkcap_width"])
        got_sta = (f["speed_gts"], f["width"])
        for what, got, exp in (("LnkCap", got_cap, want["cap"]), ("LnkSta", got_sta, want["sta"])):
            n += 1
            exp = (exp[0], exp[1])
            if got[0] is not None:
                got = (float(got[0]), got[1])
            if got != exp:
                print("FAIL %s %s: probe %s, lspci %s" % (bdf, what, got, exp))
                bad += 1
            else:
                print("ok %s %s %s" % (bdf, what, got))
    for bdf, f in sorted(fns.items()):
        acs = f.get("acs")
        if acs is None:
            continue
        n += 1
        got, exp = acs["control"], lspci.get(bdf, {}).get("acsctl")
        if acs["capability"] is not None and got is None:
            got = ""
        if got != exp:
            print("FAIL %s ACSCtl: probe %r, lspci %r" % (bdf, got, exp))
            bad += 1
        else:
            print("ok %s ACSCtl %r" % (bdf, got))
    for d in doc["devices"]:
        if not d.get("path") or len(d["path"]) < 2:
            continue
        port = next((h["bdf"] for h in d["path"][1:]
                     if h["role"] in ("root_port", "switch_downstream")), None)
        want = lspci.get(port, {})
        got = (d.get("slot") or {}).get("number")
        exp = want.get("slot") if want.get("slot_impl") else None
        n += 1
        if got != exp:
            print("FAIL %s slot: probe %s, lspci (port %s) %s" % (d["bdf"], got, port, exp))
            bad += 1
        else:
            print("ok %s slot %s (port %s)" % (d["bdf"], got, port))
    if n == 0:
        print("FAIL: nothing compared")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
