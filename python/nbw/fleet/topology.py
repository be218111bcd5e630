"""nbw.fleet.topology: which leaf switch each node's port hangs off, the uplink of a leaf
named when the pairs crossing it are low, and the rounds that make sure each uplink is
crossed.

Where a port hangs comes from one of two files:
  a hostfile  rack=R on a node's line: its ports on every rail hang off leaf R;
              leaf<i>=L: rail i's port hangs off leaf L (wins over rack= for that rail).
  ibnetdiscover's output (the topology file of infiniband-diags): its Switch and Ca
              blocks. A Ca whose node description is "HOST DEVICE" (what the RDMA stack
              sets by default, e.g. "n12 mlx5_3") is HOST's port DEVICE; the switch its
              lowest port is cabled to is that port's leaf, named by the switch's own
              description (else S-GUID). A Ca described otherwise (one word: a gateway, a
              storage target) is no node's and is left out.
A port is on rail i when its device is the sweep's rail i device (--rail-devs; without
them, the node's i-th device in name order). A file that is malformed, names a node
the sweep does not hold, or says two things of one port is refused in one line naming
the file and the line (exit 2).

The uplink rule, per rail and leaf L: the pairs measured across leaves with one end
under L (cross pairs) and those with both ends under L (inside pairs). A port whose
inside pairs are low, at least half of them (at least one), is its own NIC's problem
and stays with the pair rule (nbw.fleet.judge_pairs). Among the other ports, when
  - at least UPLINK_MIN_LOW cross pairs are low, from at least UPLINK_MIN_PORTS of L's
    ports,
  - at least UPLINK_MIN_INSIDE inside pairs were measured among L's ports and at most
    INSIDE_LOW_AT_MOST of them are low,
L's uplink on that rail is the suspect, once ("uplink of leaf r0, rail 3: 8 of 32
cross-leaf pairs low, 0 of 28 inside"), and every transfer crossing L's uplink on that
rail leaves the pair rule: no NIC and no link is named for it. Leaves are taken the
most low cross pairs first, a pair explained once (the far leaf of a low cross pair is
not named for it). The suspect is unsteady when every low cross pair was measured again
and normal.
"""

import re

from .sweepdir import NAME_RE

EXIT_USAGE = 2
FILE_MAX = 64 << 20
UPLINK_MIN_LOW = 3
UPLINK_MIN_PORTS = 2
UPLINK_MIN_INSIDE = 2
INSIDE_LOW_AT_MOST = 0.1
CROSS_PER_UPLINK = 3  # the plan: cross-leaf pairs each uplink gets on each rail at least

LEAF_RE = re.compile(r"^[A-Za-z0-9._:;/@%+-]{1,64}$")
_LEAF_KEY = re.compile(r"^leaf([0-9]{1,3})$")
_IB_KV = re.compile(r"^(vendid|devid|sysimgguid|switchguid|caguid|rtrguid)=\S+$")
_IB_NODE = re.compile(r'^(Switch|Ca|Rt)\s+([0-9]+)\s+"([SHR])-([0-9a-fA-F]{1,16})"\s*'
                      r'(?:#\s*"([^"]*)".*)?$')
# A port line: [p](port guid)? "X-GUID"[q](guid)? # comment; a Ca's has its own port's
# guid after [p], a switch's after the peer's port.
_IB_PORT = re.compile(r'^\[([0-9]+)\](?:\([0-9a-fA-F]+\))?\s*"([SHR])-([0-9a-fA-F]{1,16})"'
                      r'\[([0-9]+)\](?:\([0-9a-fA-F]+\))?\s*(?:#.*)?$')


class TopologyError(Exception):
    """A topology refused: its text is the one line (FILE:LINE: why)."""

    status = EXIT_USAGE


def _natural(name):
    return [int(w) if w.isdigit() else w for w in re.split(r"([0-9]+)", name)]


