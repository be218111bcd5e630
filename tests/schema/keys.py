"""keys.py [--plant MODULE:OLD:NEW]: every key the Python package reads from a tool's
document is a key of that document's schema (schema/*.schema.json), so that C and
Python agree on key names in one place.

A static scan of python/nbw: in each module that reads tool documents (READERS), every
string literal used as a key, in dig(doc, "a", "b"), x.get("a"), x["a"] and their chains
(x["a"]["b"], x.get("a", {}).get("b")), must be a property of one of the schemas the
module reads, or one of the module's keys of other documents (iperf3's, fio's, the
package's own records), listed below with whose they are. In a chain, each key after
the first must be a property of the object the previous key names (in any of those
schemas), unless that object's keys are free (a counter's name, a suspect's evidence).
A misspelled key ("gb_per_sec", "totl") is in neither and fails, naming the module and
the line. Every module of the package is either a reader or listed as reading no tool
document, so that a new module is classified once.

--plant MODULE:OLD:NEW scans MODULE with its first "OLD" key literal spelled "NEW"
(the proof that a misspelling is caught; the tree is not changed).
"""
import ast
import json
import os
import sys

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
NBW = os.path.join(TOP, "python", "nbw")
SCHEMAS = os.path.join(TOP, "schema")

READ_BW, REMOTE, PROBE = "nvme_read_bw", "nvme_write_bw_remote", "nvme_link_probe"
JUDGE = "nbw-fleet-judge"

