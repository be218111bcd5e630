"""scale_sweep.sh's tables, from the run_bench.sh runs saved in the sweep directory:
the sweep (1..N drives, local and remote) and the local -> remote boundary. Each is
written as JSON, as TSV and as text (the text also on stdout).

    python3 -m nbw.sweep sweep SWEEP_DIR SRC_NODE SINK_NODE REMOTE(yes|no)
    python3 -m nbw.sweep boundary SWEEP_DIR SRC_NODE SINK_NODE SINK_DISKS SRC_DISKS
    python3 -m nbw.sweep drives FILE.json      (its drives' paths, comma-separated)
"""
import json
import os
import sys

from .command import run_verbs
from .jsonutil import is_number, read_json, write_json


def cell(v):
    """A TSV cell: floats with 4 decimals, None as -, anything else as text."""
    return "%.4f" % v if isinstance(v, float) else "-" if v is None else str(v)


def fmt(v, p):
    """A text-table figure: 3 decimals (p == 3) or 1, None as -."""
    return "-" if v is None else ("%.3f" % v if p == 3 else "%.1f" % v)


def save_tsv(path, comments, header, keys, rows):
    """The TSV: "# " comment lines, the header, then a row of cells per row (KEYS are
    its columns)."""
    with open(path, "w") as f:
        for c in comments:
            f.write("# %s\n" % c)
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(cell(r[k]) for k in keys) + "\n")


def save_text(path, lines, title):
    """The text table into PATH, then the title and the table on stdout."""
    text = "\n".join(lines) + "\n"
    with open(path, "w") as f:
        f.write(text)
    print(title)
    sys.stdout.write(text)


def gb_of(doc, key):
    v = (doc.get(key) or {}).get("gb_per_s") if isinstance(doc, dict) else None
    return v if is_number(v) else None


def boundary_rows(local, remote_docs, sink_disks, src_disks):
    """The boundary's rows: SINK's drives 1..L alone (LOCAL, a --sweep document), then
    all L plus the source's 1..R (REMOTE_DOCS[j - 1], the sink's aggregate document of
    run j or None); ideal = drives x the 1-drive local figure."""
    L = len(sink_disks)
    steps = {s.get("drives"): s for s in local.get("sweep") or [] if isinstance(s, dict)}
    one = steps.get(1, {}).get("gb_per_s")
    one = one if is_number(one) else None
    rows = []
    for k in range(1, L + 1):
        loc = steps.get(k, {}).get("gb_per_s")
        loc = loc if is_number(loc) else None
        rows.append({"drives": k, "local_drives": k, "remote_drives": 0,
                     "local_paths": sink_disks[:k], "remote_paths": [],
                     "local_gb_per_s": loc, "rdma_gb_per_s": 0.0 if loc is not None else None,
                     "total_gb_per_s": loc, "valid": "yes" if loc is not None else None,
                     "invalid_reason": None})
    for j, doc in enumerate(remote_docs, 1):
        if not isinstance(doc, dict) or doc.get("ok", True) is False:
            doc = None
        tv = doc.get("total_valid") if doc else None
        valid = None if tv is None else "yes" if tv is True else "no"
        rows.append({"drives": L + j, "local_drives": L, "remote_drives": j,
                     "local_paths": sink_disks, "remote_paths": src_disks[:j],
                     "local_gb_per_s": gb_of(doc, "local"), "rdma_gb_per_s": gb_of(doc, "rdma"),
                     "total_gb_per_s": gb_of(doc, "total"), "valid": valid,
                     "invalid_reason": doc.get("total_invalid_reason")
                     if doc and tv is False else None})
    for r in rows:
        r["ideal_gb_per_s"] = r["drives"] * one if one is not None else None
        t, i = r["total_gb_per_s"], r["ideal_gb_per_s"]
        r["percent_of_ideal"] = 100.0 * t / i if t is not None and i else None
    return one, rows


def boundary(sweep_dir, src, sink, sink_disks, src_disks):
    sink_disks, src_disks = sink_disks.split(","), src_disks.split(",")
    L, R = len(sink_disks), len(src_disks)
    local = read_json(os.path.join(sweep_dir, "boundary-local", "local-%s.json" % sink)) or {}
    remote_docs = [read_json(os.path.join(sweep_dir, "boundary-remote-%d" % j,
                                          "aggregate-%s.json" % sink)) for j in range(1, R + 1)]
    one, rows = boundary_rows(local, remote_docs, sink_disks, src_disks)
    doc = {"tool": "scale_sweep.sh", "mode": "boundary", "sink_node": sink, "source_node": src,
           "local_drives": L, "remote_drives": R, "sink_drives": sink_disks,
           "source_drives": src_disks, "one_drive_gb_per_s": one,
           "params": local.get("params"), "rows": rows}
    write_json(os.path.join(sweep_dir, "boundary.json"), doc)

    keys = ("drives", "local_gb_per_s", "rdma_gb_per_s", "total_gb_per_s", "ideal_gb_per_s",
            "percent_of_ideal", "valid")
    heads = ("drives", "local", "RDMA", "total", "ideal", "%_of_ideal", "valid")
    save_tsv(os.path.join(sweep_dir, "boundary.tsv"),
             ["scale_sweep.sh boundary: %s's drives, then + %s's drives -> %s DRAM; "
              "GB/s = 10^9 bytes/s; - = no figure" % (sink, src, sink), "local drives: %d" % L],
             heads, keys, rows)

    lines = ["%6s %10s %10s %10s %10s %10s  %s" % heads]
    for r in rows:
        lines.append("%6d %10s %10s %10s %10s %10s  %s" % (
            r["drives"], fmt(r["local_gb_per_s"], 3), fmt(r["rdma_gb_per_s"], 3),
            fmt(r["total_gb_per_s"], 3), fmt(r["ideal_gb_per_s"], 3),
            fmt(r["percent_of_ideal"], 1),
            (r["valid"] or "-") + (" (%s)" % r["invalid_reason"] if r["invalid_reason"] else "")))
        if r["drives"] == L and R:
            lines.append("%6s %s" % ("", "-- local -> remote boundary (+ %s's drives) --" % src))
    save_text(os.path.join(sweep_dir, "boundary.txt"), lines,
              "boundary: %s (GB/s; ideal = drives x the 1-drive local figure of %s)"
              % (sweep_dir, sink))
    return 0


