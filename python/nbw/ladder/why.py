"""nbw.ladder.why: the sentences that say why the ladder's upper rungs and the user's
transfer stand where they do. Pure functions over the ladder's rungs (a list of dicts,
model.rung's keys and the extras of the rung contract: kinds "tcp", "nfs", "rsync",
"transfer"); nothing is read from a file here.

  binds       which rung binds the transfer (the slowest of the rungs it passes
              through) and that rung's shape (ssh's cipher, rsync's per-file
              protocol, a userspace copy, one stream, the drive)
  ssh_cipher  rsync over ssh capped by ssh's cipher on one core
  rsync       rsync's per-file protocol: a daemon stream against one TCP stream,
              eight streams as a share of the line
  copy        a userspace copy against the zero-copy rung, as a ratio
  from_file   disk-to-network (iperf3 -F) against the narrower of its two parts
  direction   a sender-side deficit: one direction of TCP short of the other
  retransmits a retransmit count beside a full rate is no fault
  gap         the headline: the transfer as a share of the wire

A rung that is missing is said ("... not measured: not compared"), never guessed; a
rule none of whose rungs exists (the family was not run) says nothing.
Standard library only."""
import re

from ..jsonutil import as_number, gb_text

SSH_CAPPED_PCT = 85.0      # rsync over ssh at or above this % of the cipher's one-core figure
DAEMON_BELOW_PCT = 60.0    # one daemon stream under this % of one TCP stream: the protocol
COPY_COSTS_PCT = 90.0      # a copy under this % of the zero-copy rung costs something
FILE_OWN_RUNG_PCT = 90.0   # from a file under this % of the narrower part: a rung of its own
DIRECTION_PCT = 10.0       # the two directions differing by more: one sender is short
FULL_RATE_PCT = 90.0       # % of line (or of the top TCP rung) counted as a full rate
ABOVE_PCT = 105.0          # as model.HOLDS: a figure beyond its ceiling has no percentage

SYNTHETIC = ("tcp", "fabric")  # the kinds whose top figure is "the wire"


def gb(r):
    return as_number((r or {}).get("measured_gb_per_s"))


def named(rungs, name):
    """The first rung called NAME (the upper rungs are the source's: one each)."""
    return next((r for r in rungs if r.get("name") == name), None)


def streams_of(name):
    m = re.search(r"\(([0-9]+) streams?\)$", name or "")
    return int(m.group(1)) if m else None


def tcp_family(rungs, prefix):
    """{streams: rung} of "PREFIX (N stream(s))"."""
    out = {}
    for r in rungs:
        name = r.get("name") or ""
        if name.startswith(prefix + " (") and streams_of(name) is not None:
            out[streams_of(name)] = r
    return out


def pct(a, b):
    a, b = as_number(a), as_number(b)
    return a / b * 100 if a is not None and b else None


def line_rate(rungs):
    """The line rate of the TCP rungs (ethtool's link speed), None when unknown."""
    for r in rungs:
        v = as_number(r.get("line_rate_gb_per_s"))
        if r.get("kind") == "tcp" and v:
            return v
    return None


def source_drive(rungs, node):
    """The source's drives together (or its one drive)."""
    drives = [r for r in rungs if r.get("kind") in ("drives", "drive") and gb(r) is not None
              and (node is None or r.get("node") == node)]
    tog = [r for r in drives if r.get("kind") == "drives"]
    return (tog or drives[-1:] or [None])[0]


# -- the transfer's path -------------------------------------------------------

def path_names(command):
    """The rungs the transfer passes through, by what its command line runs: rsync to
    a daemon (host::module, rsync://), rsync over a remote shell, ssh or scp, else a
    userspace copy over one TCP stream; the source's drive unless it reads /dev/zero."""
    cmd = command or ""
    words = re.split(r"[\s|;&()]+", cmd)
    progs = {w.rsplit("/", 1)[-1] for w in words}
    if "rsync" in progs and ("::" in cmd or "rsync://" in cmd):
        names = ["rsync daemon (1 stream)", "tcp (1 stream)"]
    elif "rsync" in progs:
        names = ["rsync over ssh", "tcp (1 stream)"]
    elif progs & {"ssh", "scp", "sftp"}:
        names = ["ssh (one stream)", "tcp (1 stream)"]
    else:
        names = ["tcp copy", "tcp (1 stream)"]
    if "/dev/zero" not in cmd:
        names.append("drive")
    return names