class Topology:
    """ports: {node: {key: leaf}}, key "*" (every rail: rack=), a rail index as text
    (leaf<i>=) or a device name (ibnetdiscover)."""

    def __init__(self, ports, source, rail_devs=None):
        self.ports, self.source = ports, source
        self.rail_devs = [d for d in rail_devs or [] if d] or None

    def doc(self):
        return {"source": self.source, "ports": self.ports}

    @classmethod
    def from_doc(cls, doc, rail_devs=None):
        """The topology a sweep.json keeps, or None (none, or not one)."""
        if not isinstance(doc, dict) or not isinstance(doc.get("ports"), dict):
            return None
        ports = {n: {str(k): str(v) for k, v in p.items() if isinstance(v, str)}
                 for n, p in doc["ports"].items() if isinstance(p, dict)}
        return cls(ports, str(doc.get("source", "")), rail_devs)

    def leaf(self, node, rail, dev=None):
        """The leaf node's port on rail (device dev when known) hangs off, or None."""
        p = self.ports.get(node)
        if not p:
            return None
        if dev is None and self.rail_devs and rail < len(self.rail_devs):
            dev = self.rail_devs[rail]
        if dev is not None and dev in p:
            return p[dev]
        if str(rail) in p:
            return p[str(rail)]
        if dev is None and "*" not in p:
            devs = sorted((k for k in p if not k.isdigit() and k != "*"), key=_natural)
            if rail < len(devs):
                return p[devs[rail]]
        return p.get("*")

    def nodes(self):
        return list(self.ports)


# --- reading ----------------------------------------------------------------------

def _read(path):
    try:
        with open(path, "rb") as f:
            data = f.read(FILE_MAX + 1)
    except OSError as e:
        raise TopologyError("%s: %s" % (path, e.strerror)) from None
    if len(data) > FILE_MAX:
        raise TopologyError("%s: larger than %d MiB: not a topology" % (path, FILE_MAX >> 20))
    return data.decode("utf-8", "replace").splitlines()


def read_topology(path, nodes=None):
    """The Topology of path: ibnetdiscover's output when its first line that is not a
    comment is one of its (vendid=, Switch, Ca...), else a hostfile. nodes: the sweep's
    nodes (a node outside them is refused), None to take the file's."""
    lines = _read(path)
    first = next((ln.strip() for ln in lines if ln.strip() and not ln.lstrip().startswith("#")),
                 "")
    if _IB_KV.match(first) or _IB_NODE.match(first):
        return parse_ibnetdiscover(path, lines, nodes)
    return parse_hostfile(path, lines, nodes)


def _known(path, no, node, nodes):
    if nodes is not None and node not in nodes:
        raise TopologyError("%s:%d: %s: not a node of this sweep" % (path, no, node))


def _set(path, no, ports, node, key, leaf, where):
    """ports[node][key] = leaf, refused when it said another leaf already (where:
    {(node, key): line})."""
    old = ports.setdefault(node, {}).get(key)
    if old is not None and old != leaf:
        raise TopologyError("%s:%d: %s %s hangs off %s here, off %s on line %d: which?" % (
            path, no, node, "every rail" if key == "*" else
            "rail %s" % key if key.isdigit() else key, leaf, old, where[(node, key)]))
    ports[node][key] = leaf
    where.setdefault((node, key), no)


