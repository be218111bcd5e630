"""A document's provenance: the block every tool of the suite writes ("provenance": host,
run id, command line, kernel, suite version and build, the window's UTC start and end,
the drives' and RDMA ports' identity), read as untrusted input. A document without the
block (made before it existed) reads as None; a block that breaks the contract is an
error with its reason, never half read."""
import datetime
import math
import re

from ..jsonutil import dicts, is_number

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
# A host name as gethostname() gives it: letters, digits, dots, hyphens, underscores.
HOST = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,254}$")
MAX_TEXT = 4200  # the tools' command line is cut at 4096 bytes
ISO_SLACK = 1.0  # seconds the ISO 8601 and the Unix form of a time may differ by
DRIVE_KEYS = ("path", "controller", "kind", "model", "serial", "firmware")
PORT_KEYS = ("device", "firmware", "board_id")


class Provenance:
    """Where and when one document was made (the block's values, checked)."""

    def __init__(self, block):
        self.block = block
        self.host = block["host"]
        self.run_id = block.get("run_id")
        self.start = block["start_unix_s"]
        self.end = block["end_unix_s"]
        self.measured = block.get("window_measured") is True
        self.kernel = block.get("kernel")
        self.command = block.get("command")
        self.version = block.get("suite_version")
        self.build = block.get("suite_build")
        self.drives = dicts(block.get("drives"))
        self.ports = dicts(block.get("rdma_ports"))

    def brief(self):
        """What the record keeps of it, beside the document itself."""
        return {"host": self.host, "run_id": self.run_id, "start": utc(self.start),
                "end": utc(self.end), "window_measured": self.measured,
                "kernel": self.kernel, "suite_build": self.build}


def utc(t):
    """Unix seconds as the record's UTC text (YYYY-MM-DDTHH:MM:SSZ)."""
    return datetime.datetime.fromtimestamp(t, datetime.timezone.utc).strftime(
        "%Y-%m-%dT%H:%M:%SZ")


def iso_seconds(text):
    """Unix seconds of the tools' ISO 8601 UTC text (milliseconds optional), or None."""
    if not isinstance(text, str):
        return None
    for fmt in ("%Y-%m-%dT%H:%M:%S.%fZ", "%Y-%m-%dT%H:%M:%SZ"):
        try:
            return datetime.datetime.strptime(text, fmt).replace(
                tzinfo=datetime.timezone.utc).timestamp()
        except ValueError:
            continue
    return None


def text_or_null(block, key, limit=MAX_TEXT):
    v = block.get(key)
    if v is not None and (not isinstance(v, str) or len(v) > limit):
        raise ValueError("provenance.%s: a string of at most %d characters or null"
                         % (key, limit))
    return v


def check_time(block, key):
    t = block.get(key + "_unix_s")
    if not is_number(t) or not math.isfinite(t) or not 0 <= t < 253402300800:
        raise ValueError("provenance.%s_unix_s: Unix seconds" % key)
    iso = iso_seconds(block.get(key))
    if iso is None or abs(iso - t) > ISO_SLACK:
        raise ValueError("provenance.%s: %r does not say the same time as %s_unix_s %s"
                         % (key, block.get(key), key, t))
    return t


def check_entries(block, key, names, max_n):
    v = block.get(key)
    if not isinstance(v, list) or len(v) > max_n:
        raise ValueError("provenance.%s: a list of at most %d entries" % (key, max_n))
    for i, e in enumerate(v):
        if not isinstance(e, dict):
            raise ValueError("provenance.%s[%d]: an object" % (key, i))
        for k in names:
            if e.get(k) is not None and (not isinstance(e[k], str) or len(e[k]) > 512):
                raise ValueError("provenance.%s[%d].%s: a string or null" % (key, i, k))


def read(doc):
    """The document's provenance (a Provenance), None when it has no block, or
    ValueError naming the first thing that breaks the contract."""
    block = doc.get("provenance") if isinstance(doc, dict) else None
    if block is None:
        return None
    if not isinstance(block, dict):
        raise ValueError("provenance: not an object")
    fmt = block.get("format")
    if not isinstance(fmt, int) or isinstance(fmt, bool) or fmt < 1:
        raise ValueError("provenance.format: a whole number from 1")
    host = block.get("host")  # null: the tool's host had no name
    if host is not None and (not isinstance(host, str) or not HOST.match(host)):
        raise ValueError("provenance.host: %r is not a host name" % (host,))
    run_id = block.get("run_id")
    if run_id is not None and (not isinstance(run_id, str) or not UUID.match(run_id)):
        raise ValueError("provenance.run_id: %r is not a UUID" % (run_id,))
    for k in ("kernel", "command", "suite_version", "suite_build"):
        text_or_null(block, k)
    start, end = check_time(block, "start"), check_time(block, "end")
    if end < start:
        raise ValueError("provenance: the window ends (%s) before it starts (%s)"
                         % (block.get("end"), block.get("start")))
    check_entries(block, "drives", DRIVE_KEYS, 64)
    check_entries(block, "rdma_ports", PORT_KEYS, 32)
    return Provenance(block)


def short(host):
    """A host name's first label, lower case ("gpu-node-017" of gpu-node-017.lab)."""
    return str(host).split(".")[0].lower()


ADDRESS = re.compile(r"^(localhost|[0-9]+(\.[0-9]+){3}|\[?[0-9a-fA-F]*:[0-9a-fA-F:]*\]?)$")


def same_node(name, host):
    """Whether a node named in a file name may be the host a provenance names: the same
    name, the same short name, or an address (which names no host)."""
    return name == host or short(name) == short(host) or bool(ADDRESS.match(name))
