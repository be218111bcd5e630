"""nbw.fleet.spec: the bars a part is held to beside its peers: --floor and --spec.

--floor drive=R,rail=R (either key; R in (0, 1]): a drive below R of its link's usable
ceiling (nvme_read_bw's link_ceiling_gb_per_s of the drive, else the probe's), a rail
below R of its port's line rate (nvme_write_bw_remote's line_rate_gb_per_s), is below
its floor; the default 0.8 each. --floor none: no floor (an emulated lab, whose links
and ports say nothing of what they carry).

--spec FILE: a site's own minimum per drive model or NIC model, one rule a line
(# comments, blank lines; a model with spaces quoted):

  drive MODEL [fw=FIRMWARE] min=GB/s
  nic MODEL [rate=Gb/s] min=GB/s

A drive's model and firmware are nvme_read_bw's (its drives[].model, .firmware); a
NIC's model is its port's board_id in nvme_write_bw_remote's provenance (rdma_ports),
else the probe's model of the device; rate= is the port's line rate in Gb/s (400: 50
GB/s). A rule with fw= or rate= wins over one without. A rule wins over the floor
where it names the part. A line that is malformed, of an unknown kind, or that
contradicts an earlier one (the same part, another minimum) is refused in one line
naming FILE:LINE (exit 2); so is, when a sweep is judged, a rule naming a model no node
of the sweep has.
"""

import shlex

DEFAULT_FLOORS = {"drive": 0.8, "rail": 0.8}
KINDS = {"drive": "fw", "nic": "rate"}


class SpecError(ValueError):
    """A bad --floor or --spec, in one line."""


def floor_arg(text):
    """--floor: {"drive": R, "rail": R} (a key left out keeps its default), {} for none."""
    if text.strip() == "none":
        return {}
    out = dict(DEFAULT_FLOORS)
    for word in [w for w in text.split(",") if w.strip()] or [""]:
        key, eq, val = word.partition("=")
        key = key.strip()
        try:
            r = float(val) if eq else None
        except ValueError:
            r = None
        if key not in DEFAULT_FLOORS or r is None or not 0 < r <= 1:
            raise SpecError("%s: drive=R and/or rail=R (R in (0,1], e.g. drive=0.8,rail=0.8), "
                            "or none" % text)
        out[key] = r
    return out


def _number(word, what, where):
    try:
        v = float(word)
    except ValueError:
        v = None
    if v is None or not 0 < v < 1e6:
        raise SpecError("%s: %s=%s: a positive number" % (where, what, word))
    return v


def parse_line(words, where):
    """One rule of a spec line's words: {"kind", "model", "fw"|"rate", "min"}."""
    if words[0] not in KINDS:
        raise SpecError("%s: '%s': not a kind (drive or nic)" % (where, words[0]))
    if len(words) < 3:
        raise SpecError("%s: %s MODEL [%s=...] min=GB/s" % (where, words[0], KINDS[words[0]]))
    rule = {"kind": words[0], "model": words[1], "min": None, KINDS[words[0]]: None}
    for w in words[2:]:
        key, eq, val = w.partition("=")
        if not eq or not val or key not in ("min", KINDS[words[0]]) or rule[key] is not None:
            raise SpecError("%s: '%s': %s takes min=GB/s and %s= once each" % (
                where, w, words[0], KINDS[words[0]]))
        rule[key] = _number(val, key, where) if key != "fw" else val
    if rule["min"] is None:
        raise SpecError("%s: no min=GB/s" % where)
    return rule


def read_spec(path):
    """The rules of a spec file, each with its "line"; SpecError in one line naming
    FILE:LINE when a line is bad or contradicts an earlier one."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read(1 << 20).splitlines()
    except OSError as e:
        raise SpecError("%s: %s" % (path, e.strerror))
    rules, seen = [], {}
    for i, line in enumerate(lines, 1):
        where = "%s:%d" % (path, i)
        try:
            words = shlex.split(line, comments=True)
        except ValueError as e:
            raise SpecError("%s: %s" % (where, e))
        if not words:
            continue
        rule = parse_line(words, where)
        rule["line"] = i
        key = (rule["kind"], rule["model"], rule.get("fw"), rule.get("rate"))
        old = seen.get(key)
        if old is not None and old["min"] != rule["min"]:
            raise SpecError("%s: contradicts line %d (%s %s: min %g there, %g here)" % (
                where, old["line"], rule["kind"], rule["model"], old["min"], rule["min"]))
        seen[key] = rule
        rules.append(rule)
    return {"file": path, "rules": rules}


def check_models(spec, drive_models, nic_models):
    """A spec rule naming a model no node of the sweep has: its FILE:LINE in one line,
    or None."""
    for r in (spec or {}).get("rules") or []:
        have = drive_models if r["kind"] == "drive" else nic_models
        if r["model"] not in have:
            return "%s:%d: %s model '%s': no node of the sweep has it (it has %s)" % (
                spec.get("file"), r["line"], r["kind"], r["model"],
                ", ".join(sorted(map(str, have))[:8]) or "none")
    return None


def rule_for(spec, kind, model, extra):
    """The spec's rule of a part (kind "drive" or "nic", its model, its firmware or
    rate in Gb/s), the most precise first, or None."""
    best = None
    for r in (spec or {}).get("rules") or []:
        if r["kind"] != kind or r["model"] != model:
            continue
        x = r.get(KINDS[kind])
        if x is None:
            best = best or r
        elif extra is not None and (x == extra if kind == "drive" else abs(x - extra) < 0.5):
            return r
    return best