def path_rungs(rungs, command, node):
    """(the rungs of the path that were measured, the names of those that were not)."""
    found, missing = [], []
    for name in path_names(command):
        if name == "drive":
            r = source_drive(rungs, node)
        elif name == "tcp copy":
            copies = tcp_family(rungs, "tcp copy")
            r = copies[min(copies)] if copies else None
        elif name == "ssh (one stream)":
            ssh = named(rungs, "rsync over ssh")
            v = as_number((ssh or {}).get("ssh_cipher_gb_per_s"))
            r = {"name": name, "kind": "ssh", "measured_gb_per_s": v, "node": node} if v else None
        else:
            r = named(rungs, name)
        if r is not None and gb(r) is not None and not r.get("above_ceiling"):
            found.append(r)
        else:
            missing.append("the source's drive" if name == "drive" else name)
    return found, missing


def shape(r, rungs):
    """What the rung R is: the words after its figure."""
    name, kind = r.get("name") or "", r.get("kind")
    if name == "rsync over ssh":
        cap = ssh_capped(r)
        if cap:
            return "capped by ssh's cipher on one core (%s GB/s)" % gb_text(cap)
        return "rsync's protocol through one ssh stream"
    if name == "ssh (one stream)":
        return "ssh's cipher on one core"
    if name.startswith("rsync daemon"):
        return "rsync's per-file protocol on one stream"
    if name.startswith("tcp copy"):
        return "a userspace copy instead of sendfile"
    if kind == "tcp" and streams_of(name) == 1:
        return "one TCP stream"
    if kind in ("drive", "drives"):
        return "the source's drive%s" % ("s together" if kind == "drives" else "")
    return kind or "a rung"


# -- the rules -----------------------------------------------------------------

def ssh_capped(r):
    """The cipher's one-core figure when rsync over ssh R runs at SSH_CAPPED_PCT % of it
    or more, else None."""
    cap = as_number((r or {}).get("ssh_cipher_gb_per_s"))
    p = pct(gb(r), cap)
    return cap if p is not None and p >= SSH_CAPPED_PCT else None


def binds(rungs):
    """Which rung binds the transfer and its shape."""
    t = named(rungs, "transfer")
    if t is None:
        return []
    if gb(t) is None:
        return ["the transfer gave no figure (%s): nothing to set against the ladder" %
                (t.get("why_no_figure") or "exit status %s" % t.get("exit_status"))]
    found, missing = path_rungs(rungs, t.get("command"), t.get("node"))
    if not found:
        return ["the transfer ran at %s GB/s; the rungs it passes through (%s) were not "
                "measured: not compared" % (gb_text(gb(t)), ", ".join(missing))]
    under = min(found, key=gb)
    if pct(gb(t), gb(under)) > ABOVE_PCT:
        return ["the transfer (%s GB/s) ran above the slowest rung of the path its command "
                "suggests, %s (%s GB/s): it took another path (several streams?), not "
                "compared" % (gb_text(gb(t)), under["name"], gb_text(gb(under)))]
    s = ("the transfer (%s GB/s, %.0f%% of it) sits under %s (%s GB/s), %s" %
         (gb_text(gb(t)), pct(gb(t), gb(under)), under["name"], gb_text(gb(under)),
          shape(under, rungs)))
    if missing:
        s += "; not measured, so not compared: %s" % ", ".join(missing)
    return [s]


def ssh_cipher(rungs):
    r = named(rungs, "rsync over ssh")
    if r is None or gb(r) is None:
        return []
    cap = as_number(r.get("ssh_cipher_gb_per_s"))
    cipher = r.get("ssh_cipher") or "the default cipher"
    if not cap:
        return ["rsync over ssh carried %s GB/s; ssh's one-stream ceiling was not measured: "
                "whether its cipher caps it is not said" % gb_text(gb(r))]
    p = pct(gb(r), cap)
    if p >= SSH_CAPPED_PCT:
        return ["rsync over ssh (%s GB/s) is capped by ssh's cipher on one core: %s carried "
                "%s GB/s in one ssh stream, rsync reached %.0f%% of it" %
                (gb_text(gb(r)), cipher, gb_text(cap), p)]
    return ["rsync over ssh (%s GB/s) ran at %.0f%% of ssh's one-stream ceiling (%s, %s GB/s): "
            "the cipher does not cap it, rsync's own protocol does" %
            (gb_text(gb(r)), p, cipher, gb_text(cap))]


