"""bench_read.sh's figures: one run's numbers out of the tools' JSON documents and the
tables of ours against fio with their ratios.

    python3 -m nbw.bench_read bytes SIZE
        SIZE (4096, 4K, 1M, 2G: powers of 1024) in bytes
    python3 -m nbw.bench_read ours-seq OURS.json TIME
    python3 -m nbw.bench_read fio-seq FIO.json TIME
        "bytes seconds cpu" of one sequential run (TIME: the shell's `time` output in
        TIMEFORMAT='%U %S', cpu = user + system seconds of the whole process)
    python3 -m nbw.bench_read ours-rand OURS.json TIME
    python3 -m nbw.bench_read fio-rand FIO.json TIME
        "reads seconds cpu p99_us" of one random run (p99 "-" when not timed)
    python3 -m nbw.bench_read seq-table RESULTS TARGET CHUNK THREADS DURATION ROUNDS
        RESULTS: lines "case threads depth buffer bytes seconds cpu", a line per run
    python3 -m nbw.bench_read rand-table RESULTS TARGET BS DURATION ROUNDS
        RESULTS: lines "who engine depth latency reads seconds cpu p99" (who: ours or
        fio, latency: on or off), a line per run
    python3 -m nbw.bench_read check SEQ_RESULTS RAND_RESULTS THREADS
        bench_read.sh --check's last block: each row the bar is about (psync
        sequential, both on huge pages; every random case) with its ratios and
        verdict, and how many rows meet the bar

A fio document that carries a job error makes ours-*/fio-* exit 1 with the error; a
usage error is one line and exit status 2.
"""
import argparse
import json
import statistics
import sys

from . import command

UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}

# The bar the random rows are held to: ours/fio.
BAR_IOPS = 1.00  # IOPS at least
BAR_P99 = 1.10  # p99 latency at most
BAR_CPU = 1.00  # CPU per read at most
# The bar of the sequential psync row (both tools on huge-page buffers): ours/fio.
BAR_SEQ_BW = 0.97  # bandwidth at least


def to_bytes(size):
    """4096, 4K, 1M, 2G as bytes (powers of 1024); ValueError for anything else."""
    s = size.strip().upper()
    if s and s[-1] in UNITS:
        return int(s[:-1]) * UNITS[s[-1]]
    return int(s)


def cpu_seconds(time_text):
    """User + system seconds from the shell's `time` in TIMEFORMAT='%U %S' (its last
    two fields: a tool's own stderr may come first)."""
    user, system = time_text.split()[-2:]
    return float(user) + float(system)


def _load(path):
    with open(path) as f:
        return json.load(f)


def _fio_job(doc):
    job = doc["jobs"][0]
    if job.get("error"):
        raise RuntimeError("fio failed: error %d" % job["error"])
    return job


def ours_seq(doc, cpu):
    t = doc["total"]
    return t["bytes"], t["seconds"], cpu


def fio_seq(doc, cpu):
    r = _fio_job(doc)["read"]
    return r["io_bytes"], r["runtime"] / 1000.0, cpu


def ours_rand(doc, cpu):
    t = doc["total"]
    lat = t.get("latency_us")
    return t["ios"], t["seconds"], cpu, lat["p99"] if lat else None


def fio_rand(doc, cpu):
    """fio's total latency (submission to completion, --lat_percentiles=1) p99; None
    when fio took no time stamps (--gtod_reduce=1)."""
    r = _fio_job(doc)["read"]
    pct = r.get("lat_ns", {}).get("percentile") or {}
    p99 = pct.get("99.000000")
    return r["total_ios"], r["runtime"] / 1000.0, cpu, p99 / 1e3 if p99 else None


def run_line(values):
    """One run's figures as the shell keeps them: None as "-"."""
    return " ".join("-" if v is None else str(v) for v in values)


def ratio(a, b):
    """a / b, or None where either is missing or b is not positive."""
    if a is None or b is None or b <= 0:
        return None
    return a / b


# ---- the sequential table ------------------------------------------------------------

def seq_aggregate(lines, rounds=None):
    """{case: [bytes, seconds, cpu]} summed over the rounds, {case: (threads, depth,
    buffer)} and the cases in their first order; each round's GB/s per case go to
    rounds ({case: [...]}) when given."""
    agg, info, order = {}, {}, []
    for line in lines:
        if not line.strip():
            continue
        name, t, d, buf, b, s, c = line.split()
        if name not in info:
            order.append(name)
            agg[name] = [0, 0.0, 0.0]
        info[name] = (t, d, buf)
        a = agg[name]
        a[0] += int(b)
        a[1] += float(s)
        a[2] += float(c)
        if rounds is not None:
            rounds.setdefault(name, []).append(int(b) / float(s) / 1e9 if float(s) > 0 else 0.0)
    return agg, info, order


