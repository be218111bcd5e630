"""A fleet sweep's record line in its compact form (format 2): its figures and its
nodes' provenance as tables that repeat nothing, read back into the very figures and
provenance of the plain form (format 1), so that every reader gets the same.

A 4096-node sweep of 8 rails and 8 drives has 73728 figures: one JSON object each
(format 1) repeats its run's settings and its part's words in every figure: 31 MiB,
its nodes' provenance 7 MiB more, past the 16 MiB a record line may be; 6.8 MiB in
format 2:
  "figure_table"  a table per rung (per run of figures of one rung, in their order):
                  {"rung", "same": {key: the value every figure of the rung has},
                  "columns": [column], "rows": [[one value per column]]}
  "node_table"    the "node NAME" entries of "provenance" (each node's brief) as one
                  such table; "provenance" keeps the others (the sweep's own)
  "values"        the values said once: a column {"name", "how": "value"} holds an
                  index into it (-1: the key absent), {"how": "raw"} the value itself,
                  {"how": "items", "vary": [keys]} a list of objects, each as
                  [index of the object without its varying keys, its varying values]
                  (a drive's model and firmware said once, its serial in the row),
                  {"how": "object", "same", "columns"} an object each row, its own
                  row in the row (a part's model said once, its ratio in the row).
A line that does not decode, or would read back into more than MAX_PLAIN (256 MiB), is
skipped by its reader with why (parse_line), never read in part. Lines of format 1 are
read as they always were."""
from ..jsonutil import canon

FORMAT = 2
MAX_PLAIN = 256 << 20  # bytes a compact line may read back into (4096 x 8 x 8: 41 MiB)
NODE = "node "  # the provenance entries of a sweep's nodes: "node NAME"


def _key(v):
    """A value's identity: a scalar's type and value (cheap), else its canonical JSON."""
    if isinstance(v, float):
        return (float, repr(v))  # -0.0 is not 0.0
    if v is None or isinstance(v, (str, bool, int)):
        return (type(v), v)
    return canon(v)


class Values:
    """The line's values said once, each by its index."""

    def __init__(self):
        self.values, self.at = [], {}

    def index(self, v):
        key = _key(v)
        if key not in self.at:
            self.at[key] = len(self.values)
            self.values.append(v)
        return self.at[key]


def _how(name, vals, n):
    """How a column of n rows is kept (vals: its present values)."""
    if len(vals) == n and all(isinstance(v, list) and v and all(isinstance(x, dict) for x in v)
                              for v in vals):
        items = [x for v in vals for x in v]
        keys = set.intersection(*(set(x) for x in items))
        vary = sorted(k for k in keys if len({_key(x[k]) for x in items}) * 2 > len(items))
        if vary:
            return {"name": name, "how": "items", "vary": vary}
    if len(vals) < n or len({_key(v) for v in vals}) * 2 <= n:
        return {"name": name, "how": "value"}
    if all(isinstance(v, dict) for v in vals):  # each its own, in parts: a table of them
        return {"name": name, "how": "object"}
    return {"name": name, "how": "raw"}


def encode_table(rows, values):
    """A list of objects as {"same", "columns", "rows"} (values: the line's Values)."""
    keys = sorted({k for r in rows for k in r})
    same, cols = {}, []
    for k in keys:
        vals = [r[k] for r in rows if k in r]
        if len(vals) == len(rows) and len({_key(v) for v in vals}) == 1:
            same[k] = vals[0]
        else:
            cols.append(_how(k, vals, len(rows)))
    subs = {}
    for c in cols:
        if c["how"] == "object":
            sub = encode_table([r[c["name"]] for r in rows], values)
            c.update(same=sub["same"], columns=sub["columns"])
            subs[c["name"]] = iter(sub["rows"])
    out = []
    for r in rows:
        row = []
        for c in cols:
            k = c["name"]
            if c["how"] == "object":
                row.append(next(subs[k]))
            elif c["how"] == "raw":
                row.append(r[k])
            elif c["how"] == "value":
                row.append(values.index(r[k]) if k in r else -1)
            else:
                row.append([[values.index({a: b for a, b in x.items() if a not in c["vary"]})]
                            + [x[v] for v in c["vary"]] for x in r[k]])
        out.append(row)
    return {"same": same, "columns": cols, "rows": out}


class Reader:
    """The line's values, each read back at the cost of its plain size: a line whose
    values, repeated, would read back into more than MAX_PLAIN is refused, never
    expanded (16 MiB of line naming one large value a million times)."""

    def __init__(self, values):
        self.values, self.sizes, self.left = values, {}, MAX_PLAIN

    def spend(self, n):
        self.left -= n
        if self.left < 0:
            raise ValueError("it reads back into more than %d MiB" % (MAX_PLAIN >> 20))

    def value(self, i):
        if not isinstance(i, int) or isinstance(i, bool) or not 0 <= i < len(self.values):
            raise ValueError("a value index %r out of range" % (i,))
        if i not in self.sizes:
            self.sizes[i] = len(canon(self.values[i]))
        self.spend(self.sizes[i])
        return self.values[i]


