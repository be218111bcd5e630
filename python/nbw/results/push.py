"""nbw-results export --openmetrics --push URL: each node's figures, status and verdict
PUT to a Prometheus Pushgateway under the node's own grouping key (job nbw, instance
NODE), many nodes at a time (a bounded pool of workers: --parallel, default 16), so
that a fleet of 4096 nodes pushes in seconds. One line says what landed; each push that
failed has a line of its own, and never stops the others."""
import base64
import concurrent.futures
import re
import sys
import time
import zlib
import urllib.error
import urllib.request

from ..names import natural, natural_key
from .base import PROG

PARALLEL = 16  # pushes at a time (the Pushgateway serialises its writes anyway)
PLAIN_KEY = re.compile(r"^[A-Za-z0-9_.:-]+$")
# Past this many nodes, a group per node costs the Pushgateway (1.5) a check of every
# group it holds at each push: 1500 groups took 1 s a push here, 4096 nodes 30 min. The
# nodes then share FLEET_GROUPS groups (a node's by a hash of its name, always the same
# one), each a push: 4096 nodes x 28 samples in 4 s (8 s replacing them).
PER_NODE_UP_TO = 64
FLEET_GROUPS = 8


class PushError(Exception):
    """One push that failed: its target and why, in one line."""

    def __init__(self, target, why):
        super().__init__("%s: %s" % (target, why))
        self.why = why


def push_target(url, node):
    """The Pushgateway URL of one node's group: URL/metrics/job/nbw/instance/NODE (a URL
    naming its job keeps it; a node's name that cannot be a path element in base64)."""
    base = url.rstrip("/") + ("" if "/metrics/job/" in url else "/metrics/job/nbw")
    if "/instance/" in base or "/instance@base64/" in base:
        return base
    if PLAIN_KEY.match(node):
        return base + "/instance/" + node
    return base + "/instance@base64/" + (
        base64.urlsafe_b64encode(node.encode()).decode() or "=")


def push(target, data, timeout):
    """PUT to a Pushgateway (its text format reads these lines as they are): HTTP status,
    or PushError."""
    req = urllib.request.Request(target, data=data.encode(), method="PUT", headers={
        "Content-Type": "text/plain; version=0.0.4; charset=utf-8"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status
    except urllib.error.HTTPError as e:
        body = " ".join(e.read(4096).decode("utf-8", "replace").split())
        # The gateway's reason ends its message, after the labels: both ends are kept.
        if len(body) > 300:
            body = body[:120] + " ... " + body[-170:]
        raise PushError(target, "HTTP %d %s" % (e.code, body))
    except (urllib.error.URLError, OSError) as e:
        raise PushError(target, str(getattr(e, "reason", e)))


def groups(figs, status, verdicts):
    """{node: (its figures, its status, its verdict)} in one pass each."""
    out = {}
    for f in figs:
        out.setdefault(f["node"] or "", ([], {}, {}))[0].append(f)
    for k, v in status.items():
        out.setdefault(k[0], ([], {}, {}))[1][k] = v
    for node, v in verdicts.items():
        out.setdefault(node, ([], {}, {}))[2][node] = v
    return out


def batches(by_node, n):
    """{grouping key's instance: [nodes]}: a node each (n 0), else n groups 'fleet-K-of-N',
    a node's by the CRC-32 of its name, every group (the empty too: pushed empty, so
    that a node gone from the record leaves nothing behind)."""
    if not n:
        return {node: [node] for node in natural(by_node)}
    out = {"fleet-%02d-of-%02d" % (k, n): [] for k in range(n)}
    for node in natural(by_node):
        out["fleet-%02d-of-%02d" % (zlib.crc32(node.encode("utf-8", "replace")) % n, n)] \
            .append(node)
    return out


def push_all(url, figs, status, verdicts, render, timeout, parallel=PARALLEL, err=None,
             n_groups=None):
    """Push every node's group (or the fleet's groups: n_groups, by default FLEET_GROUPS
    past PER_NODE_UP_TO nodes), PARALLEL at a time; one summary line and a line per
    failure on err (stderr). The number of failed pushes."""
    err = err or sys.stderr
    by_node = groups(figs, status, verdicts)
    if n_groups is None:
        n_groups = 0 if len(by_node) <= PER_NODE_UP_TO else FLEET_GROUPS
    keys = batches(by_node, n_groups)
    nodes = natural(keys)
    t0 = time.monotonic()

    def one(key):
        mine, st, vd = [], {}, {}
        for node in keys[key]:
            mine += by_node[node][0]
            st.update(by_node[node][1])
            vd.update(by_node[node][2])
        target = push_target(url, key)
        return key, target, push(target, render(mine, st, vd), timeout)

    failures = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, min(parallel, len(nodes)))) \
            as pool:
        futs = {pool.submit(one, n): n for n in nodes}
        for fut in concurrent.futures.as_completed(futs):
            try:
                fut.result()
            except PushError as e:
                failures.append((futs[fut], str(e), e.why))
    took = time.monotonic() - t0
    failures.sort(key=lambda x: natural_key(x[0]))
    if failures and len(failures) == len(keys) and len({w for _, _, w in failures}) == 1:
        # the Pushgateway unreachable (or refusing all alike): one line, not one a node
        err.write("%s: pushed 0 of %d nodes: every push failed as push %s\n" % (
            PROG, len(by_node), failures[0][1]))
        return len(failures)
    lost = sum(len(keys[k]) for k, _, _ in failures)
    for key, why, _ in failures:
        err.write("%s: push of %s failed: %s\n" % (
            PROG, key if not n_groups else "%s (%d nodes)" % (key, len(keys[key])), why))
    err.write("%s: pushed %d of %d nodes (%d figures in all) to %s in %.1f s: %s, %d at a time%s\n"
              % (PROG, len(by_node) - lost, len(by_node), len(figs),
                 push_target(url, "NODE").replace("/NODE", "/..."), took,
                 "a group per node" if not n_groups else "%d groups (fleet-K-of-%d)" % (
                     n_groups, n_groups), max(1, min(parallel, len(nodes))),
                 "; %d push%s failed (above)" % (len(failures), "es" if len(failures) > 1
                                                 else "") if failures else ""))
    return len(failures)