def gb_per_s(a):
    return a[0] / a[1] / 1e9 if a[1] > 0 else 0.0


def cpu_per_gib(a):
    return a[2] / (a[0] / 2**30) if a[0] else float("nan")


# ours' case, fio's case family, what, the bar
SEQ_PAIRS = (("ours-psync", "fio-psync", "psync", "bw >= 0.97, cpu <= 1.00"),
             ("ours-io_uring", "fio-io_uring", "io_uring", "bw >= 1.00, cpu <= 1.00"),
             ("ours-sqpoll", "fio-sqthread", "sqpoll/sqthread_poll", ""),
             ("ours-iopoll", "fio-hipri", "iopoll/hipri", ""))


def seq_ratio_rows(agg, info, threads):
    """(label, bandwidth ratio, CPU/GiB ratio, bar) per comparison: each of ours
    against fio's row with the same kind of buffer, then against the other kind
    (labelled: that ratio measures the buffers), then io_uring x1 / psync xTHREADS."""
    rows = []

    def add(label, a, b, bar):
        if a in agg and b in agg:
            rows.append((label, gbps_ratio(agg[a], agg[b]),
                         ratio(cpu_per_gib(agg[a]), cpu_per_gib(agg[b])), bar))

    for ours, fio, what, bar in SEQ_PAIRS:
        if ours not in agg:
            continue
        b = info[ours][2]
        add("ours/fio %s (both %s)" % (what, b), ours, "%s-%s" % (fio, b), bar)
        for other in ("huge", "4k"):
            if other != b:
                add("ours/fio %s (ours %s, fio %s: buffers)" % (what, b, other), ours,
                    "%s-%s" % (fio, other), "")
    add("io_uring x1 / psync x%s (ours)" % threads, "ours-io_uring", "ours-psync",
        "bw >= 1.00, cpu < 1.00")
    return rows


def gbps_ratio(a, b):
    return ratio(gb_per_s(a), gb_per_s(b))


def seq_table(lines, target, chunk, threads, duration, rounds):
    per_round = {}
    agg, info, order = seq_aggregate(lines, per_round)
    out = ["target %s: chunk %s, %s alternating rounds of %s s each, no warm-up"
           % (target, chunk, rounds, duration),
           "%-20s%8s%6s%8s%9s%11s%16s" % ("case", "threads", "depth", "buffer", "GB/s",
                                          "CPU s/GiB", "rounds GB/s")]
    for n in order:
        t, d, buf = info[n]
        out.append("%-20s%8s%6s%8s%9.3f%11.4f%16s" % (
            n, t, d, buf, gb_per_s(agg[n]), cpu_per_gib(agg[n]),
            span(min(per_round[n]), max(per_round[n]), 3)))
    out += ["", "%-48s%10s%9s  target" % ("ratio", "bandwidth", "CPU/GiB")]
    for label, bw, cpu, bar in seq_ratio_rows(agg, info, threads):
        out.append("%-48s%10s%9s  %s" % (label, fmt(bw, 3), fmt(cpu, 3), bar))
    return out


# ---- the random table ----------------------------------------------------------------

def rand_groups(lines):
    """{(engine, depth, latency): {who: [(reads, seconds, cpu, p99 or None), ...]}} in
    the order the groups first appear."""
    groups = {}
    for line in lines:
        if not line.strip():
            continue
        who, engine, depth, lat, n, s, c, p = line.split()
        runs = groups.setdefault((engine, int(depth), lat), {}).setdefault(who, [])
        runs.append((int(n), float(s), float(c), None if p == "-" else float(p)))
    return groups


def rand_figures(runs):
    """A case's figures over its rounds: IOPS (all reads over all seconds), the
    lowest and highest round's IOPS, p99 (the median of the rounds' p99, None if
    untimed) with its lowest and highest, CPU microseconds per read."""
    reads = sum(r[0] for r in runs)
    secs = sum(r[1] for r in runs)
    per_round = [r[0] / r[1] for r in runs if r[1] > 0]
    p99s = [r[3] for r in runs if r[3] is not None]
    return {
        "iops": reads / secs if secs > 0 else 0.0,
        "iops_lo": min(per_round) if per_round else 0.0,
        "iops_hi": max(per_round) if per_round else 0.0,
        "p99": statistics.median(p99s) if p99s else None,
        "p99_lo": min(p99s) if p99s else None,
        "p99_hi": max(p99s) if p99s else None,
        "cpu_us": sum(r[2] for r in runs) / reads * 1e6 if reads else None,
        "rounds": len(runs),
    }