def parse_hostfile(path, lines, nodes=None):
    """A hostfile's rack= and leaf<i>= (other words after the name are left alone)."""
    ports, where = {}, {}
    known = set(nodes) if nodes is not None else None
    for no, raw in enumerate(lines, 1):
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        name = words[0]
        if name.count(":") == 1 and name.split(":")[1].isdigit():
            name = name.split(":")[0]
        if not NAME_RE.match(name):
            raise TopologyError("%s:%d: '%s': not a node name" % (path, no, name[:80]))
        _known(path, no, name, known)
        for w in words[1:]:
            key, eq, val = w.partition("=")
            m = _LEAF_KEY.match(key)
            if not eq or not (key == "rack" or m or key.startswith("leaf")):
                continue
            if key.startswith("leaf") and not m:
                raise TopologyError("%s:%d: '%s': leaf<i>=NAME, i a rail index" % (
                    path, no, w[:80]))
            if not LEAF_RE.match(val):
                raise TopologyError("%s:%d: '%s': a switch's name is letters, digits and "
                                    "._:;/@%%+- (at most 64)" % (path, no, w[:80]))
            _set(path, no, ports, name, "*" if key == "rack" else m.group(1), val, where)
    if not ports:
        raise TopologyError("%s:1: no rack= or leaf<i>= on any line: no topology" % path)
    return Topology(ports, "hostfile %s" % path)


def _ib_blocks(path, lines):
    """ibnetdiscover's blocks: [{"type", "guid", "desc", "line", "ports": [(port, peer
    type, peer guid, peer port, line)]}]; any line it does not know is refused."""
    blocks, cur = [], None
    for no, raw in enumerate(lines, 1):
        ln = raw.strip()
        if not ln or ln.startswith("#") or _IB_KV.match(ln):
            continue
        m = _IB_NODE.match(ln)
        if m:
            cur = {"type": m.group(1), "guid": m.group(4).lower().zfill(16),
                   "desc": (m.group(5) or "").strip(), "line": no, "ports": []}
            blocks.append(cur)
            continue
        m = _IB_PORT.match(ln)
        if m and cur is not None:
            cur["ports"].append((int(m.group(1)), m.group(2), m.group(3).lower().zfill(16),
                                 int(m.group(4)), no))
            continue
        raise TopologyError("%s:%d: not a line of ibnetdiscover's output: '%s'" % (
            path, no, ln[:80]))
    if not blocks:
        raise TopologyError("%s:1: no Switch or Ca block: not ibnetdiscover's output" % path)
    return blocks


def parse_ibnetdiscover(path, lines, nodes=None):
    """The ports of the Ca blocks described "HOST DEVICE", each on the switch its lowest
    port is cabled to (both ends' lines, where both are there, must agree)."""
    blocks = _ib_blocks(path, lines)
    switches, seen = {}, {}
    cabled = {}  # (ca guid, ca port) -> (switch guid, line), from the switches' lines
    for b in blocks:
        if b["guid"] in seen and seen[b["guid"]]["type"] != b["type"] or \
                b["type"] == "Switch" and b["guid"] in switches:
            raise TopologyError("%s:%d: %s-%s again (line %d)" % (
                path, b["line"], b["type"][0], b["guid"], seen[b["guid"]]["line"]))
        seen[b["guid"]] = b
        if b["type"] == "Switch":
            desc = b["desc"]
            switches[b["guid"]] = desc if LEAF_RE.match(desc) else "S-" + b["guid"]
            for port, kind, peer, pport, no in b["ports"]:
                if kind == "H":
                    cabled[(peer, pport)] = (b["guid"], no)
    known = set(nodes) if nodes is not None else None
    ports, where = {}, {}
    for b in blocks:
        words = b["desc"].split()
        if b["type"] != "Ca" or len(words) != 2:
            continue
        host, dev = words
        if not NAME_RE.match(host) or not NAME_RE.match(dev):
            raise TopologyError("%s:%d: '%s': not HOST DEVICE" % (path, b["line"],
                                                                   b["desc"][:80]))
        _known(path, b["line"], host, known)
        links = sorted((p, peer, pport, no) for p, kind, peer, pport, no in b["ports"]
                       if kind == "S")
        for p, peer, pport, no in links:
            sw = cabled.get((b["guid"], p))
            if peer not in switches:
                raise TopologyError("%s:%d: S-%s: no such Switch block in the file" % (
                    path, no, peer))
            if sw is not None and sw[0] != peer:
                raise TopologyError("%s:%d: %s %s port %d is cabled to S-%s here, to S-%s "
                                    "on line %d" % (path, no, host, dev, p, peer, sw[0], sw[1]))
        if not links:
            sw = sorted((p, g) for (ca, p), (g, _) in cabled.items() if ca == b["guid"])
            if not sw:
                continue
            links = [(sw[0][0], sw[0][1], 0, b["line"])]
        _set(path, links[0][3], ports, host, dev, switches[links[0][1]], where)
    if not ports:
        raise TopologyError("%s:1: no Ca described HOST DEVICE: no node's port" % path)
    return Topology(ports, "ibnetdiscover %s" % path)


