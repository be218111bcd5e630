"""run's command line (argparse) and the lab's settings (a dataclass)."""
import argparse
import os
import re
import sys
from dataclasses import dataclass, field

from .base import MAX_NICS, NODE_NAMES, PROG, SRCDIR, USAGE, usage_err


def parse_size(s):
    """'64M' -> bytes (K/M/G = powers of 1024), None if malformed."""
    m = re.fullmatch(r"([0-9]+)([KkMmGg]?)", s)
    if not m:
        return None
    return int(m.group(1)) << {"": 0, "k": 10, "m": 20, "g": 30}[m.group(2).lower()]


def link_props(link):
    """'8:4' -> 'x-speed=8,x-width=4' (root-port properties), None if bad."""
    speed, _, width = link.partition(":")
    speed = {"2.5": "2_5", "2_5": "2_5", "5": "5", "8": "8", "16": "16"}.get(speed)
    if not speed or width not in ("1", "2", "4", "8", "12", "16", "32"):
        return None
    return "x-speed=%s,x-width=%s" % (speed, width)


def link_list(spec, count):
    """Entry i of a comma list for i < count, the last entry repeating."""
    entries = spec.split(",")
    return [entries[min(i, len(entries) - 1)] for i in range(count)]


# Options of run that take a value: (default, environment variable naming the default).
VALUE_OPTS = {
    "--nodes": "1", "--nics": "1", "--drives": "2", "--drive-size": "64M",
    "--links": "8:4", "--nic-link": "16:16", "--lbs": "512",
    "--on-b": "", "--on-c": "", "--on-d": "", "--builddir": "", "--workdir": "",
    "--timeout": "300", "--boot-timeout": "180", "--mem": "1024", "--smp": "", "--kernel": "",
}
VALUE_ENV = {"--builddir": "VLAB_BUILDDIR", "--kernel": "VLAB_KERNEL"}
FLAG_OPTS = ("--switch", "--verbose")
# Options of run that may be given more than once: a part of a node slowed (or made to
# warn) on purpose, NODE:INDEX:VALUE (the value's unit in the message, and its most).
SLOW_OPTS = {"--slow-drive": ("drive", "--drives", "MBPS", "MB/s (10^6 bytes)", 999999),
             "--slow-nic": ("NIC", "--nics", "MBIT", "Mbit/s (10^6 bits)", 999999),
             "--smart-warning": ("drive", "--drives", "BITS",
                                 "critical warning bits (1 spare, 2 temperature, "
                                 "4 reliability, 8 read-only, 16 volatile backup)", 31)}


@dataclass
class Settings:
    """The lab's settings: from run's options (validate) and from the host's environment
    (host_settings: how qemu is run and the nodes are joined)."""
    script: str = ""
    switch: bool = False
    verbose: bool = False
    nodes: int = 1
    scripts: list = field(default_factory=list)
    nics: int = 1
    drives: int = 2
    lbs: int = 512
    drive_size: int = 64 << 20
    links: list = field(default_factory=list)
    nic_links: list = field(default_factory=list)
    timeout: int = 300
    boot_timeout: int = 180
    mem: int = 1024
    smp: int = 1
    kernel: str = ""
    builddir: str = ""
    workdir: str = ""
    # $VLAB_QEMU: the qemu binary.
    qemu: str = "qemu-system-x86_64"
    # $VLAB_CPU: the guests' CPU model (qemu -cpu).
    cpu: str = "max"
    # $VLAB_APPEND: extra guest kernel arguments, after the lab's own (to compare
    # settings side by side).
    append: str = ""
    # $VLAB_SPARE_CPU=0: a one-vCPU node without room for a second (see smp_arg), to
    # compare.
    spare_cpu: bool = True
    # $VLAB_CABLE: two nodes' cable (CABLES).
    cable: str = "stream"
    # $VLAB_WATCH_LOG=FILE: every look of the link watch, one line per ring, appended.
    watch_log: str = ""
    # --slow-drive: {(node index, drive index): MB/s} (qemu's block throttling);
    # --slow-nic: {(node index, NIC index): Mbit/s} (a tbf shaper set by the guest).
    slow_drives: dict = field(default_factory=dict)
    slow_nics: dict = field(default_factory=dict)
    # --smart-warning: {(node index, drive index): bits} (qemu's smart_critical_warning:
    # the drive's health log reports them from boot).
    smart_warnings: dict = field(default_factory=dict)


def host_settings(environ):
    """The settings the host's environment gives (read when a command runs, never at
    import)."""
    return {"qemu": environ.get("VLAB_QEMU", "qemu-system-x86_64"),
            "cpu": environ.get("VLAB_CPU", "max"),
            "append": environ.get("VLAB_APPEND", ""),
            "spare_cpu": environ.get("VLAB_SPARE_CPU", "1") != "0",
            "cable": environ.get("VLAB_CABLE", "stream"),
            "watch_log": environ.get("VLAB_WATCH_LOG", "")}


def positive(name, value, limit=None):
    if not re.fullmatch(r"[1-9][0-9]*", value) or (limit and int(value) > limit):
        usage_err("%s: %s" % (name, "1..%d" % limit if limit else "a positive integer"))
    return int(value)


class RunParser(argparse.ArgumentParser):
    """run's options before SCRIPT; errors as one line and exit status 2 (usage_err)."""

    def error(self, message):
        m = re.match(r"argument (--[\w-]+).*: expected one argument$", message)
        if m:
            usage_err("option %s needs a value" % m.group(1))
        m = re.match(r"unrecognized arguments: (\S+)", message)
        if m:
            usage_err("unknown option %s" % m.group(1))
        usage_err(message)