def paired_ratios(ours, fio, field):
    """ours/fio of each round, the two runs of a round paired in run order (they ran
    side by side, so the machine's drift from round to round cancels): field "iops"
    or "p99". Rounds where either side lacks the figure are left out."""
    def value(r):
        if field == "iops":
            return r[0] / r[1] if r[1] > 0 else None
        return r[3]
    pairs = [(value(o), value(f)) for o, f in zip(ours, fio)]
    return [a / b for a, b in pairs if a is not None and b]


def paired_span(ours, fio, field):
    """The lowest and highest paired ratio of the rounds, as text ("-" if none)."""
    r = paired_ratios(ours, fio, field)
    return span(min(r), max(r), 2) if r else "-"


def rand_ratios(ours, fio):
    """ours/fio: IOPS, p99 and CPU per read (None where a side lacks the figure)."""
    return (ratio(ours["iops"], fio["iops"]), ratio(ours["p99"], fio["p99"]),
            ratio(ours["cpu_us"], fio["cpu_us"]))


def verdict(iops, p99, cpu):
    """"ok" when every ratio known meets the bar, else what falls short."""
    short = []
    if iops is not None and iops < BAR_IOPS:
        short.append("IOPS")
    if p99 is not None and p99 > BAR_P99:
        short.append("p99")
    if cpu is not None and cpu > BAR_CPU:
        short.append("CPU")
    return "ok" if not short else "short: " + ", ".join(short)


def fmt(v, digits, width=0):
    return ("%*.*f" % (width, digits, v)) if v is not None else "%*s" % (width, "-")


def span(lo, hi, digits):
    return "-" if lo is None else "%s-%s" % (fmt(lo, digits), fmt(hi, digits))


RAND_HEAD = "%-9s%6s%5s  %-9s%9s%16s%9s%16s%9s  %s" % (
    "engine", "depth", "lat", "case", "IOPS", "rounds", "p99 us", "rounds", "CPU us", "bar")


def rand_rows(key, cases):
    """The rows of one (engine, depth, latency): ours, fio, and their ratio."""
    engine, depth, lat = key
    rows = []
    for who in ("ours", "fio"):
        if who not in cases:
            continue
        f = rand_figures(cases[who])
        rows.append("%-9s%6d%5s  %-9s%9.0f%16s%9s%16s%9s" % (
            engine, depth, lat, who, f["iops"], span(f["iops_lo"], f["iops_hi"], 0),
            fmt(f["p99"], 1), span(f["p99_lo"], f["p99_hi"], 0), fmt(f["cpu_us"], 2)))
    if "ours" in cases and "fio" in cases:
        r = rand_ratios(rand_figures(cases["ours"]), rand_figures(cases["fio"]))
        p99s = paired_span(cases["ours"], cases["fio"], "p99") if r[1] is not None else ""
        rows.append("%-9s%6d%5s  %-9s%9s%16s%9s%16s%9s  %s" % (
            engine, depth, lat, "ours/fio", fmt(r[0], 3),
            paired_span(cases["ours"], cases["fio"], "iops"), fmt(r[1], 3), p99s,
            fmt(r[2], 3), verdict(*r)))
    return rows


def rand_table(lines, target, bs, duration, rounds):
    groups = rand_groups(lines)
    out = ["target %s: random %s reads, 1 thread/job, %s alternating rounds of %s s each"
           % (target, bs, rounds, duration),
           "lat on: ours --latency, fio --lat_percentiles=1 (both submission to completion); "
           "lat off: ours untimed, fio --gtod_reduce=1",
           "bar: IOPS >= %.2f, p99 <= %.2f, CPU per read <= %.2f x fio's"
           % (BAR_IOPS, BAR_P99, BAR_CPU),
           RAND_HEAD]
    for key in groups:
        out += rand_rows(key, groups[key])
    return out


# ---- the check: the bar's rows and their verdicts ----------------------------------------

def seq_verdict(bw, cpu):
    """The psync sequential row's verdict: bandwidth >= 0.97x, CPU per GiB <= 1.00x."""
    if bw is None:
        return "missing"
    short = []
    if bw < BAR_SEQ_BW:
        short.append("bandwidth")
    if cpu is not None and cpu > BAR_CPU:
        short.append("CPU")
    return "ok" if not short else "short: " + ", ".join(short)