def load(meta, path=None):
    """The topology of a sweep: path's (its nodes the sweep's) when given, else what
    sweep.json keeps; None without one. TopologyError when path is refused."""
    devs = meta.get("rail_devs") if isinstance(meta.get("rail_devs"), list) else None
    if path:
        nodes = meta.get("nodes") if isinstance(meta.get("nodes"), list) else None
        t = read_topology(path, nodes)
        t.rail_devs = [d for d in devs or [] if isinstance(d, str) and d] or None
        return t
    return Topology.from_doc(meta.get("topology"), devs)


# --- the plan -----------------------------------------------------------------------

def _plan_pairs(plan, upto=None):
    out = set()
    for r in range(plan.rounds if upto is None else upto):
        for a, b in plan.round(r)[0]:
            out.add((min(a, b), max(a, b)))
    return out


def _leaves_of(plan, topo, rails):
    """[{index: leaf}] per rail of the plan's nodes that have one."""
    out = []
    for r in range(max(1, rails)):
        out.append({i: lf for i in range(plan.n)
                    for lf in [topo.leaf(plan.name(i), r)] if lf is not None})
    return out


def leaf_counts(plan, topo, rails, pairs=None):
    """{(leaf, rail): [inside pairs, cross-leaf pairs]} over the plan's pairs."""
    pairs = _plan_pairs(plan) if pairs is None else pairs
    out = {}
    for r, lv in enumerate(_leaves_of(plan, topo, rails)):
        for lf in set(lv.values()):
            out[(lf, r)] = [0, 0]
        for a, b in pairs:
            la, lb = lv.get(a), lv.get(b)
            if la is None or lb is None:
                continue
            if la == lb:
                out[(la, r)][0] += 1
            else:
                out[(la, r)][1] += 1
                out[(lb, r)][1] += 1
    return out


def _inside_round(lv, pairs):
    """One round pairing, inside each leaf, the nodes without a partner there."""
    have = {x for a, b in pairs if lv.get(a) is not None and lv.get(a) == lv.get(b)
            for x in (a, b)}
    members = {}
    for i, lf in sorted(lv.items()):
        members.setdefault(lf, []).append(i)
    rnd, used = [], set()
    for lf, ms in sorted(members.items()):
        for u in [m for m in ms if m not in have]:
            if u in used:
                continue
            v = next((m for m in sorted(ms, key=lambda m: (m in have, m))
                      if m != u and m not in used and (min(u, m), max(u, m)) not in pairs),
                     None)
            if v is not None:
                rnd.append((u, v))
                used.update((u, v))
    return rnd


def _cross_round(lv, pairs, counts, rail):
    """One round of cross-leaf pairs for the leaves crossed fewer than CROSS_PER_UPLINK
    times on rail."""
    members = {}
    for i, lf in sorted(lv.items()):
        members.setdefault(lf, []).append(i)
    rnd, used = [], set()
    for lf in sorted(members):
        need = CROSS_PER_UPLINK - counts.get((lf, rail), [0, 0])[1]
        others = [i for f, ms in sorted(members.items()) if f != lf for i in ms]
        for u in members[lf]:
            if need <= 0:
                break
            if u in used:
                continue
            v = next((m for m in others if m not in used and (min(u, m), max(u, m))
                      not in pairs), None)
            if v is not None:
                rnd.append((u, v))
                used.update((u, v))
                need -= 1
    return rnd