# The modules that read tool documents: (the schemas of what they read, the keys they
# read from other documents, with whose they are; a pair (a, b): the chain a, b is
# another document's though a is a key of the schemas too).
READERS = {
    "summary.py": ((READ_BW, REMOTE), ()),
    "benchremote.py": ((REMOTE,), ()),
    "portcounters.py": ((REMOTE,), (
        "kept", "not_kept", "packets",  # its own tally
    )),
    "drivehealth.py": ((READ_BW, REMOTE), (
        "says", "why_not_read",  # its own evidence
    )),
    "fleet/health.py": ((READ_BW, PROBE), ()),
    "fleet/floors.py": ((READ_BW, REMOTE, PROBE), (
        # sweep.json (the fleet run's record) and the judgement's own entries
        "probe_exit", "lines", "status", "floors", "spec", "drive", "rail",
        "component", "evidence", "state", "node", "ratio", "severity", "says", "floor",
        "bar_gb_per_s", "ceiling", "claimed_gb_per_s", "claims", "figure_gb_per_s",
        "low_count", "partners", "probe_lines", "spec_line", "spec_min",
    )),
    "sweep.py": ((READ_BW, REMOTE), (
        # its own rows (scale_sweep.sh's table)
        "invalid_reason", "local_gb_per_s", "local_percent_of_ideal", "rdma_gb_per_s",
        "remote_gb_per_s", "remote_percent_of_ideal", "total_gb_per_s", "valid",
    )),
    "bench_read.py": ((READ_BW,), (
        # fio's --output-format=json
        "jobs", "read", "io_bytes", "runtime", "total_ios", "lat_ns", "percentile",
        "99.000000",
        "error",
        # its own rows and figures
        "ours", "ours-psync", "fio", "fio-psync-huge", "cpu_us", "iops_hi", "iops_lo",
        "p99_hi", "p99_lo",
    )),
    "fleet/sweepdir.py": ((READ_BW, REMOTE, PROBE), (
        "nodes", "rail_devs",  # sweep.json, the fleet run's record
    )),
    "fleet/judge.py": ((READ_BW, REMOTE, PROBE), (
        # the sweep's record (sweep.json) and the judgement's own entries
        "skipped", "failed", "part", "fabric", "remote", "probe",
        "component", "evidence", "state", "node", "ratio", "low_directions",
        "fleet_median_gb_per_s", "fleet_median_share_of_local", "says",
        "alone", "alone_low", "group", "note",
    )),
    "ladder/attribute.py": ((REMOTE, READ_BW), (
        # the ladder's own rungs and the memory's verdict ("reason" is also the schemas')
        "node", "measured_gb_per_s", "link",
        "says",  # nbw.drivehealth's evidence
    )),
    "pcipath.py": ((PROBE,), ()),
    "ladder/model.py": ((READ_BW, REMOTE, PROBE), (
        # the environment and the ladder's own rungs and notes
        "GNUPLOT", "below_drives", "shared_hops", "links_summed_gb_per_s", "drives_wrote_gb_per_s",
        "excluded", "failed", "measured_gb_per_s", "node", "rdma_gb_per_s", "rung", "moved_gb_per_s",
    )),
    "ladder/text.py": ((READ_BW, REMOTE, PROBE), (
        # the ladder's own rungs and notes (ladder/model.py's)
        "below_drives", "shared_hops", "links_summed_gb_per_s", "drives_wrote_gb_per_s",
        "failed", "measured_gb_per_s", "node", "moved_gb_per_s",
    )),
    "ladder/upper.py": ((READ_BW, REMOTE), (
        # iperf3 -J
        "connecting_to", ("start", "test_start"), "test_start", "num_streams", "sender",
        "sum_sent", "sum_received", "bits_per_second", "retransmits", "max_snd_cwnd",
        "mean_rtt", "cpu_utilization_percent", "host_total", "remote_total",
        # run_bench.sh's NFS notes
        "rsize", "wsize", "vers", "proto", "rmem_max", "tcp_rmem_max",
        # the ladder's own rungs
        "ceiling_rung", "measured_gb_per_s", "node", "mean_rtt_us", "rdma_over_tcp",
        "receiver_cpu_s_per_gib", "sender_cpu_s_per_gib", "tcp", ("rdma", "iops"),
        # iperf3 -J (-R), fio --output-format=json
        "reverse", "jobs", "write", "bw_bytes", "io_bytes", "usr_cpu", "sys_cpu", "job_runtime",
        "global options", "job options", "numjobs",
        # the ladder's own TCP variants, NFS writes and NIC evidence (nicev.py's)
        "max_snd_cwnd_bytes", "processes", "direction", "pct_of_line", "nic_counters", "missing",
        "iperf3", "op", "writer", "bs", "nfs_bs", "nfs_jobs", "tcp (1 stream)", "tcp from file (sendfile)",
    )),
    "results/documents.py": ((READ_BW, REMOTE, PROBE), (
        # run_bench.sh's run.json and the record's own figures
        "settings", "started", "finished", "rungs", "drive", "node", "rung",
        "params_hash", "measured_gb_per_s",
    )),
    "results/provenance.py": ((READ_BW, REMOTE, PROBE), ()),
    "results/record.py": ((READ_BW, REMOTE, PROBE), (
        # run_bench.sh's run.json, the ladder's rungs, the record's own figures and runs
        "settings", "started", "finished", "rungs", "node", "rung", "drive", "params_hash",
        "run_ids", "figures", "nodes", "inventory", "commands", "clock_far_from_run",
    )),
    "results/inventory.py": ((PROBE,), (
        # procfs and the inventory's own entries
        "MemTotal", "model name", "microcode", "hash", "mtu",
    )),
    "results/fleet.py": ((JUDGE,), (
        "params_hash",  # the record's figures
        # sweep.json's command line, settings and dates (nbw-fleet run's), the record's
        # node briefs (sweep_nodes.py's) and plan.json's counts
        "argv", "settings", "resumed_argv", "started", "finished", "verdict", "run_id",
        "pairs_mode", "pairs_asked", "pair_count", "durations", "phases_s", "duration",
        "warmup", "isolate_budget", "rail_devs", "verdicts", "key", "model", "firmware", "plan",
    )),
    "results/sweep_nodes.py": ((READ_BW, REMOTE, PROBE), (
        # sweep.json's (nbw-fleet run's) parts, nodes, run ids and dates
        "failed", "part", "node", "skipped", "run_ids", "started", "finished", "nodes", "state",
        "without_provenance",  # the record's node brief
    )),
}

