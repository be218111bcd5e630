"""The run: the nodes, the segments and the selector loop (Lab), the work directory,
the result and vlab run."""
import glob
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from .base import EX_LAB, EX_TIMEOUT, EX_USAGE, Exit, err
from .kernel import check, find_kernel
from .network import Cable, Hub, Node, STOP_SIGNALS
from .options import parse_run_args, validate
from .qemu import build_initrd, direct_io_ok, prepare_node, qemu_args
from .watch import LinkWatch


class Lab:
    """The run: nodes, segments (cables or hubs) and the selector loop."""

    def __init__(self, s, workdir):
        self.s = s
        self.workdir = workdir
        self.sel = selectors.DefaultSelector()
        self.nodes = [Node(self, i) for i in range(s.nodes)]
        self.segments = []
        self.stdout_ok = True
        self.watch = LinkWatch(self)

    def cables(self):
        return [h for h in self.segments if isinstance(h, Cable)]

    def pump(self, seconds):
        """Serve consoles and hubs for up to `seconds`."""
        end = time.monotonic() + seconds
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return
            for key, _ in self.sel.select(left):
                key.data(key.fileobj)

    def drain(self, node, limit=2.0):
        """Read what is left of a node's console (bounded)."""
        end = time.monotonic() + limit
        while time.monotonic() < end and self.registered(node.proc.stdout):
            self.pump(0.05)

    def registered(self, f):
        try:
            self.sel.get_key(f)
            return True
        except (KeyError, ValueError):
            return False

    def start(self):
        s = self.s
        if s.nodes > 1:
            if s.nodes == 2 and s.cable != "hub":
                self.segments = [Cable(self.sel, s.nodes, s.cable) for _ in range(s.nics)]
            else:
                self.segments = [Hub(self.sel, s.nodes) for _ in range(s.nics)]
        images = os.path.join(self.workdir, "images")
        cache = "none" if direct_io_ok(images) else "writeback"
        for node in self.nodes:
            fds = [h.node_socks[node.index].fileno() for h in self.segments]
            netdevs = [h.netdev(k, node.index) for k, h in enumerate(self.segments)]
            node.launch(qemu_args(s, self.workdir, node.index, netdevs, cache), fds)
        # qemu holds its own copies of the node ends.
        for h in self.segments:
            h.close_node_ends()

    def wait_until(self, done, deadline, what, watch=False):
        """Pump until done() is true; a node dying or the deadline ends it."""
        while not done():
            for node in self.nodes:
                if not node.alive() and not self.finished(node):
                    raise Exit(EX_LAB, node.gone())
            if time.monotonic() >= deadline:
                raise Exit(EX_TIMEOUT, what)
            self.pump(0.2)
            if watch:
                self.watch.poll()

    def finished(self, node):
        if node.rc is None and self.s.scripts[node.index]:
            node.rc = node.read_rc()
        return node.rc is not None

    def supervise(self):
        """Boot, start the scripts together, collect their exit statuses."""
        s = self.s
        t0 = time.monotonic()
        self.wait_until(lambda: all(os.path.exists(n.file("ready")) for n in self.nodes),
                        t0 + s.boot_timeout,
                        "boot timeout: node(s) not up after %ds" % s.boot_timeout)
        boot = time.monotonic() - t0
        for node in self.nodes:
            node.touch("go")
        # The guest enforces the script timeout itself; this is the backstop.
        scripted = [n for n in self.nodes if s.scripts[n.index]]
        self.wait_until(lambda: all(self.finished(n) for n in scripted),
                        time.monotonic() + s.timeout + 20,
                        "script timeout: no exit status after %ds" % s.timeout, watch=True)
        # Let the guests power off (flushes the consoles), then stop the rest.
        for node in self.nodes:
            if not s.scripts[node.index]:
                node.touch("stop")
        end = time.monotonic() + 10
        while any(n.alive() for n in self.nodes) and time.monotonic() < end:
            self.pump(0.1)
        return boot

    def stop_all(self):
        """Stop every qemu of this run: TERM to its process group, then KILL."""
        live = [n for n in self.nodes if n.alive()]
        for n in live:
            n.stop(signal.SIGTERM)
        end = time.monotonic() + 3
        while any(n.alive() for n in live) and time.monotonic() < end:
            self.pump(0.1)
        for n in self.nodes:
            if n.proc is not None:
                n.stop(signal.SIGKILL)
                try:
                    n.proc.wait(5)
                except subprocess.TimeoutExpired:
                    err("node %s: qemu (pid %d) does not die" % (n.name, n.proc.pid))
        for n in self.nodes:
            if n.proc is not None:
                self.drain(n, 0.5)
                n.flush_console()
                n.console.close()
        for h in self.segments:
            h.close()
        self.watch.close()