def rsync(rungs):
    d1, d8 = named(rungs, "rsync daemon (1 stream)"), named(rungs, "rsync daemon (8 streams)")
    if d1 is None and d8 is None:
        return []
    out = []
    tcp1 = named(rungs, "tcp (1 stream)")
    if gb(d1) is None:
        out.append("rsync daemon (1 stream) not measured: rsync's per-file protocol on one "
                   "stream not compared")
    elif gb(tcp1) is None:
        out.append("rsync daemon (1 stream) carried %s GB/s; tcp (1 stream) not measured: "
                   "not compared" % gb_text(gb(d1)))
    else:
        p = pct(gb(d1), gb(tcp1))
        verdict = ("rsync's per-file protocol caps a stream" if p < DAEMON_BELOW_PCT
                   else "the protocol costs a stream little")
        out.append("rsync daemon, one stream: %s GB/s, %.0f%% of one TCP stream (%s GB/s): %s" %
                   (gb_text(gb(d1)), p, gb_text(gb(tcp1)), verdict))
    if gb(d8) is not None:
        line = line_rate(rungs)
        top = max((r for r in rungs if r.get("kind") == "tcp" and gb(r) is not None),
                  key=gb, default=None)
        if line:
            out.append("rsync daemon, %s streams: %s GB/s, %.0f%% of line (%s GB/s)" %
                       (d8.get("streams") or 8, gb_text(gb(d8)), pct(gb(d8), line),
                        gb_text(line)))
        elif top is not None:
            out.append("rsync daemon, %s streams: %s GB/s, %.0f%% of %s (%s GB/s; no line rate "
                       "known)" % (d8.get("streams") or 8, gb_text(gb(d8)), pct(gb(d8), gb(top)),
                                   top["name"], gb_text(gb(top))))
        else:
            out.append("rsync daemon, 8 streams: %s GB/s; no line rate and no TCP rung: not "
                       "compared" % gb_text(gb(d8)))
    return out


def copy(rungs):
    copies, zero = tcp_family(rungs, "tcp copy"), tcp_family(rungs, "tcp")
    if not copies:
        return []
    n = max(copies)
    c, z = copies[n], zero.get(n)
    if gb(c) is None or gb(z) is None:
        gone = [c["name"]] if gb(c) is None else []
        gone += ["tcp (%d stream%s)" % (n, "" if n == 1 else "s")] if gb(z) is None else []
        return ["copy vs zero-copy: %s not measured: not compared" % " and ".join(gone)]
    p = pct(gb(c), gb(z))
    tail = ("the copy costs %.0f%% of the rate" % (100 - p) if p < COPY_COSTS_PCT
            else "the copy costs nothing that shows here")
    return ["a userspace copy ran at %.0f%% of the zero-copy rung (%s %s GB/s, %s %s GB/s): %s"
            % (p, c["name"], gb_text(gb(c)), z["name"], gb_text(gb(z)), tail)]


def from_file(rungs):
    f = named(rungs, "tcp from file (sendfile)")
    if f is None:
        return []
    drive, tcp1 = source_drive(rungs, f.get("node")), named(rungs, "tcp (1 stream)")
    if gb(f) is None or gb(drive) is None or gb(tcp1) is None:
        gone = [n for n, r in (("tcp from file (sendfile)", f), ("the source's drive", drive),
                               ("tcp (1 stream)", tcp1)) if gb(r) is None]
        return ["disk-to-network: %s not measured: not compared" % ", ".join(gone)]
    narrow = min(gb(drive), gb(tcp1))
    serial = 1 / (1 / gb(drive) + 1 / gb(tcp1)) if gb(drive) and gb(tcp1) else 0.0
    p = pct(gb(f), narrow)
    verdict = ("disk-to-network is its own rung, not the narrower of two" if p < FILE_OWN_RUNG_PCT
               else "as the narrower of its two parts")
    return ["tcp from file (sendfile) carried %s GB/s, %.0f%% of the narrower of %s (%s GB/s) "
            "and tcp (1 stream) (%s GB/s); one after the other they would give %s GB/s: %s" %
            (gb_text(gb(f)), p, drive["name"], gb_text(gb(drive)), gb_text(gb(tcp1)),
             gb_text(serial), verdict)]


def sender(direction):
    """The sending node of a "b -> a" direction, None when not said."""
    m = re.match(r"^\s*(\S+)\s*->", direction or "")
    return m.group(1) if m else None