# The modules that read no tool document (the record's store and verbs read the
# record's own lines; fleet/cli, run, plan and report the plan and the judgement they
# make themselves, verdict and junit the judgement's parts and sweep.json, launch and
# tasks the schedule and the nodes' framed output, judge_pairs and judge_retest the
# judge's transfers and suspects, nodes the node list and its launcher, launcher the
# environment, act the judgement's verdicts, liveness sweep.json's timing; lab/ the
# virtual lab's files).
OTHERS = {
    "__init__.py", "jsonutil.py", "xmltext.py", "command.py", "k8s.py", "fetch.py",
    "results/__init__.py", "results/base.py", "results/output.py", "results/store.py",
    "results/verbs.py", "results/compare.py", "results/html_report.py",
    "results/openmetrics.py", "results/cli.py", "results/junit.py", "results/verbs_ref.py",
    "results/sweep_show.py", "results/compact.py",  # the record's own lines, compact
    "results/compare_view.py", "results/push.py", "names.py",
    "ladder/__init__.py", "ladder/chart.py", "ladder/report.py", "ladder/nicev.py",
    "ladder/xfer.py",
    "ladder/why.py", "ladder/transfer.py",  # the ladder's own rungs; run_bench.sh's transfer
    "fleet/__init__.py", "fleet/cli.py", "fleet/run.py", "fleet/plan.py", "fleet/report.py",
    "fleet/verdict.py", "fleet/junit.py", "fleet/launch.py", "fleet/tasks.py",
    "fleet/judge_pairs.py", "fleet/judge_retest.py", "fleet/nodes.py", "launcher.py",
    "fleet/topology.py",  # a hostfile's and ibnetdiscover's lines
    "fleet/spec.py",
    "fleet/act.py", "fleet/liveness.py",
    "lab/",
}


def schema_keys(schema):
    """(every property name, {name: the property names its objects list wherever one
    does, or None when none does: its keys are free}) over the whole schema."""
    names, children = set(), {}

    def props_of(s):
        """The property names an object schema s lists, through allOf/anyOf/oneOf,
        if/then/else, items and $ref; None when it lists none (free keys)."""
        out, seen = set(), False
        stack = [s]
        while stack:
            x = stack.pop()
            if not isinstance(x, dict):
                continue
            if "$ref" in x:
                stack.append(resolve(x["$ref"]))
            if "properties" in x:
                seen = True
                out |= set(x["properties"])
            for k in ("allOf", "anyOf", "oneOf"):
                stack.extend(x.get(k, []))
            for k in ("then", "else", "items"):
                if k in x:
                    stack.append(x[k])
        return out if seen else None

    def resolve(ref):
        x = schema
        for part in ref.lstrip("#/").split("/"):
            x = x[part]
        return x

    def walk(x):
        if isinstance(x, dict):
            for name, sub in x.get("properties", {}).items():
                names.add(name)
                p = props_of(sub)
                if p is not None or name not in children:
                    children[name] = (children.get(name) or set()) | p if p is not None else None
            for v in x.values():
                walk(v)
        elif isinstance(x, list):
            for v in x:
                walk(v)
    walk(schema)
    return names, children


def load_schemas():
    out = {}
    for name in os.listdir(SCHEMAS):
        if name.endswith(".schema.json"):
            with open(os.path.join(SCHEMAS, name)) as f:
                out[name[:-len(".schema.json")]] = schema_keys(json.load(f))
    return out


def literal(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, (str, int)):
        return node.value
    return None


def is_environ(node):
    return (isinstance(node, ast.Attribute) and node.attr == "environ") or \
        (isinstance(node, ast.Name) and node.id == "environ")


def chain(node):
    """The key chain read by node (a get call, a subscript or dig), outermost last, with
    its line; [] if it reads no literal key."""
    if isinstance(node, ast.Call):
        f = node.func
        if isinstance(f, ast.Name) and f.id == "dig" and node.args:
            keys = []
            for a in node.args[1:]:
                v = literal(a)
                if not isinstance(v, str):
                    break
                keys.append(v)
            return chain(node.args[0]) + keys if keys else []
        if isinstance(f, ast.Attribute) and f.attr == "get" and node.args and \
                not is_environ(f.value):
            v = literal(node.args[0])
            return chain(f.value) + [v] if isinstance(v, str) else []
        return []
    if isinstance(node, ast.Subscript) and not is_environ(node.value):
        v = literal(node.slice)
        if isinstance(v, int) and not isinstance(v, bool):
            inner = chain(node.value)
            return inner + [0] if inner else []
        if isinstance(v, str):
            return chain(node.value) + [v]
    return []