# ---------------------------------------------------------------- run

def on_signal(signum, frame):
    raise Exit(128 + signum)


def kernel_of(s):
    kernel = s.kernel or find_kernel()
    if not kernel or not os.access(kernel, os.R_OK):
        raise Exit(EX_LAB, "cannot read kernel %s" % kernel)
    kver = os.path.basename(kernel)[len("vmlinuz-"):]
    if not os.path.isdir("/lib/modules/" + kver):
        raise Exit(EX_LAB, "no /lib/modules/%s for %s" % (kver, kernel))
    s.kernel = kernel
    return kver


def make_workdir(s):
    """(workdir, owned): the given one or a private temporary directory."""
    if s.workdir:
        try:
            os.makedirs(s.workdir, exist_ok=True)
        except OSError:
            raise Exit(EX_LAB, "cannot create %s" % s.workdir)
        workdir, owned = os.path.realpath(s.workdir), False
    else:
        workdir, owned = tempfile.mkdtemp(prefix="vlab.", dir=os.environ.get("TMPDIR", "/tmp")), True
    images = os.path.join(workdir, "images")
    os.makedirs(images, exist_ok=True)
    for f in glob.glob(os.path.join(images, "*.img")) + glob.glob(os.path.join(images, "SHA256SUMS.*")):
        os.unlink(f)
    return workdir, owned


def result(s, lab, times):
    """Report the run and pick its exit status."""
    t_start, t_launch, boot = times
    nodes = [n for n in lab.nodes if s.scripts[n.index]]
    err("prepare %ds, boot %ds, total %ds, %s" % (
        t_launch - t_start, boot, time.monotonic() - t_start,
        ", ".join("node %s exit %d" % (n.name, n.rc) for n in nodes)))
    for n in nodes:
        if n.rc == EX_TIMEOUT:
            err("node %s: script killed by the timeout (%ds)" % (n.name, s.timeout))
    if nodes[0].rc != 0:
        return nodes[0].rc
    for n in nodes[1:]:
        if n.rc != 0:
            err("node %s: script failed with exit status %d" % (n.name, n.rc))
            return n.rc
    return 0


def run_lab(s, args, workdir):
    t_start = time.monotonic()
    kver = kernel_of(s)
    build_initrd(workdir, kver)
    for i in range(s.nodes):
        prepare_node(s, workdir, i, args)
    lab = Lab(s, workdir)
    t_launch = time.monotonic()
    try:
        lab.start()
        boot = lab.supervise()
    finally:
        # No signal may interrupt the teardown.
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        lab.stop_all()
    return result(s, lab, (t_start, t_launch, boot))


def cmd_run(argv, collect=None):
    """vlab run; collect(workdir), if given, runs after the lab, before cleanup."""
    o, script, args = parse_run_args(argv)
    s = validate(o, script)
    code, msg = check(s)
    if code:
        if code in (EX_LAB, EX_USAGE):
            print(msg, file=sys.stderr)
        return code
    for sig in STOP_SIGNALS:
        # Like a shell's trap: a signal ignored on entry stays ignored.
        if signal.getsignal(sig) != signal.SIG_IGN:
            signal.signal(sig, on_signal)
    workdir, owned = None, False
    try:
        workdir, owned = make_workdir(s)
        return run_lab(s, args, workdir)
    except Exit as e:
        if e.msg:
            err(e.msg)
        return e.code
    except OSError as e:
        err("lab failed: %s" % e)
        return EX_LAB
    finally:
        for sig in STOP_SIGNALS:
            signal.signal(sig, signal.SIG_IGN)
        if collect and workdir:
            collect(workdir)
        if owned and workdir:
            shutil.rmtree(workdir, ignore_errors=True)