def plan_rounds(plan, topo, rails, most=4):
    """The rounds a topology adds to a plan (at most most): one inside each leaf for the
    nodes without a partner there, one across leaves while an uplink is crossed fewer
    than CROSS_PER_UPLINK times on a rail. Each a list of (a, b) indices, no pair twice."""
    pairs = _plan_pairs(plan, plan.rounds - len(plan.extra))
    extra = []
    for lv in _leaves_of(plan, topo, rails):
        if len(extra) >= most:
            break
        rnd = _inside_round(lv, pairs)
        if rnd:
            extra.append(rnd)
            pairs.update((min(a, b), max(a, b)) for a, b in rnd)
    for r, lv in enumerate(_leaves_of(plan, topo, rails)):
        while len(extra) < most and len(set(lv.values())) > 1:
            counts = leaf_counts(plan, topo, rails, pairs)
            if all(counts[(lf, r)][1] >= CROSS_PER_UPLINK for lf in set(lv.values())):
                break
            rnd = _cross_round(lv, pairs, counts, r)
            if not rnd:
                break
            extra.append(rnd)
            pairs.update((min(a, b), max(a, b)) for a, b in rnd)
    return extra


def apply(plan, topo, rails):
    """plan with the topology's rounds (none without a topology or a second node)."""
    plan.extra = []
    if topo is not None and plan.n > 1:
        plan.extra = plan_rounds(plan, topo, rails)
    return plan


def plan_summary(plan, topo, rails):
    """The plan's pairs per leaf: {"source", "extra_rounds", "leaves": [{"leaf",
    "rails", "inside", "cross"}]} (rails with the same counts together)."""
    rows = {}
    for (lf, r), (inside, cross) in sorted(leaf_counts(plan, topo, rails).items(),
                                           key=lambda kv: (_natural(kv[0][0]), kv[0][1])):
        rows.setdefault((lf, inside, cross), []).append(r)
    return {"source": topo.source, "extra_rounds": len(plan.extra),
            "cross_per_uplink_at_least": CROSS_PER_UPLINK,
            "leaves": [{"leaf": lf, "rails": rs, "inside": i, "cross": c}
                       for (lf, i, c), rs in rows.items()]}


def _rails_words(rs):
    if len(rs) > 1 and rs == list(range(rs[0], rs[-1] + 1)):
        return "rails %d-%d" % (rs[0], rs[-1])
    return ("rail %s" if len(rs) == 1 else "rails %s") % ",".join(map(str, rs))


def plan_text(summary, w):
    w("  topology      %s: %d leaves, %d round%s added\n" % (
        summary["source"], len({x["leaf"] for x in summary["leaves"]}),
        summary["extra_rounds"], "" if summary["extra_rounds"] == 1 else "s"))
    for x in summary["leaves"]:
        low = " (fewer than %d)" % CROSS_PER_UPLINK if x["cross"] < CROSS_PER_UPLINK else ""
        w("    leaf %-12s %s: %d inside pairs, %d cross-leaf pairs%s\n" % (
            x["leaf"], _rails_words(x["rails"]), x["inside"], x["cross"], low))


# --- the judgement --------------------------------------------------------------------

def _key(a, b):
    return (a, b) if a <= b else (b, a)