def reads(path, plant=None):
    """[(line, [keys...])] of the module at path: each outermost key chain."""
    with open(path) as f:
        src = f.read()
    tree = ast.parse(src, path)
    inner = set()
    found = []
    for node in ast.walk(tree):
        c = chain(node)
        if not c:
            continue
        if isinstance(node, ast.Subscript):
            inner.add(id(node.value))
        elif isinstance(node.func, ast.Attribute):
            inner.add(id(node.func.value))
        else:
            inner.add(id(node.args[0]))
        found.append((node, c))
    out = [(n.lineno, [k for k in c if isinstance(k, str)]) for n, c in found
           if id(n) not in inner]
    if plant:
        old, new = plant
        for _, keys in sorted(out):
            if old in keys:
                keys[keys.index(old)] = new
                break
        else:
            sys.exit("FAIL: no key %r to plant a misspelling in" % old)
    return out


def check_module(rel, names, children, foreign, plant=None):
    """The problems of one reader module: [(line, text)]."""
    bad = []
    for line, keys in reads(os.path.join(NBW, rel), plant):
        if keys[0] in foreign or tuple(keys[:2]) in foreign:
            continue
        if keys[0] not in names:
            bad.append((line, "%r is a key of none of its schemas" % keys[0]))
            continue
        for parent, key in zip(keys, keys[1:]):
            kids = children.get(parent, set())
            if kids is not None and key not in kids:
                bad.append((line, "%r is not a key of %r in its schemas" % (key, parent)))
                break
    return bad


def modules():
    out = set()
    for root, dirs, files in os.walk(NBW):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for n in files:
            if n.endswith(".py"):
                out.add(os.path.relpath(os.path.join(root, n), NBW))
    return out


def main(argv):
    plant = None
    if len(argv) == 3 and argv[1] == "--plant":
        mod, old, new = argv[2].split(":")
        plant = (mod, (old, new))
    schemas = load_schemas()
    fails = 0
    unknown = [m for m in sorted(modules()) if m not in READERS and m not in OTHERS
               and not any(m.startswith(o) for o in OTHERS if o.endswith("/"))]
    for m in unknown:
        print("FAIL: python/nbw/%s: neither a reader of tool documents nor listed as "
              "none (tests/schema/keys.py: READERS or OTHERS)" % m)
        fails += 1
    gone = [m for m in sorted(READERS) + sorted(OTHERS) if not m.endswith("/")
            and m not in modules()]
    for m in gone:
        print("FAIL: python/nbw/%s is listed in tests/schema/keys.py but does not exist" % m)
        fails += 1
    checked = 0
    for rel, (docs, foreign) in sorted(READERS.items()):
        if rel in gone:
            continue
        missing = [d for d in docs if d not in schemas]
        if missing:
            print("FAIL: %s: no schema %s in schema/" % (rel, ", ".join(missing)))
            fails += 1
            continue
        names = set().union(*(schemas[d][0] for d in docs))
        children = {}
        for d in docs:
            for k, v in schemas[d][1].items():
                if v is not None or k not in children:
                    children[k] = (children.get(k) or set()) | v if v is not None else None
        stale = sorted(str(k) for k in foreign
                       if (k in names if isinstance(k, str) else k[0] not in names))
        if stale:
            print("FAIL: %s: %s listed as other documents' keys but in its schemas" % (
                rel, ", ".join(stale)))
            fails += 1
        n = len(reads(os.path.join(NBW, rel)))
        checked += n
        bad = check_module(rel, names, children, set(foreign),
                           plant[1] if plant and plant[0] == rel else None)
        for line, text in bad:
            print("FAIL: python/nbw/%s:%d: %s (%s)" % (rel, line, text, ", ".join(docs)))
        fails += len(bad)
        if not bad:
            print("ok: %s: %d key reads, each in %s or its other documents" % (
                rel, n, ", ".join(docs)))
    print("%d modules read tool documents, %d key reads checked, %d failed" % (
        len(READERS), checked, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
