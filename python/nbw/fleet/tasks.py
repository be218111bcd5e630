"""nbw.fleet.tasks: what a node runs in a step, and what comes back.

A step gives each of its nodes one task: a list of items, each a part of the sweep
(its file's relative path), a time limit and a tool's command line. On the node a short
POSIX shell script (NODE_SCRIPT, passed as the command of `sh -c`, so that nothing
but the tools needs installing on the nodes) runs the items one after the other, each
bounded by timeout(1), and prints, for the host to read back from the launcher's
standard output:

  @nbw-node NODE                  the node it ran on (SLURMD_NODENAME checked first)
  @nbw-part REL                   then the tool's standard output (its JSON document)
  @nbw-end REL STATUS             its exit status (124: stopped at its time limit)
  @nbw-err REL LINE               the last lines of its standard error

A task that ran on a node other than the one it was meant for says so
(@nbw-wrong-node) and runs nothing. The host keeps only the schedule and the files.
The tools' command lines come from the sweep's settings and the environment (as
run_bench.sh takes them: TOOL_DIR, THREADS, CHUNK, DRAM, PORT, NET_TIMEOUT, VERIFY,
TX_DEPTH, SRC_DISKS, READ_ARGS, REMOTE_ARGS; QPS: QPs per rail from memory).
"""

import re
import shlex

NODE_SCRIPT = r"""
expect=$1
shift
if [ -n "${SLURMD_NODENAME:-}" ] && [ "$expect" != - ] && [ "$SLURMD_NODENAME" != "$expect" ]; then
	echo "@nbw-wrong-node $SLURMD_NODENAME $expect"
	exit 0
fi
umask 077
o=${TMPDIR:-/tmp}/nbw-fleet.$$.out e=${TMPDIR:-/tmp}/nbw-fleet.$$.err
if ! (set -C && : >"$o" && : >"$e") 2>/dev/null; then
	o=$(mktemp) && e=$(mktemp) || { echo "@nbw-no-tmp $expect"; exit 0; }
fi
trap 'rm -f "$o" "$e"' EXIT
trap 'exit 143' TERM
trap 'exit 130' INT
echo "@nbw-node $expect"
while [ $# -ge 3 ]; do
	rel=$1 limit=$2 n=$3
	shift 3
	[ "$n" -le $# ] || { echo "@nbw-bad-task $rel"; exit 0; }
	cmd='' i=1
	while [ "$i" -le "$n" ]; do
		cmd="$cmd \"\${$i}\""
		i=$((i + 1))
	done
	eval "timeout -k 5 \"\$limit\" $cmd" </dev/null >"$o" 2>"$e"
	rc=$?
	shift "$n"
	echo "@nbw-part $rel"
	cat "$o"
	echo
	echo "@nbw-end $rel $rc"
	tail -n 20 "$e" >"$o"
	while IFS= read -r line; do
		echo "@nbw-err $rel $line"
	done <"$o"
done
exit 0
"""

STOPPED = 124  # timeout(1)'s status of a command stopped at its limit


class Item:
    """One part of a task: its file's relative path, its time limit, its command."""
    __slots__ = ("rel", "limit", "argv", "ok")

    def __init__(self, rel, limit, argv, ok=(0,)):
        self.rel, self.limit, self.argv, self.ok = rel, int(limit), list(argv), ok


def task_args(node, items):
    """The arguments of NODE_SCRIPT for a node's items (after the script's name)."""
    out = [node]
    for it in items:
        out += [it.rel, str(it.limit), str(len(it.argv))] + it.argv
    return out


OUT_MAX = 16 << 20  # an item's standard output kept (a tool's document is far smaller)
ERR_LINES, ERR_LINE_MAX = 20, 1000  # the last lines of its standard error, each cut


class Result:
    """What came back of one item: its exit status (None: no end seen), its standard
    output (at most OUT_MAX characters: too_large past it) and the last lines of its
    standard error."""
    __slots__ = ("rc", "out", "err", "size", "too_large")

    def __init__(self):
        self.rc, self.out, self.err, self.size, self.too_large = None, [], [], 0, False

    def add(self, line):
        self.size += len(line) + 1
        if self.size > OUT_MAX:
            self.too_large, self.out = True, []
        elif not self.too_large:
            self.out.append(line)

    def add_err(self, line):
        self.err = (self.err + [line[:ERR_LINE_MAX]])[-ERR_LINES:]


FRAME_RE = re.compile(r"^@nbw-(node|part|end|err|wrong-node|no-tmp|bad-task) ?(.*)$")


def parse_frames(text):
    """(node it ran on or None, {rel: Result}, what went wrong or None) of a task's
    standard output."""
    node, results, cur, wrong = None, {}, None, None
    for line in text.splitlines():
        m = FRAME_RE.match(line)
        if not m:
            if cur is not None:
                cur.add(line)
            continue
        kind, rest = m.groups()
        if kind == "node":
            node = rest.strip()
        elif kind == "part":
            cur = results.setdefault(rest.strip(), Result())
        elif kind == "end":
            rel, _, rc = rest.rpartition(" ")
            r = results.setdefault(rel, Result())
            r.rc = int(rc) if rc.isdigit() else None
            cur = None
        elif kind == "err":
            rel, _, msg = rest.partition(" ")
            results.setdefault(rel, Result()).add_err(msg)
        elif kind == "wrong-node":
            wrong = "the task ran on %s, not on %s (the step's ranks are not in the order " \
                    "of its nodes)" % tuple((rest.split() + ["?", "?"])[:2])
        elif kind == "no-tmp":
            wrong = "no temporary directory on the node (mktemp failed)"
        elif kind == "bad-task":
            wrong = "a task the node could not read (%s)" % rest
    return node, results, wrong