class _Rail:
    """One rail's transfers seen through the topology: each pair's worst ratio (sweep
    and retests), its ends' leaves, each port's inside ratios."""

    def __init__(self, rail, transfers, ratio, topo):
        self.leaf = {}  # node -> leaf on this rail
        self.sweep, self.retest = {}, {}
        for t in transfers:
            for x, dev in ((t.src, t.src_dev), (t.dst, t.dst_dev)):
                if x not in self.leaf:
                    self.leaf[x] = topo.leaf(x, rail, dev)
            r = ratio(t)
            if r is None:
                continue
            side = self.retest if t.retest else self.sweep
            k = _key(t.src, t.dst)
            side[k] = min(side.get(k, r), r)
        self.inside = {}
        self.cross_of, self.inside_of = {}, {}  # leaf -> [pair] of the sweep
        for (a, b), r in self.sweep.items():
            la, lb = self.leaf.get(a), self.leaf.get(b)
            if la is None or lb is None:
                continue
            if la == lb:
                self.inside_of.setdefault(la, []).append((a, b))
                for x in (a, b):
                    self.inside.setdefault(x, []).append(r)
            else:
                for lf in (la, lb):
                    self.cross_of.setdefault(lf, []).append((a, b))

    def is_inside(self, a, b):
        la = self.leaf.get(a)
        return la is not None and la == self.leaf.get(b)

    def crosses(self, a, b, leaf):
        la, lb = self.leaf.get(a), self.leaf.get(b)
        return la is not None and lb is not None and la != lb and leaf in (la, lb)


def _nic_like(rl, threshold):
    """Ports low inside their own leaf, at least half of their inside pairs: those low
    with two or more partners there or with at least half of all their partners (two
    or more), and those low with one whose low partner is not such a port itself (its
    pair's low figure is that port's)."""
    low, every = {}, {}
    for (a, b), r in rl.sweep.items():
        for x, y in ((a, b), (b, a)):
            every.setdefault(x, []).append(r < threshold)
            if r < threshold and rl.is_inside(a, b):
                low.setdefault(x, set()).add(y)
    half = {x for x, ps in low.items() if 2 * len(ps) >= len(rl.inside[x])}
    strong = {x for x in half if len(low[x]) >= 2 or
              sum(every[x]) >= 2 and 2 * sum(every[x]) >= len(every[x])}
    return strong | {x for x in half - strong if not low[x] <= strong}


def _uplink_of(rl, leaf, nic, threshold, explained):
    """(evidence, low cross pairs) of leaf's uplink when the rule names it, else None."""
    cross = [k for k in rl.cross_of.get(leaf, ()) if not set(k) & nic]
    low = [k for k in cross if rl.sweep[k] < threshold and k not in explained]
    inside = [k for k in rl.inside_of.get(leaf, ()) if not set(k) & nic]
    in_low = [k for k in inside if rl.sweep[k] < threshold]
    mine = sorted({x for k in low for x in k if rl.leaf.get(x) == leaf})
    if len(low) < UPLINK_MIN_LOW or len(mine) < UPLINK_MIN_PORTS or \
            len(inside) < UPLINK_MIN_INSIDE or len(in_low) > INSIDE_LOW_AT_MOST * len(inside):
        return None
    far = {}
    for k in low:
        f = next(rl.leaf[x] for x in k if rl.leaf[x] != leaf)
        far[f] = far.get(f, 0) + 1
    again = [rl.retest[k] for k in low if k in rl.retest]
    ev = {"leaf": leaf, "cross_pairs": len(cross), "cross_low": len(low),
          "inside_pairs": len(inside), "inside_low": len(in_low),
          "ports_low": mine[:16], "ports_low_count": len(mine), "far_leaves": far,
          "low_pairs": {"%s-%s" % k: round(rl.sweep[k], 4) for k in sorted(low)[:16]},
          "retested": len(again), "retest_low": sum(r < threshold for r in again),
          "own_nic_low": sorted(x for x in nic if rl.leaf.get(x) == leaf)[:16]}
    return ev, low


