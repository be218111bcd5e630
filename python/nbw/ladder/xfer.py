"""nbw.ladder.xfer: the ladder's rsync rungs (scripts/bench_xfer.sh): an rsync daemon on
the sink fed by 1 and by 8 rsync processes on the source, and one rsync through ssh beside
ssh's own one-stream ceiling.

The verb "json" (python3 -m nbw.ladder.xfer json ...) turns one rung's raw output on the
source (its rsync --stats and the line "nbw: seconds=S cpu_s=C rc=R"; the ssh ceiling's
"nbw: seconds=S rc=R cipher=X") and the sink daemon's CPU seconds before and after into
the rung's small document, RUN_DIR/rsync_{d1,d8,ssh}-NODE.json; rungs() reads those
documents into ladder rungs (kind "rsync"), named and shaped as the ladder's contract says.
Standard library only."""
import glob
import os
import re
import sys

from ..command import run_verbs
from ..jsonutil import as_number, read_json, write_json

GIB = 2 ** 30
# The documents' names and their rungs', in the ladder's order.
RUNGS = (("rsync_d1", "rsync daemon (1 stream)"), ("rsync_d8", "rsync daemon (8 streams)"),
         ("rsync_ssh", "rsync over ssh"))
CEILING_RUNG = "ssh (one stream)"
USAGE = """Usage: python3 -m nbw.ladder.xfer json OUT STREAMS FILES FILE_BYTES RAW CPU0 CPU1 [CEILING_RAW]
  OUT          the rung's document to write (rsync_d1-NODE.json, ...)
  RAW          the source's output: rsync --stats and "nbw: seconds= cpu_s= rc="
  CPU0 CPU1    the sink daemon's CPU seconds before and after ("" = not measured)
  CEILING_RAW  ssh's ceiling: "nbw: seconds= rc= cipher=" (rsync over ssh only)
"""


def nbw_line(path):
    """{key: value} of the last "nbw: k=v ..." line of PATH ({} when none)."""
    try:
        with open(path, errors="replace") as f:
            lines = [x for x in f.read().splitlines() if x.startswith("nbw: ")]
    except OSError:
        return {}
    if not lines:
        return {}
    return dict(w.split("=", 1) for w in lines[-1][5:].split() if "=" in w)


def number(text):
    """A non-negative float from TEXT, else None."""
    try:
        v = float(text)
    except (TypeError, ValueError):
        return None
    return v if v >= 0 and v == v and v != float("inf") else None


def stats_sent(path):
    """The sum of rsync --stats' "Total bytes sent" over the streams (None when none)."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    vals = [int(m.replace(",", "")) for m in re.findall(r"^Total bytes sent: ([0-9,]+)", text, re.M)]
    return sum(vals) if vals else None


def document(streams, files, file_bytes, raw, cpu0, cpu1, ceiling_raw=None):
    """The rung's document: what was sent, in how long, at what CPU; the ssh ceiling's
    figures when CEILING_RAW is given."""
    line = nbw_line(raw)
    total = files * file_bytes
    secs = number(line.get("seconds"))
    rc = int(line["rc"]) if str(line.get("rc", "")).isdigit() else None
    c0, c1 = number(cpu0), number(cpu1)
    doc = {"tool": "run_bench.sh rsync", "streams": streams, "files": files, "file_bytes": file_bytes,
           "bytes": total, "wire_bytes_sent": stats_sent(raw), "seconds": secs, "exit_status": rc,
           "ok": rc == 0 and bool(secs), "sender_cpu_s": number(line.get("cpu_s")),
           "receiver_cpu_s": round(c1 - c0, 3) if c0 is not None and c1 is not None and c1 >= c0 else None}
    if doc["receiver_cpu_s"] is None:
        doc["receiver_cpu_note"] = ("the sink's rsync runs under its sshd: not measured" if ceiling_raw
                                    else "the daemon's CPU could not be read on the sink")
    if ceiling_raw:
        c = nbw_line(ceiling_raw)
        s = number(c.get("seconds"))
        ok = c.get("rc") == "0" and bool(s)
        doc["ssh_cipher"] = c.get("cipher") if c.get("cipher") not in (None, "unknown") else None
        doc["ssh_cipher_from"] = "ssh -v (kex: client->server cipher)"
        doc["ssh_bytes"] = total
        doc["ssh_seconds"] = s
        doc["ssh_cipher_gb_per_s"] = total / s / 1e9 if ok else None
    return doc


def per_gib(cpu, nbytes):
    return cpu / (nbytes / GIB) if as_number(cpu) is not None and nbytes else None


def rungs(run_dir, rung, source=None):
    """The rsync rungs of RUN_DIR (made with model.rung), the source's only when SOURCE
    is known; a rung whose transfer failed is kept with no figure, failed true."""
    out = []
    for prefix, name in RUNGS:
        for path in sorted(glob.glob(os.path.join(run_dir, prefix + "-*.json"))):
            node = os.path.basename(path)[len(prefix) + 1:-5]
            d = read_json(path)
            if not isinstance(d, dict) or (source and node != source):
                continue
            nbytes, secs = as_number(d.get("bytes")), as_number(d.get("seconds"))
            gbs = nbytes / secs / 1e9 if d.get("ok") and nbytes and secs else None
            snd = per_gib(d.get("sender_cpu_s"), nbytes)
            rcv = per_gib(d.get("receiver_cpu_s"), nbytes)
            extra = {"kind": "rsync", "failed": not d.get("ok"), "streams": d.get("streams"),
                     "files": d.get("files"), "file_bytes": d.get("file_bytes"), "bytes": nbytes,
                     "seconds": secs, "sender_cpu_s_per_gib": snd, "receiver_cpu_s_per_gib": rcv}
            if d.get("receiver_cpu_note"):
                extra["receiver_cpu_note"] = d["receiver_cpu_note"]
            ceiling = None
            if prefix == "rsync_ssh":
                ceiling = as_number(d.get("ssh_cipher_gb_per_s"))
                extra.update(ssh_cipher=d.get("ssh_cipher"), ssh_cipher_gb_per_s=ceiling,
                             ceiling_rung=CEILING_RUNG)
            out.append(rung(name, node, gbs, ceiling, snd, **extra))
    return out


def json_verb(out, streams, files, file_bytes, raw, cpu0, cpu1, ceiling_raw=""):
    try:
        n, f, b = int(streams), int(files), int(file_bytes)
    except ValueError:
        sys.stderr.write("nbw.ladder.xfer: STREAMS, FILES, FILE_BYTES: integers\n")
        return 2
    write_json(out, document(n, f, b, raw, cpu0, cpu1, ceiling_raw or None))
    return 0


def main(argv):
    return run_verbs(argv, {"json": (7, 8, json_verb)}, USAGE)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