def direction(rungs):
    rev = tcp_family(rungs, "tcp reverse")
    if not rev:
        return []
    n = max(rev)
    r, f = rev[n], tcp_family(rungs, "tcp").get(n)
    if gb(r) is None or gb(f) is None:
        gone = [x for x, y in ((r["name"], r), ("tcp (%d streams)" % n, f)) if gb(y) is None]
        return ["both directions: %s not measured: not compared" % " and ".join(gone)]
    lo, hi = (f, r) if gb(f) < gb(r) else (r, f)
    short = 100 - pct(gb(lo), gb(hi))
    words = "%s %s %s GB/s, %s %s %s GB/s" % (
        f["name"], f.get("direction") or "", gb_text(gb(f)), r["name"], r.get("direction") or "",
        gb_text(gb(r)))
    if short <= DIRECTION_PCT:
        return ["both directions within %.0f%% (%s): no sender-side deficit" %
                (DIRECTION_PCT, words)]
    node = sender(lo.get("direction"))
    who = ("%s sent %.0f%% below what it received" % (node, short) if node else
           "the %s direction is %.0f%% short (its sender not named)" % (lo["name"], short))
    return ["%s (%s): a sender-side deficit%s (its NIC's transmit side: pause frames, "
            "the PCIe link, the sending core)" % (who, words, " on " + node if node else "")]


def retransmits(rungs):
    out = []
    line = line_rate(rungs)
    for r in rungs:
        n = as_number(r.get("retransmits"))
        if r.get("kind") != "tcp" or not n or gb(r) is None:
            continue
        of_line, of = as_number(r.get("pct_of_line")), "line"
        if of_line is None:
            of_line = pct(gb(r), line)
        if of_line is None and as_number(r.get("pct_of_ceiling")) is not None:
            of_line, of = r["pct_of_ceiling"], "its ceiling (%s GB/s)" % gb_text(r.get("ceiling_gb_per_s"))
        if of_line is None:
            out.append("%s counted %d retransmits at %s GB/s; no line rate known: whether the "
                       "rate is full is not said" % (r["name"], n, gb_text(gb(r))))
        elif of_line >= FULL_RATE_PCT:
            out.append("%s counted %d retransmits at %.0f%% of %s: a count beside a full rate "
                       "is no fault" % (r["name"], n, of_line, of))
        else:
            out.append("%s counted %d retransmits at %.0f%% of %s: loss may hold it back (the "
                       "NIC's counters say)" % (r["name"], n, of_line, of))
    return out


def top_synthetic(rungs):
    """The highest TCP or fabric figure that holds, None when there is none."""
    syn = [r for r in rungs if r.get("kind") in SYNTHETIC and gb(r) is not None
           and not r.get("above_ceiling")]
    return max(syn, key=gb) if syn else None


def gap(rungs):
    """The headline: the transfer as a share of the top synthetic rung (the wire)."""
    t = named(rungs, "transfer")
    if t is None or gb(t) is None:
        return []
    top, line = top_synthetic(rungs), line_rate(rungs)
    if top is None and not line:
        return ["the transfer ran at %s GB/s; no TCP or fabric rung and no line rate: its gap "
                "to the wire is not said" % gb_text(gb(t))]
    if top is None:
        return ["the transfer ran at %.0f%% of the wire (%s GB/s of a %s GB/s line)" %
                (pct(gb(t), line), gb_text(gb(t)), gb_text(line))]
    s = ("the transfer ran at %.0f%% of the wire: %s GB/s against %s's %s GB/s, the top "
         "synthetic rung" % (pct(gb(t), gb(top)), gb_text(gb(t)), top["name"], gb_text(gb(top))))
    if line:
        s += " (%.1f%% of the %s GB/s line)" % (pct(gb(t), line), gb_text(line))
    return [s]


RULES = (gap, binds, ssh_cipher, rsync, copy, from_file, direction, retransmits)


def sentences(rungs):
    """Every rule's sentences, in RULES' order."""
    out = []
    for rule in RULES:
        out += rule(rungs)
    return out


def annotate(rungs):
    """Set the transfer rung's under_rung, pct_of_under, gap_pct_of_top and, the rung that
    binds it as its ceiling, ceiling_gb_per_s, pct_of_ceiling, above_ceiling,
    ceiling_rung. Returns RUNGS."""
    t = named(rungs, "transfer")
    if t is None:
        return rungs
    t.update(under_rung=None, pct_of_under=None, gap_pct_of_top=None)
    if gb(t) is None:
        return rungs
    found = path_rungs(rungs, t.get("command"), t.get("node"))[0]
    if found:
        under = min(found, key=gb)
        p = pct(gb(t), gb(under))
        t.update(under_rung=under["name"], pct_of_under=p, ceiling_gb_per_s=gb(under),
                 ceiling_rung=under["name"], above_ceiling=p > ABOVE_PCT,
                 pct_of_ceiling=None if p > ABOVE_PCT else p)
    top = top_synthetic(rungs)
    t["gap_pct_of_top"] = pct(gb(t), gb(top)) if top else None
    return rungs


def explain(rungs):
    """The ladder's why: annotate the transfer rung, then every sentence."""
    return sentences(annotate(rungs))