def judge_uplinks(rail, transfers, ratio, topo, threshold):
    """(the transfers left for the pair rule, the uplinks named as (leaf, state, ratio,
    evidence), every leaf's counts as [{"leaf", "rail", "cross", "cross_low",
    "inside", "inside_low"}]) of one rail's transfers."""
    rl = _Rail(rail, transfers, ratio, topo)
    nic = _nic_like(rl, threshold)
    leaves = sorted({lf for lf in rl.leaf.values() if lf is not None}, key=_natural)
    explained, named = set(), []
    while True:
        best = None
        for lf in leaves:
            if lf in {n[0] for n in named}:
                continue
            got = _uplink_of(rl, lf, nic, threshold, explained)
            if got and (best is None or got[0]["cross_low"] > best[1][0]["cross_low"]):
                best = (lf, got)
        if best is None:
            break
        lf, (ev, low) = best
        # Every low pair between two leaves only: either end's uplink (the pairs cannot
        # tell which), both said.
        twin = [m for m in leaves if m != lf and m not in {n[0] for n in named} and
                set((_uplink_of(rl, m, nic, threshold, explained) or ({}, ()))[1]) == set(low)]
        if twin:
            ev = dict(ev, either_of=sorted([lf] + twin, key=_natural))
        explained.update(low)
        ratios = sorted(rl.sweep[k] for k in low)
        retested = [k for k in low if k in rl.retest]
        state = "unsteady" if len(retested) == len(low) and \
            min(rl.retest[k] for k in retested) >= threshold else "low"
        named.append((lf, state, ratios[len(ratios) // 2], dict(ev, rail=rail)))
    cut = {n[0] for n in named}
    kept = [t for t in transfers
            if {t.src, t.dst} & nic or not any(rl.crosses(t.src, t.dst, lf) for lf in cut)]
    counts = []
    for lf in leaves:
        cross, inside = rl.cross_of.get(lf, []), rl.inside_of.get(lf, [])
        counts.append({"leaf": lf, "rail": rail, "cross": len(cross),
                       "cross_low": sum(rl.sweep[k] < threshold for k in cross),
                       "inside": len(inside),
                       "inside_low": sum(rl.sweep[k] < threshold for k in inside),
                       "named": lf in cut})
    return kept, named, counts


def component(leaf, rail, ev=None):
    either = (ev or {}).get("either_of")
    if either:
        return "uplink of leaf %s, rail %d" % (" or ".join(either), rail)
    return "uplink of leaf %s, rail %d" % (leaf, rail)


def reason(s):
    """The uplink suspect's sentence."""
    ev = s["evidence"]
    text = "%s: %d of %d cross-leaf pairs low, %d of %d inside (median of the low %.0f%%)" % (
        s["component"], ev["cross_low"], ev["cross_pairs"], ev["inside_low"],
        ev["inside_pairs"], 100 * (s["ratio"] or 0))
    text += "; %d of its ports low only across it (%s%s)" % (
        ev["ports_low_count"], ", ".join(ev["ports_low"]),
        ", ..." if ev["ports_low_count"] > len(ev["ports_low"]) else "")
    text += "; to leaves %s" % ", ".join("%s (%d)" % kv for kv in sorted(ev["far_leaves"].items()))
    if ev.get("either_of"):
        text += "; every low pair joins %s: either uplink" % " and ".join(ev["either_of"])
    if ev["retested"]:
        text += "; measured again: %d of %d low" % (ev["retest_low"], ev["retested"])
    low = "unsteady: low in the sweep, normal when measured again" if s["state"] == "unsteady" \
        else "low"
    return "%s; no NIC is named for these pairs (%s)" % (text, low)


def for_run(fabric_topology, hostfile, nodes):
    """The topology a new sweep keeps in sweep.json (its doc), or None: the file of
    --fabric-topology, else the hostfile's rack= and leaf<i>= when it has any."""
    if fabric_topology:
        return read_topology(fabric_topology, nodes).doc()
    if hostfile:
        lines = _read(hostfile)
        if any("rack=" in ln.split("#", 1)[0] or "leaf" in ln.split("#", 1)[0]
               for ln in lines):
            return parse_hostfile(hostfile, lines, nodes).doc()
    return None