def decode_table(t, rd):
    """The objects of an encoded table (rd: the line's Reader); ValueError naming what
    does not decode."""
    if not isinstance(t, dict) or not isinstance(t.get("same"), dict) or \
            not isinstance(t.get("columns"), list) or not isinstance(t.get("rows"), list):
        raise ValueError("a table without same, columns and rows")
    cols = t["columns"]
    for c in cols:
        if not isinstance(c, dict) or not isinstance(c.get("name"), str) or \
                c.get("how") not in ("raw", "value", "items", "object") or \
                c.get("how") == "items" and not (isinstance(c.get("vary"), list) and
                         all(isinstance(v, str) for v in c["vary"])):
            raise ValueError("a column not understood")

    value, same = rd.value, len(canon(t["same"]))
    objs = {j: iter(decode_table({"same": c.get("same"), "columns": c.get("columns"), "rows": [
        row[j] if isinstance(row, list) and len(row) == len(cols) else None
        for row in t["rows"]]}, rd)) for j, c in enumerate(cols) if c["how"] == "object"}
    out = []
    for row in t["rows"]:
        if not isinstance(row, list) or len(row) != len(cols):
            raise ValueError("a row of %s values, the table has %d columns" % (
                len(row) if isinstance(row, list) else "no", len(cols)))
        rd.spend(same)
        r = dict(t["same"])
        for j, (c, v) in enumerate(zip(cols, row)):
            if c["how"] == "object":
                r[c["name"]] = next(objs[j])
            elif c["how"] == "raw":
                r[c["name"]] = v
            elif c["how"] == "value":
                if v != -1:
                    r[c["name"]] = value(v)
            else:
                r[c["name"]] = [_item(x, c["vary"], value) for x in v] \
                    if isinstance(v, list) else _bad(v)
        out.append(r)
    return out


def _item(x, vary, value):
    base = value(x[0]) if isinstance(x, list) and len(x) == 1 + len(vary) else None
    if not isinstance(base, dict):
        raise ValueError("an item not understood")
    return dict(base, **dict(zip(vary, x[1:])))


def _bad(v):
    raise ValueError("items that are not a list (%s)" % type(v).__name__)


def encode(entry):
    """The compact form of a fleet run's line (a new object; entry is left as it is)."""
    figs = entry.get("figures")
    provs = entry.get("provenance")
    if not isinstance(figs, list) or not all(isinstance(f, dict) and "rung" in f
                                             for f in figs):
        return entry
    values, kinds, runs = Values(), [], []
    for f in figs:  # each run of figures of one rung a table, in the figures' order
        if not runs or _key(runs[-1][0]["rung"]) != _key(f["rung"]):
            runs.append([])
        runs[-1].append(f)
    for rows in runs:
        kinds.append(dict(encode_table([{k: v for k, v in f.items() if k != "rung"}
                                        for f in rows], values), rung=rows[0].get("rung")))
    out = {k: v for k, v in entry.items() if k != "figures"}
    out.update(format=FORMAT, figure_table=kinds)
    if isinstance(provs, dict):
        nodes = [v for k, v in provs.items() if k.startswith(NODE)]
        if all(isinstance(v, dict) and isinstance(v.get("node"), str) and
               provs.get(NODE + v["node"]) is v for v in nodes) and nodes:
            out["provenance"] = {k: v for k, v in provs.items() if not k.startswith(NODE)}
            out["node_table"] = encode_table(nodes, values)
    out["values"] = values.values
    return out


def decode(e):
    """A line of format 2 read back into the plain form (figures, provenance), in
    place; ValueError naming what does not decode."""
    values = e.pop("values", None)
    kinds = e.pop("figure_table", None)
    if not isinstance(values, list) or not isinstance(kinds, list):
        raise ValueError("a compact run without its values or figure table")
    figs, rd = [], Reader(values)
    for k in kinds:
        if not isinstance(k, dict):
            raise ValueError("a figure table not understood")
        rows = decode_table(k, rd)
        rd.spend(len(rows) * len(canon(k.get("rung"))))
        figs += [dict(f, rung=k.get("rung")) for f in rows]
    e["figures"] = figs
    if "node_table" in e:
        nodes = decode_table(e.pop("node_table"), rd)
        provs = e.get("provenance") if isinstance(e.get("provenance"), dict) else {}
        for b in nodes:
            if not isinstance(b.get("node"), str):
                raise ValueError("a node's provenance without its name")
            provs[NODE + b["node"]] = b
        e["provenance"] = dict(sorted(provs.items()))  # as format 1 reads: canon's order
    return e