def sweep_rows(local, remote_docs):
    """The sweep's rows: the first k drives of LOCAL (a --sweep document) together, and
    REMOTE_DOCS[k] (the sink's aggregate document of run k, None when there is none);
    ideal = k x the 1-drive figure, the link ceiling the sum of the k drives' ceilings."""
    drives = local["drives"]
    steps = {s["drives"]: s for s in local.get("sweep") or []}
    one = steps.get(1, {}).get("gb_per_s")
    rows = []
    for k in range(1, len(drives) + 1):
        loc = steps.get(k, {}).get("gb_per_s")
        ideal = k * one if is_number(one) else None
        ceilings = [d.get("link_ceiling_gb_per_s") for d in drives[:k]]
        ceiling = sum(ceilings) if all(is_number(c) for c in ceilings) else None
        rem = verify = None
        doc = remote_docs.get(k)
        if doc and doc.get("ok", True) is not False:
            rem = (doc.get("rdma") or {}).get("gb_per_s")
            verify = doc.get("verify")

        def pct(v):
            return 100.0 * v / ideal if is_number(v) and is_number(ideal) and ideal > 0 else None
        rows.append({"drives": k, "paths": [d["path"] for d in drives[:k]],
                     "local_gb_per_s": loc, "remote_gb_per_s": rem, "ideal_gb_per_s": ideal,
                     "link_ceiling_gb_per_s": ceiling, "local_percent_of_ideal": pct(loc),
                     "remote_percent_of_ideal": pct(rem), "remote_verify": verify})
    return rows


def sweep(sweep_dir, src, sink, remote):
    local = read_json(os.path.join(sweep_dir, "local", "local-%s.json" % src))
    drives = local["drives"]
    remote_docs = {}
    if remote == "yes":
        for k in range(1, len(drives) + 1):
            remote_docs[k] = read_json(os.path.join(sweep_dir, "remote-%d" % k,
                                                    "aggregate-%s.json" % sink))
    rows = sweep_rows(local, remote_docs)
    doc = {"tool": "scale_sweep.sh", "source_node": src, "sink_node": sink or None,
           "params": local.get("params"), "drives": [d["path"] for d in drives], "rows": rows}
    write_json(os.path.join(sweep_dir, "sweep.json"), doc)

    keys = ("drives", "local_gb_per_s", "remote_gb_per_s", "ideal_gb_per_s",
            "link_ceiling_gb_per_s", "local_percent_of_ideal", "remote_percent_of_ideal")
    save_tsv(os.path.join(sweep_dir, "sweep.tsv"),
             ["scale_sweep.sh: %s drives -> %s DRAM; GB/s = 10^9 bytes/s; - = no figure"
              % (src, sink or "(local only)")], keys, keys, rows)

    heads = ("drives", "local GB/s", "remote GB/s", "ideal GB/s", "link ceiling", "local %",
             "remote %")
    lines = ["%6s %12s %12s %12s %13s %8s %9s" % heads]
    for r in rows:
        lines.append("%6d %12s %12s %12s %13s %8s %9s" % (
            r["drives"], fmt(r["local_gb_per_s"], 3), fmt(r["remote_gb_per_s"], 3),
            fmt(r["ideal_gb_per_s"], 3), fmt(r["link_ceiling_gb_per_s"], 3),
            fmt(r["local_percent_of_ideal"], 1), fmt(r["remote_percent_of_ideal"], 1)))
    save_text(os.path.join(sweep_dir, "sweep.txt"), lines,
              "scale sweep: %s (ideal = k x the 1-drive local figure)" % sweep_dir)
    return 0


def drive_paths(path):
    """Its drives' paths, comma-separated (raises if the document has no drive list)."""
    with open(path) as f:
        return ",".join(d["path"] for d in json.load(f)["drives"])


def main(argv):
    return run_verbs(argv, {
        "sweep": (4, 4, sweep),
        "boundary": (5, 5, boundary),
        "drives": (1, 1, lambda path: print(drive_paths(path))),
    }, __doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
