"""nbw.drivehealth: what a drive said of itself around a measured window, as rules that
name it. nvme_read_bw and nvme_write_bw_remote give each drive they read its NVMe health
log before the warm-up and after the window ("health": findings, deltas, the reading
after) and the shape of its seconds ("unsteady", "unsteady_reason"). The rules: it
throttled, it crossed its warning temperature, it logged new media errors, it raised a
critical warning, its window was unsteady. A drive low against its peers with none of
them, and no link change, is the drive itself. Pure functions of a drive's object,
standard library only (used by the ladder's attribution and the fleet judge)."""
from .jsonutil import as_number, dicts, dig

# What a low drive with no evidence against anything else is.
NO_EVIDENCE = "no thermal, error or link change counted: the drive itself"


def _findings(drive):
    f = dig(drive, "health", "findings")
    return [x for x in f if isinstance(x, str)] if isinstance(f, list) else []


def _delta(drive, key):
    return as_number(dig(drive, "health", "deltas", key))


def rule_throttled(drive):
    """Thermal management transitions or time counted in the window."""
    if "throttled" not in _findings(drive):
        return None
    parts = []
    for t in (1, 2):
        n, s = _delta(drive, "tmt%d_transitions" % t), _delta(drive, "tmt%d_seconds" % t)
        if n or s:
            parts.append("T%d +%d transition%s, %d s" % (t, n or 0, "" if n == 1 else "s", s or 0))
    return "throttled in the window (thermal management %s)" % "; ".join(parts) \
        if parts else "throttled in the window"


def rule_hot(drive):
    """At or above its warning temperature at the close, or minutes counted there."""
    if "hot" not in _findings(drive):
        return None
    t = as_number(dig(drive, "health", "after", "temperature_c"))
    w = as_number(dig(drive, "health", "warning_temp_c"))
    mins = _delta(drive, "warning_temp_minutes")
    said = []
    if t is not None and w is not None and t >= w:
        said.append("%d C at the close (warning at %d C)" % (t, w))
    if mins:
        said.append("%d min above its warning temperature" % mins)
    return "crossed its warning temperature" + (": " + ", ".join(said) if said else "")


def rule_media_errors(drive):
    """New media and data integrity errors in the window."""
    n = _delta(drive, "media_errors")
    if "media_errors" not in _findings(drive) or not n:
        return None
    return "%d new media error%s in the window" % (n, "" if n == 1 else "s")


def rule_critical_warning(drive):
    """A critical warning bit set at the close."""
    if "critical_warning" not in _findings(drive):
        return None
    w = dig(drive, "health", "after", "warnings")
    names = ", ".join(x for x in w if isinstance(x, str)) if isinstance(w, list) else ""
    return "critical warning at the close" + (" (%s)" % names if names else "")


def rule_unsteady(drive):
    """Its seconds' cv above --max-cv, or a second under half the median."""
    if drive.get("unsteady") is not True:
        return None
    why = drive.get("unsteady_reason")
    return "unsteady window" + (": %s" % why if isinstance(why, str) and why else "")


# (name, the keys it reads, the rule, what it usually means).
RULES = (
    ("throttled", "health.findings, health.deltas.tmt*", rule_throttled,
     "the drive slowed itself to cool down: the figure is its thermal limit, not its bandwidth"),
    ("crossed_warning_temperature", "health.after.temperature_c, health.warning_temp_c",
     rule_hot, "too hot: airflow, a blocked fan or a hot neighbour"),
    ("media_errors", "health.deltas.media_errors", rule_media_errors,
     "the drive retried reads it could not get right first: it may be failing"),
    ("critical_warning", "health.after.warnings", rule_critical_warning,
     "the drive itself says it is in trouble (spare, temperature, reliability, read-only)"),
    ("unsteady", "unsteady, unsteady_reason", rule_unsteady,
     "the rate collapsed or wandered within the window: one figure does not describe it"),
)


def findings(drive):
    """[(rule, text, meaning)] of the rules that fire on a drive's object."""
    if not isinstance(drive, dict):
        return []
    out = []
    for name, _, fn, meaning in RULES:
        said = fn(drive)
        if said:
            out.append((name, said, meaning))
    return out


def own_drives(doc):
    """The drives a document speaks for on its own node: all of them, but a sink's report
    of its sources' drives (side "rdma") is theirs: the sink's report never speaks for
    the sink's own drives of the same name (each source's own document speaks for its
    drives on its node)."""
    sink = dig(doc, "role") == "sink"
    return [d for d in dicts(dig(doc, "drives")) if not (sink and d.get("side") == "rdma")]


def drive_named(doc, name):
    """The drives[] entry of a document for a drive's name (nvme0n1, or a path's base),
    among the drives of the document's own node (own_drives)."""
    for d in own_drives(doc):
        for k in ("name", "path"):
            v = d.get(k)
            if isinstance(v, str) and v.rsplit("/", 1)[-1].rsplit(":", 1)[-1] == name:
                return d
    return None


def link_changed(drive):
    """True when the drive's link dropped or retrained under load, or AER counts moved."""
    lul = dig(drive, "link_under_load")
    if isinstance(lul, dict) and (lul.get("dropped") or lul.get("changes")):
        return True
    for kind in ("correctable", "nonfatal", "fatal"):
        if as_number(dig(drive, "aer", kind, "delta")):
            return True
    return False


def evidence(drive, link_said=False):
    """A low drive's own evidence: {"rules", "says", "health_read", "why_not_read"}.
    With no rule, no link change here and none said elsewhere (link_said), "says" is
    NO_EVIDENCE when its health log was read, or says the log was not read."""
    if not isinstance(drive, dict):
        return None
    fired = findings(drive)
    read = dig(drive, "health", "log_read")
    why = dig(drive, "health", "why")
    ev = {"rules": [f[0] for f in fired], "says": "; ".join(f[1] for f in fired) or None,
          "health_read": read if isinstance(read, bool) else None,
          "why_not_read": why if read is False and isinstance(why, str) else None}
    if not fired and not link_said and not link_changed(drive):
        ev["says"] = NO_EVIDENCE if read is True else \
            "no link change counted; its health log was not read (%s)" % (
                ev["why_not_read"] or "the document has none")
    return ev