def run_parser(environ):
    p = RunParser(prog=PROG + " run", add_help=False, allow_abbrev=False)
    for opt, default in VALUE_OPTS.items():
        p.add_argument(opt, default=environ.get(VALUE_ENV.get(opt, ""), default))
    for opt in FLAG_OPTS:
        p.add_argument(opt, action="store_true")
    for opt in SLOW_OPTS:
        p.add_argument(opt, action="append", default=[])
    p.add_argument("-h", "--help", action="store_true")
    p.add_argument("script", nargs="?")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p


def parse_run_args(argv, environ=os.environ):
    """(options dict by option name, script, script args) from run's command line:
    options, then SCRIPT and its arguments (options of SCRIPT's own among them)."""
    ns = run_parser(environ).parse_args(argv)
    if ns.help:
        sys.stdout.write(USAGE)
        sys.exit(0)
    if not ns.script:
        usage_err("run: SCRIPT missing")
    o = {opt: getattr(ns, opt[2:].replace("-", "_"))
         for opt in list(VALUE_OPTS) + list(FLAG_OPTS) + list(SLOW_OPTS)}
    args = ns.args
    # A "--" right after SCRIPT is SCRIPT's own argument (argparse drops it there).
    k = len(argv) - len(args)
    if k >= 2 and argv[k - 1] == "--" and argv[k - 2] == ns.script and "--" not in argv[:k - 2]:
        args = ["--"] + args
    return o, ns.script, args


def validate(o, script, environ=os.environ):
    """Check and convert the options; returns the lab's Settings."""
    s = Settings(script=script, switch=o["--switch"], verbose=o["--verbose"],
                 **host_settings(environ))
    nodes = positive("--nodes", o["--nodes"], len(NODE_NAMES))
    scripts = [script, o["--on-b"], o["--on-c"], o["--on-d"]]
    for i, sc in enumerate(scripts):
        if sc:
            nodes = max(nodes, i + 1)
    s.nodes = nodes
    s.scripts = scripts[:nodes]
    s.nics = positive("--nics", o["--nics"], MAX_NICS)
    s.drives = positive("--drives", o["--drives"], 16)
    if o["--lbs"] not in ("512", "4096"):
        usage_err("--lbs: 512 or 4096")
    s.lbs = int(o["--lbs"])
    size = parse_size(o["--drive-size"])
    if not size or size < 1 << 20 or size % (1 << 20):
        usage_err("--drive-size: a multiple of 1M")
    s.drive_size = size
    for link in o["--links"].split(",") + o["--nic-link"].split(","):
        if not link_props(link):
            usage_err("bad link '%s' (GT/s:width, GT/s in 2.5 5 8 16)" % link)
    s.links = link_list(o["--links"], s.drives)
    s.nic_links = link_list(o["--nic-link"], s.nics)
    s.timeout = positive("--timeout", o["--timeout"])
    s.boot_timeout = positive("--boot-timeout", o["--boot-timeout"])
    s.mem = positive("--mem", o["--mem"])
    s.smp = positive("--smp", o["--smp"] or ("2" if nodes == 1 else "1"), 99)
    for sc in s.scripts:
        if sc and not os.access(sc, os.R_OK):
            usage_err("cannot read %s" % sc)
    s.kernel = o["--kernel"]
    s.builddir = o["--builddir"] or SRCDIR
    if not os.path.isdir(s.builddir):
        usage_err("--builddir: no such directory")
    s.builddir = os.path.realpath(s.builddir)
    s.workdir = o["--workdir"]
    s.slow_drives = slow_parts("--slow-drive", o.get("--slow-drive", []), nodes, s.drives)
    s.slow_nics = slow_parts("--slow-nic", o.get("--slow-nic", []), nodes, s.nics)
    s.smart_warnings = slow_parts("--smart-warning", o.get("--smart-warning", []), nodes,
                                  s.drives)
    return s


def slow_parts(opt, specs, nodes, count):
    """--slow-drive/--slow-nic/--smart-warning NODE:INDEX:VALUE, each: {(node index,
    index): value}; a usage error names the value and what is wrong with it."""
    what, count_opt, metavar, unit, most = SLOW_OPTS[opt]
    out = {}
    for spec in specs:
        m = re.fullmatch(r"([^:]*):([^:]*):([^:]*)", spec)
        if not m:
            usage_err("%s %s: NODE:INDEX:%s" % (opt, spec, metavar))
        node, index, rate = m.groups()
        if node not in NODE_NAMES[:nodes]:
            usage_err("%s %s: no node '%s' in this lab (%s)" % (
                opt, spec, node, ", ".join(NODE_NAMES[:nodes])))
        if not re.fullmatch(r"[0-9]+", index) or int(index) >= count:
            usage_err("%s %s: no %s '%s' (%s %d: 0..%d)" % (
                opt, spec, what, index, count_opt, count, count - 1))
        if not re.fullmatch(r"[1-9][0-9]{0,5}", rate) or int(rate) > most:
            usage_err("%s %s: %s '%s': a whole number of %s, 1 to %d" % (
                opt, spec, "rate" if most == 999999 else "value", rate, unit, most))
        key = (NODE_NAMES.index(node), int(index))
        if key in out:
            usage_err("%s %s: %s %s of node %s is %s twice" % (
                opt, spec, what, index, node, "slowed" if most == 999999 else "given"))
        out[key] = int(rate)
    return out
