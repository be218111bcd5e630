"""run_bench.sh's summary table of a run directory, its run.json, and the drive count
of a --baseline document (the end-to-end source's QPs).

    python3 -m nbw.summary table RUN_DIR
    python3 -m nbw.summary run-json PATH MODE STATUS NODE...   (settings: environment)
    python3 -m nbw.summary drive-count FILE.json
"""
import glob
import json
import os
import sys
import time

from .command import run_verbs
from .jsonutil import dig, number_text, read_json, write_json

COLUMNS = ("mode", "node", "role / step", "drives", "local GB/s", "RDMA GB/s", "total GB/s",
           "ideal GB/s", "% of ideal", "verify")
# run_bench.sh's settings recorded in run.json (those set and not empty).
RUN_SETTINGS = ("SINK_NODE", "SRC_NODE", "SRC_NODES", "SINK_ADDR", "SRC_ADDR", "BIDIR",
                "DURATION", "WARMUP", "THREADS", "CHUNK", "RDMA_DEV", "PORT", "DRAM", "VERIFY",
                "SINK_DISKS", "SRC_DISKS", "READ_ARGS", "SINK_ARGS", "SRC_ARGS", "NET_TIMEOUT",
                "SINK_WAIT", "LAUNCHER", "TOOL_DIR", "TX_DEPTH", "IB_WRITE_BW", "IPERF3",
                "TCP_STREAMS", "TCP_PORT", "EXPORTFS", "NFS_SIZE", "NFS_VERS", "NFS_RDMA_PORT",
                "NFS_DEPTHS", "TRANSFER_CMD", "TRANSFER_BYTES", "TRANSFER_TIMEOUT")


def load_docs(run_dir):
    """[(mode, node, document or None)] of RUN_DIR/MODE-NODE.json, in name order."""
    docs = []
    for path in sorted(glob.glob(os.path.join(run_dir, "*-*.json"))):
        mode, node = os.path.basename(path)[:-5].split("-", 1)
        docs.append((mode, node, read_json(path)))
    return docs


def bidir_rows(mode, node, d):
    b = d.get("bidir") or {}
    rows = []
    for part, key in (("send", "send_gb_per_s"), ("receive", "receive_gb_per_s")):
        sub = d.get(part) or {}
        rows.append((mode, node, "bidir " + part, str(len(sub.get("drives") or [])), "-",
                     number_text(b.get(key)), "-", "-", "-", str(sub.get("verify") or "-")))
    rows.append((mode, node, "bidir sum", "-", "-", "-", number_text(b.get("sum_gb_per_s")), "-",
                 "-", "valid" if b.get("sum_valid") is True else "NOT valid"))
    return rows


def remote_rows(mode, node, d):
    role = d.get("role") or "-"
    drives = d.get("drives") or []
    rows = [(mode, node, role, str(len(drives)),
             number_text(dig(d, "local", "gb_per_s")) if role == "sink" else "-",
             number_text(dig(d, "rdma", "gb_per_s")), number_text(dig(d, "total", "gb_per_s")),
             number_text(d.get("ideal_gb_per_s")), number_text(d.get("percent_of_ideal"), "%.1f"),
             str(d.get("verify") or "-"))]
    # --sources N: a row per source as the sink saw it, then whether the sum holds.
    for x in d.get("sources") or []:
        ndr = sum(1 for v in drives if str(v.get("path", "")).startswith("%s:" % x.get("peer")))
        rows.append((mode, node, "from %s" % (x.get("peer") or "(missing)"), str(ndr), "-",
                     number_text(dig(x, "rdma", "gb_per_s")), "-", "-", "-",
                     str(x.get("verify") or ("-" if x.get("ok") else "FAILED"))))
    if d.get("sources"):
        rows.append((mode, node, "total is a sum", "-", "-", "-", "-", "-", "-",
                     "valid" if d.get("total_valid") is True else "NOT valid"))
    return rows


def read_rows(mode, node, d):
    """nvme_read_bw's rows and its total (GB/s or None)."""
    total = dig(d, "total", "gb_per_s")
    drives = len(d.get("drives") or [])
    ideal = pct = None
    rows = []
    # --baseline (each drive alone, then all) and --sweep (first k drives):
    # one row per step, the last one is "all drives".
    steps = d.get("baseline") or d.get("sweep") or []
    for i, step in enumerate(steps):
        if i < len(steps) - 1:
            rows.append((mode, node, str(step.get("label", "-")), str(step.get("drives", "-")),
                         number_text(step.get("gb_per_s")), "-", number_text(step.get("gb_per_s")),
                         number_text(step.get("ideal_gb_per_s")),
                         number_text(step.get("percent_of_ideal"), "%.1f"), "-"))
        else:
            total, ideal, pct = (step.get("gb_per_s"), step.get("ideal_gb_per_s"),
                                 step.get("percent_of_ideal"))
    rows.append((mode, node, "all drives", str(drives), number_text(total), "-",
                 number_text(total), number_text(ideal), number_text(pct, "%.1f"), "-"))
    return rows, total


def summary_rows(docs):
    """The table's rows (tuples of text, COLUMNS) of load_docs()'s documents."""
    rows = []
    totals = {}
    for mode, node, d in docs:
        if d is None:
            rows.append((mode, node, "-", "-", "-", "-", "-", "-", "-", "no valid JSON"))
        elif d.get("tool") == "nvme_write_bw_remote" and d.get("role") == "bidir":
            rows += bidir_rows(mode, node, d)
        elif d.get("tool") == "nvme_write_bw_remote":
            rows += remote_rows(mode, node, d)
        else:
            more, total = read_rows(mode, node, d)
            rows += more
            if isinstance(total, (int, float)):
                totals[mode] = totals.get(mode, 0.0) + total
    for mode, t in totals.items():
        if sum(1 for m, _, d in docs if m == mode and d) > 1:
            rows.append((mode, "all", "sum of nodes", "-", number_text(t), "-", number_text(t),
                         "-", "-", "-"))
    return rows


def render(rows):
    """The table's lines: the first three columns left-aligned, the rest right."""
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(COLUMNS)]
    return ["  ".join(v.ljust(w) if i < 3 else v.rjust(w)
                      for i, (v, w) in enumerate(zip(r, widths))).rstrip()
            for r in [COLUMNS] + rows]


def table(run_dir):
    docs = load_docs(run_dir)
    if not docs:
        sys.exit("run_bench.sh: %s: no results (*-NODE.json)" % run_dir)
    print("results: %s" % run_dir)
    print("\n".join(render(summary_rows(docs))))
    return 0


def run_doc(mode, status, nodes, environ, finished=None):
    """run.json: the mode, nodes, exit status, finish time and the settings in ENVIRON."""
    return {"tool": "run_bench.sh", "mode": mode, "nodes": nodes, "exit_status": status,
            "finished": finished or time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "settings": {k: environ[k] for k in RUN_SETTINGS if environ.get(k)}}


def drive_count(path):
    """The number of drives in a tool's document (raises if it has no drive list)."""
    with open(path) as f:
        return len(json.load(f)["drives"])


def main(argv):
    return run_verbs(argv, {
        "table": (1, 1, table),
        "run-json": (3, None, lambda path, mode, status, *nodes: write_json(
            path, run_doc(mode, int(status), list(nodes), os.environ))),
        "drive-count": (1, 1, lambda path: print(drive_count(path))),
    }, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
