"""Values out of the tools' JSON documents: one set of helpers for the whole package.

A document read from a file may lack a key, hold null or hold a string where a number
belongs; these helpers answer None (or "-" in text) instead of raising, so one broken
document never ends a summary.
"""
import hashlib
import json
import math
import re
import sys


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
    """v itself (int stays int) if it is a finite number, else None: NaN, infinity (a
    node's 1e999) and an integer past a float's range are refused here, once for every
    reader, so that no count formatted with %d or summed can crash a report."""
    return v if as_float(v) is not None else None


def as_float(v):
    """v as a float if it is a finite number, else None (NaN and infinity too, and an
    integer past a float's range)."""
    if not is_number(v):
        return None
    try:
        v = float(v)
    except OverflowError:
        return None
    return v if math.isfinite(v) else None


def dicts(v):
    """The objects of a JSON list (anything else in it, or a non-list, ignored)."""
    return [x for x in v if isinstance(x, dict)] if isinstance(v, list) else []


def obj(v):
    """V if it is a JSON object, else {} (a number or a list where an object belongs)."""
    return v if isinstance(v, dict) else {}


def gb_text(v):
    """A figure (GB/s) for text: two decimals, or two significant digits under 0.1 (an
    emulated fabric's 0.0042 GB/s is never "0.00"); "-" for anything not a number."""
    if not is_number(v):
        return "-"
    if v == 0 or abs(v) >= 0.1 or not math.isfinite(v):
        return "%.2f" % v
    return "%.*f" % (min(9, 1 - int(math.floor(math.log10(abs(v))))), v)


def number_text(v, fmt="%.3f"):
    """A number in FMT for a text table, "-" for anything that is not a number."""
    return fmt % v if is_number(v) else "-"


def read_json(path):
    """The document in PATH, or None if it cannot be read, is not JSON or is past the
    bounds of loads()."""
    return load_why(path)[0]


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


# --- untrusted documents: bounded once for every reader ----------------------------

MAX_DOC = 16 << 20  # a tool's document is far smaller: a larger file is not one
MAX_DEPTH = 64  # the suite's documents nest a dozen levels; deeper is not one of them


def _int(text):
    """A JSON integer: an int, or (past any float's range) a float infinity that every
    number check here refuses, never an int too long to convert."""
    return int(text) if len(text) <= 300 else float("inf")


def _frames():
    f, n = sys._getframe(), 0
    while f is not None:
        n, f = n + 1, f.f_back
    return n


def shallow(fn, *args, max_depth=MAX_DEPTH, **kw):
    """fn(*args, **kw) (json's parser or encoder, both of which count their nesting against
    the interpreter's recursion limit) with about max_depth levels of nesting allowed
    (C calls count too: a little slack): RecursionError past it, at once, whatever the
    document's depth; deeper() then holds the bound exactly."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(_frames() + max_depth + 100)
    try:
        return fn(*args, **kw)
    finally:
        sys.setrecursionlimit(old)


def deeper(v, max_depth=MAX_DEPTH):
    """True when the arrays and objects of V nest deeper than max_depth ([] is one
    level), level by level, without recursion."""
    level, depth = ([v] if isinstance(v, (dict, list)) else []), 0
    while level:
        depth += 1
        if depth > max_depth:
            return True
        nxt = []
        for x in level:
            nxt.extend(y for y in (x.values() if isinstance(x, dict) else x)
                       if isinstance(y, (dict, list)))
        level = nxt
    return False


class TooDeep(ValueError):
    """A document nested past the bound parse() was given."""


def parse(text, max_depth=MAX_DEPTH):
    """The document in TEXT (str), parsed once: json's own ValueError (its msg and pos
    kept, to tell a document cut short) when it is not JSON, TooDeep when it nests
    deeper than max_depth; integers too long for a float read as infinity."""
    try:
        doc = shallow(json.loads, text, max_depth=max_depth, parse_int=_int)
    except RecursionError:
        raise TooDeep("nested deeper than %d levels" % max_depth) from None
    if text.count("[") + text.count("{") > max_depth and deeper(doc, max_depth):
        raise TooDeep("nested deeper than %d levels" % max_depth)
    return doc


def loads(data, max_depth=MAX_DEPTH):
    """The document in DATA (str or UTF-8 bytes); ValueError with the reason when it is
    not JSON, nests deeper than max_depth or is larger than MAX_DOC. Integers too long
    for a float read as infinity (as_float and is_finite refuse it)."""
    if isinstance(data, (bytes, bytearray)):
        if len(data) > MAX_DOC:
            raise ValueError("larger than %d MiB" % (MAX_DOC >> 20))
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError("not UTF-8") from None
    if len(data) > MAX_DOC:
        raise ValueError("larger than %d MiB" % (MAX_DOC >> 20))
    try:
        return parse(data, max_depth)
    except TooDeep:
        raise
    except ValueError:
        raise ValueError("not JSON") from None


def load_why(path, max_bytes=MAX_DOC):
    """(document, None), or (None, why: "missing", "larger than N MiB", "not JSON",
    "nested deeper than N levels", an OS error)."""
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except FileNotFoundError:
        return None, "missing"
    except OSError as e:
        return None, e.strerror or "unreadable"
    if len(data) > max_bytes:
        return None, "larger than %d MiB" % (max_bytes >> 20)
    try:
        return loads(data), None
    except ValueError as e:
        return None, str(e)


def unstorable(doc):
    """Why DOC cannot be written as UTF-8 JSON and read back (a lone surrogate, a value
    JSON has no word for, nesting past MAX_DEPTH), or None."""
    try:
        if deeper(doc):
            return "nested deeper than %d levels" % MAX_DEPTH
        shallow(json.dumps, doc, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return "text that cannot be stored (a lone surrogate)"
    except RecursionError:
        return "nested deeper than %d levels" % MAX_DEPTH
    except (TypeError, ValueError) as e:
        return "not a JSON document (%s)" % str(e)[:80]
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")


def without_surrogates(v):
    """V (a document) with every lone surrogate in its strings and keys written out as
    \\uXXXX text: what JSON can hold (its \\u escapes) but UTF-8 cannot store."""
    if isinstance(v, str):
        return _SURROGATE.sub(_escape, v) if _SURROGATE.search(v) else v
    if isinstance(v, dict):
        return {without_surrogates(k) if isinstance(k, str) else k: without_surrogates(x)
                for k, x in v.items()}
    if isinstance(v, list):
        return [without_surrogates(x) for x in v]
    return v


# --- text for a terminal ----------------------------------------------------------

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                      "\ud800-\udfff]")


def _escape(m):
    c = ord(m.group(0))
    return "\\x%02x" % c if c < 0x100 else "\\u%04x" % c


def printable(s):
    """S for a terminal or a text report: every control character (C0, DEL, C1, line
    and paragraph separators, bidirectional overrides, lone surrogates) as \\xNN or
    \\uNNNN, so that a name out of a document never moves a cursor or forges a line."""
    return _CONTROL.sub(_escape, s if isinstance(s, str) else str(s))


def printable_all(v):
    """V (a document) with every string in it, keys too, made printable; for text
    renderers that format its values."""
    if isinstance(v, str):
        return printable(v)
    if isinstance(v, dict):
        return {printable(k) if isinstance(k, str) else k: printable_all(x)
                for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return type(v)(printable_all(x) for x in v)
    return v