def check_rows(seq_lines, rand_lines, threads):
    """(row, ratios in words, verdict) for each row the bar is about: the psync
    sequential row (ours against fio, both on huge pages), then every random case."""
    rows = []
    agg, _, _ = seq_aggregate(seq_lines)
    if "ours-psync" in agg:
        b = agg.get("fio-psync-huge")
        bw = gbps_ratio(agg["ours-psync"], b) if b else None
        cpu = ratio(cpu_per_gib(agg["ours-psync"]), cpu_per_gib(b)) if b else None
        rows.append(("seq psync x%s, 1M, both huge" % threads,
                     "GB/s %s, CPU/GiB %s" % (fmt(bw, 3), fmt(cpu, 3)), "",
                     seq_verdict(bw, cpu)))
    groups = rand_groups(rand_lines)
    for (engine, depth, lat), cases in groups.items():
        label = "rand %s depth %d, latency %s" % (engine, depth, lat)
        if "ours" not in cases or "fio" not in cases:
            rows.append((label, "", "", "missing"))
            continue
        r = rand_ratios(rand_figures(cases["ours"]), rand_figures(cases["fio"]))
        rows.append((label, "IOPS %s, p99 %s, CPU/read %s" % (fmt(r[0], 3), fmt(r[1], 3),
                                                             fmt(r[2], 3)),
                     paired_span(cases["ours"], cases["fio"], "iops"), verdict(*r)))
    return rows


def check_table(seq_lines, rand_lines, threads):
    rows = check_rows(seq_lines, rand_lines, threads)
    out = ["the bar (ours/fio): seq psync GB/s >= %.2f and CPU/GiB <= %.2f; random IOPS >= "
           "%.2f, p99 <= %.2f, CPU/read <= %.2f" % (BAR_SEQ_BW, BAR_CPU, BAR_IOPS, BAR_P99,
                                                     BAR_CPU),
           "IOPS by round: ours/fio of each round's side-by-side pair, lowest-highest",
           "%-36s%-42s%-15s%s" % ("row", "ratios", "IOPS by round", "verdict")]
    out += ["%-36s%-42s%-15s%s" % r for r in rows]
    met = sum(1 for r in rows if r[3] == "ok")
    out.append("%d of %d rows meet the bar" % (met, len(rows)))
    return out


# ---- the command line ----------------------------------------------------------------

def _one_run(fn, doc_path, time_path):
    with open(time_path) as f:
        cpu = cpu_seconds(f.read())
    print(run_line(fn(_load(doc_path), cpu)))


def _table(fn, results, *args):
    with open(results) as f:
        print("\n".join(fn(f.readlines(), *args)))


def _check(seq_results, rand_results, threads):
    with open(seq_results) as f:
        seq_lines = f.readlines()
    with open(rand_results) as f:
        rand_lines = f.readlines()
    print("\n".join(check_table(seq_lines, rand_lines, threads)))


# verb: (its arguments' names, what it does with them)
VERBS = {
    "bytes": (("SIZE",), lambda s: print(to_bytes(s))),
    "ours-seq": (("OURS.json", "TIME"), lambda d, t: _one_run(ours_seq, d, t)),
    "fio-seq": (("FIO.json", "TIME"), lambda d, t: _one_run(fio_seq, d, t)),
    "ours-rand": (("OURS.json", "TIME"), lambda d, t: _one_run(ours_rand, d, t)),
    "fio-rand": (("FIO.json", "TIME"), lambda d, t: _one_run(fio_rand, d, t)),
    "seq-table": (("RESULTS", "TARGET", "CHUNK", "THREADS", "DURATION", "ROUNDS"),
                  lambda *a: _table(seq_table, *a)),
    "rand-table": (("RESULTS", "TARGET", "BS", "DURATION", "ROUNDS"),
                   lambda *a: _table(rand_table, *a)),
    "check": (("SEQ_RESULTS", "RAND_RESULTS", "THREADS"), lambda *a: _check(*a)),
}


def parser():
    p = command.Parser(prog="bench_read", description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="verb", metavar="VERB", required=True)
    for verb, (names, _) in VERBS.items():
        s = sub.add_parser(verb)
        for name in names:
            s.add_argument(name.lower(), metavar=name)
    return p


def main(argv):
    args = parser().parse_args(argv)
    names, fn = VERBS[args.verb]
    try:
        fn(*(getattr(args, n.lower()) for n in names))
    except (OSError, ValueError, KeyError, IndexError, RuntimeError) as e:
        sys.stderr.write("bench_read: %s: %s\n" % (args.verb, e))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