def why_failed(res):
    """A failed item's reason in one line: its last standard error line and status."""
    if res is None:
        return "no answer"
    if res.too_large:
        return "its output is larger than %d MiB: not kept" % (OUT_MAX >> 20)
    last = [x.strip() for x in res.err if x.strip()]
    if res.rc == STOPPED:
        head = "stopped at its time limit"
    elif res.rc is None:
        head = "ended without its exit status (the node or its connection went away)"
    else:
        head = "exit status %d" % res.rc
    return "%s%s" % (head, ": " + last[-1] if last else "")


# --- the tools' command lines -----------------------------------------------------------

class Settings:
    """The tools' settings: from the environment as run_bench.sh takes them, and the
    sweep's windows."""

    def __init__(self, env, meta):
        def num(key, default):
            v = env.get(key, "")
            return v if re.fullmatch(r"[0-9]+(\.[0-9]+)?", v) else default

        self.tool_dir = env.get("TOOL_DIR") or ""
        self.threads = num("THREADS", "12")
        self.qps = num("QPS", "4")
        self.chunk = env.get("CHUNK") or "1M"
        self.dram = env.get("DRAM") or ""
        self.port = num("PORT", "18515")
        self.timeout = float(num("NET_TIMEOUT", "10"))
        self.verify = env.get("VERIFY") or ""
        self.tx_depth = env.get("TX_DEPTH") or ""
        self.disks = env.get("SRC_DISKS") or ""
        self.read_args = shlex.split(env.get("READ_ARGS") or "")
        self.remote_args = shlex.split(env.get("REMOTE_ARGS") or "")
        self.probe_args = list(meta.get("probe_args") or [])
        self.rail_devs = [d for d in meta.get("rail_devs") or [] if d]
        self.meta = meta

    def tool(self, name):
        return "%s/%s" % (self.tool_dir.rstrip("/"), name) if self.tool_dir else name

    def window(self, full):
        m = self.meta
        if full:
            return float(m.get("retest_warmup", 3)), float(m.get("retest_duration", 20))
        return float(m.get("warmup", 2)), float(m.get("duration", 5))

    def probe(self, rel):
        return Item(rel, 120, [self.tool("nvme_link_probe"), "--json"] + self.probe_args,
                    ok=(0, 3))

    def read(self, rel, full=False):
        warm, dur = self.window(full)
        n = len(self.disks.split(",")) if self.disks else 16
        argv = [self.tool("nvme_read_bw"), "-t", self.threads, "-s", self.chunk,
                "--warmup", "%g" % warm, "-D", "%g" % dur, "--baseline"]
        if self.disks:
            argv += ["--disks", self.disks]
        return Item(rel, (n + 1) * (warm + dur + 5) + 120,
                    argv + self.read_args + ["--json"])

    def remote(self, rel, peer, mem, full=False, rail=None):
        """nvme_write_bw_remote --bidir with peer: from memory on every rail (or rail
        alone), else with the node's drives."""
        warm, dur = self.window(full)
        wait = max(10.0, 2 * self.timeout)
        argv = [self.tool("nvme_write_bw_remote"), "--bidir", "-p", self.port, "-s", self.chunk,
                "--warmup", "%g" % warm, "-D", "%g" % dur, "--timeout", "%g" % self.timeout,
                "--wait", "%g" % wait]
        devs = [self.rail_devs[rail]] if rail is not None and rail < len(self.rail_devs) \
            else self.rail_devs
        if devs:
            argv += ["-d", ",".join(devs)]
        if mem:
            argv += ["--source", "mem", "-q", str(int(self.qps) * max(1, len(devs)))]
        else:
            argv += ["--threads", self.threads] + (["--disks", self.disks] if self.disks else [])
        if self.dram:
            argv += ["--dram", self.dram]
        if self.tx_depth:
            argv += ["--tx-depth", self.tx_depth]
        if self.verify == "off":
            argv.append("--no-verify")
        elif self.verify:
            argv += ["--verify", self.verify]
        limit = warm + dur + wait + 4 * self.timeout + 60
        # The peer (a node's name or address) after "--": never read as an option.
        return Item(rel, limit, argv + self.remote_args + ["--json", "--", peer])

    def version(self, rdma_netdev=None):
        items = [Item("version", 60, [self.tool("nvme_read_bw"), "--version"])]
        if rdma_netdev:
            items.append(Item("address", 60, ["ip", "-4", "-o", "addr", "show", "dev",
                                              rdma_netdev]))
        return items


def disjoint_batches(tasks, most):
    """Greedy batches of tasks (a tuple starting with two nodes) with no node twice in a
    batch and at most most nodes in one (order kept)."""
    batches = []
    for t in tasks:
        for b in batches:
            used = {x for q in b for x in q[:2]}
            if t[0] not in used and t[1] not in used and len(used) + 2 <= most:
                b.append(t)
                break
        else:
            batches.append([t])
    return batches
