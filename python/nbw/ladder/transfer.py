"""nbw.ladder.transfer: the user's own transfer (run_bench.sh's TRANSFER_CMD, timed on the
source by scripts/bench_transfer.sh) as the ladder's "transfer" rung.

  python3 -m nbw.ladder.transfer make OUT NODE COMMAND BYTES STDOUT STDERR RC
      writes OUT (transfer-NODE.json) from what the run left: the command's stdout
      and stderr (stderr's last line "nbw-transfer: rc=N start=S end=E" is the
      source's own clock around the command), its exit status RC as seen here, and
      BYTES (TRANSFER_BYTES in bytes, or "" to take them from the command's output:
      rsync --stats). Prints the document's one-line summary; exit 1 when it has no
      figure (the command failed, timed out, or its bytes are unknown).

transfer-NODE.json: {"tool": "transfer", "node", "command", "exit_status", "seconds",
"bytes", "bytes_from" ("TRANSFER_BYTES", "rsync --stats" or null), "gb_per_s" (null
without a figure), "ok", "why_no_figure", "stderr_last"}.
Standard library only."""
import glob
import json
import os
import re
import sys

from .. import command
from ..jsonutil import as_number, gb_text, printable, read_json

CLOCK = re.compile(r"^nbw-transfer: rc=(-?[0-9]+) start=([0-9]+(?:\.[0-9]+)?) "
                   r"end=([0-9]+(?:\.[0-9]+)?)$")
# rsync --stats: the file data it moved (a --dry-run's would be 0), else what it sent.
STATS = (("Total transferred file size", re.compile(
    r"^Total transferred file size:\s*([0-9][0-9,.]*)\s*([KMGT]?)\s*bytes", re.M)),
         ("Total bytes sent", re.compile(r"^Total bytes sent:\s*([0-9][0-9,.]*)\s*([KMGT]?)", re.M)))
UNITS = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
TIMEOUT_RC = 124


def stats_bytes(text):
    """The bytes rsync --stats says it moved (its own units: 1,234 or 1.23G with -h),
    None when the output says none."""
    for _, pat in STATS:
        m = pat.search(text or "")
        if not m:
            continue
        num = m.group(1).replace(",", "")
        try:
            v = float(num) * UNITS[m.group(2)]
        except ValueError:
            continue
        if v > 0:
            return int(v)
    return None


def read_text(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return ""


def clock_of(lines):
    """(rc, seconds) from the source's clock line, (None, None) without one; the lines
    without it."""
    rc = secs = None
    rest = []
    for line in lines:
        m = CLOCK.match(line.strip())
        if m:
            rc, secs = int(m.group(1)), float(m.group(3)) - float(m.group(2))
        else:
            rest.append(line)
    return rc, secs, rest


def document(node, cmd, given, out_text, err_text, rc):
    """The transfer document of one run of the command."""
    crc, secs, err = clock_of(err_text.splitlines())
    status = crc if crc is not None and rc != TIMEOUT_RC else rc
    last = next((x.strip() for x in reversed(err) if x.strip()), None)
    doc = {"tool": "transfer", "node": node, "command": cmd, "exit_status": status,
           "seconds": secs if secs is not None and secs > 0 else None, "bytes": None,
           "bytes_from": None, "gb_per_s": None, "ok": False, "why_no_figure": None,
           "stderr_last": last}
    if str(given).isdigit() and int(given) > 0:
        doc["bytes"], doc["bytes_from"] = int(given), "TRANSFER_BYTES"
    else:
        n = stats_bytes(out_text)
        if n:
            doc["bytes"], doc["bytes_from"] = n, "rsync --stats"
    if status == TIMEOUT_RC:
        doc["why_no_figure"] = "no result within TRANSFER_TIMEOUT (exit 124)%s" % (
            ": " + last if last else "")
    elif status != 0:
        doc["why_no_figure"] = "the command failed (exit %s)%s" % (status, ": " + last if last else "")
    elif doc["seconds"] is None:
        doc["why_no_figure"] = "the source's clock around the command was not read"
    elif doc["bytes"] is None:
        doc["why_no_figure"] = ("its bytes are not known: set TRANSFER_BYTES (the command's "
                                "output gave no rsync --stats total)")
    else:
        doc["gb_per_s"] = doc["bytes"] / doc["seconds"] / 1e9
        doc["ok"] = True
    return doc


def summary(doc):
    if doc["gb_per_s"] is None:
        return "transfer on %s: no figure: %s" % (doc["node"], doc["why_no_figure"])
    return "transfer on %s: %s GB/s (%d bytes from %s in %.3f s, exit 0)" % (
        doc["node"], gb_text(doc["gb_per_s"]), doc["bytes"], doc["bytes_from"], doc["seconds"])


def make(out, node, cmd, given, out_path, err_path, rc):
    if not re.match(r"^-?[0-9]+$", rc):
        sys.stderr.write("nbw.ladder.transfer: exit status '%s': not a number\n" % rc)
        return 2
    doc = document(node, cmd, given, read_text(out_path), read_text(err_path), int(rc))
    with open(out, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")
    print(printable(summary(doc)))  # a node's stderr: escaped, never a terminal's control
    return 0 if doc["ok"] else 1


def rungs(run_dir, rung, source):
    """The transfer rung of RUN_DIR's transfer-NODE.json (the source's, else the first),
    made with RUNG (model.rung); [] without one."""
    docs = {}
    for path in sorted(glob.glob(os.path.join(run_dir, "transfer-*.json"))):
        doc = read_json(path)
        if isinstance(doc, dict) and doc.get("tool") == "transfer":
            docs[os.path.basename(path)[len("transfer-"):-5]] = doc
    if not docs:
        return []
    node = source if source in docs else sorted(docs)[0]
    d = docs[node]
    ok = d.get("ok") is True and as_number(d.get("gb_per_s")) is not None
    return [rung("transfer", node, d.get("gb_per_s") if ok else None, None, kind="transfer",
                 failed=not ok, command=d.get("command"), bytes=as_number(d.get("bytes")),
                 bytes_from=d.get("bytes_from"), seconds=as_number(d.get("seconds")),
                 exit_status=d.get("exit_status"), why_no_figure=d.get("why_no_figure"),
                 under_rung=None, pct_of_under=None, gap_pct_of_top=None)]


USAGE = "usage: python3 -m nbw.ladder.transfer make OUT NODE COMMAND BYTES STDOUT STDERR RC\n"
VERBS = {"make": (7, 7, make)}

if __name__ == "__main__":
    sys.exit(command.run_verbs(sys.argv[1:], VERBS, USAGE))
