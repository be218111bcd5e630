"""Values out of the tools' JSON documents: one set of helpers for the whole package.

A document read from a file may lack a key, hold null or hold a string where a number
belongs; these helpers answer None (or "-" in text) instead of raising, so one broken
document never ends a summary.
"""
import hashlib
import json
import math


def dig(d, *keys):
    """d[k1][k2]...: None as soon as a level is not an object or lacks the key."""
    for k in keys:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def is_number(v):
    """True for a JSON number (int or float); a bool is not a number."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def as_number(v):
    """v itself (int stays int) if it is a number and not NaN, else None."""
    return v if is_number(v) and v == v else None


def as_float(v):
    """v as a float if it is a finite number, else None (NaN and infinity too)."""
    if not is_number(v):
        return None
    return float(v) if math.isfinite(v) else None


def dicts(v):
    """The objects of a JSON list (anything else in it, or a non-list, ignored)."""
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def number_text(v, fmt="%.3f"):
    """A number in FMT for a text table, "-" for anything that is not a number."""
    return fmt % v if is_number(v) else "-"


def read_json(path):
    """The document in PATH, or None if it cannot be read or is not JSON."""
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def write_json(path, doc):
    """DOC into PATH, indented, with a final newline."""
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def canon(obj):
    """The canonical text of OBJ: sorted keys, no spaces (what a digest is taken of)."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"))


def digest(obj, n=16):
    """The first N hex digits of the SHA-256 of OBJ's canonical text."""
    return hashlib.sha256(canon(obj).encode()).hexdigest()[:n]
