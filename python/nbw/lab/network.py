"""The nodes' processes and their network: a two-node cable (a socketpair) or a UDP
hub (a learning switch in this process's selector loop)."""
import ctypes
import os
import selectors
import signal
import socket
import subprocess
import sys

from .base import HUB_WARNING, NODE_NAMES


PR_SET_PDEATHSIG = 1
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_libc = ctypes.CDLL(None, use_errno=True)


def child_setup(parent):
    """In the forked child: own process group, SIGKILL when vlab dies."""
    os.setpgid(0, 0)
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # vlab died before prctl took effect
        os._exit(1)
    signal.pthread_sigmask(signal.SIG_SETMASK, [])


class Node:
    """One qemu node: its process, console and share directory."""

    def __init__(self, lab, index):
        self.lab = lab
        self.index = index
        self.name = NODE_NAMES[index]
        self.share = os.path.join(lab.workdir, self.name)
        self.prefix = b"" if index == 0 else ("[%s] " % self.name).encode()
        self.proc = None
        self.console = None
        self.partial = b""
        self.rc = None

    def launch(self, args, fds):
        parent = os.getpid()
        self.console = open(os.path.join(self.lab.workdir, self.name + ".console"), "wb")
        # No interrupt between fork and recording the child (it would be missed
        # by the teardown); the child unblocks them again.
        old = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
        try:
            self.proc = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                         stderr=subprocess.STDOUT, pass_fds=fds,
                                         preexec_fn=lambda: child_setup(parent))
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
        os.set_blocking(self.proc.stdout.fileno(), False)
        self.lab.sel.register(self.proc.stdout, selectors.EVENT_READ, self.on_console)

    def on_console(self, f):
        try:
            data = os.read(f.fileno(), 65536)
        except BlockingIOError:
            return
        if not data:
            self.lab.sel.unregister(f)
            self.flush_console()
            return
        self.console.write(data)
        self.console.flush()
        lines = (self.partial + data).split(b"\n")
        self.partial = lines.pop()
        for line in lines:
            self.emit(line)

    def emit(self, line):
        line = line.rstrip(b"\r")
        if HUB_WARNING.search(line.decode("utf-8", "replace")) or not self.lab.stdout_ok:
            return
        try:
            sys.stdout.buffer.write(self.prefix + line + b"\n")
            sys.stdout.buffer.flush()
        except OSError:
            # A reader that went away (vlab ... | head) must not stop the run
            # or its teardown; the console files keep everything.
            self.lab.stdout_ok = False

    def flush_console(self):
        if self.partial:
            self.emit(self.partial)
            self.partial = b""

    def file(self, name):
        return os.path.join(self.share, name)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def touch(self, name):
        open(self.file(name), "w").close()

    def read_rc(self):
        try:
            with open(self.file("rc")) as f:
                return int(f.read().strip())
        except (OSError, ValueError):
            return None

    def gone(self):
        """Why the node went away, after its console has drained."""
        self.lab.drain(self)
        try:
            with open(self.file("error")) as f:
                why = f.read().strip()
        except OSError:
            why = ""
        return "node %s: %s" % (self.name, why or "qemu exited unexpectedly (see the console above)")

    def stop(self, sig):
        if self.alive():
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                pass


class Cable:
    """Two nodes' NIC k joined directly: the two ends of a stream socketpair."""

    def __init__(self, sel, nodes, kind="stream"):
        self.kind = kind  # qemu's stream netdev, or its older socket netdev
        self.node_socks = list(socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM))
        self.inodes = [os.fstat(ns.fileno()).st_ino for ns in self.node_socks]

    def netdev(self, k, node):
        fd = self.node_socks[node].fileno()
        if self.kind == "socket":
            return "socket,id=n%d,fd=%d" % (k, fd)
        return "stream,id=n%d,server=off,addr.type=fd,addr.str=%d" % (k, fd)

    def queues(self):
        """Each end's bytes waiting to be read and to be sent, as ss(8) shows them."""
        try:
            out = subprocess.run(["ss", "-xn"], capture_output=True, text=True, timeout=5).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        seen = {}
        for line in out.splitlines():
            f = line.split()
            if len(f) >= 6 and f[5].isdigit() and int(f[5]) in self.inodes:
                seen[int(f[5])] = "recv-q %s send-q %s" % (f[2], f[3])
        return ", ".join("%s %s" % (NODE_NAMES[i], seen.get(ino, "?"))
                         for i, ino in enumerate(self.inodes))

    def close_node_ends(self):
        for ns in self.node_socks:
            ns.close()

    def close(self):
        pass


# Socket buffers of the hub and the nodes' UDP sockets: bursts of a busy node
# wait here instead of being dropped (the kernel caps SO_RCVBUF at rmem_max).
HUB_BUFFER = 4 << 20


def big_buffers(sock):
    for opt in (socket.SO_RCVBUF, socket.SO_SNDBUF):
        try:
            sock.setsockopt(socket.SOL_SOCKET, opt, HUB_BUFFER)
        except OSError:
            pass


class Hub:
    """One L2 segment of 3+ nodes, a learning switch: a frame to a MAC address
    seen as a source goes to that node only; broadcast, multicast and unknown
    destinations go to every other node. Relaying only where a frame is going
    halves the load of a busy three-node segment, and with it the drops that
    make Soft-RoCE retransmit."""

    def __init__(self, sel, nodes):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setblocking(False)
        big_buffers(self.sock)
        self.node_socks = []
        for _ in range(nodes):
            ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            ns.bind(("127.0.0.1", 0))
            ns.connect(self.sock.getsockname())
            big_buffers(ns)
            self.node_socks.append(ns)
        self.ports = [ns.getsockname() for ns in self.node_socks]
        self.where = {}  # MAC address (6 bytes) -> the node port it was seen from
        sel.register(self.sock, selectors.EVENT_READ, self.on_datagram)

    def netdev(self, k, node):
        return "dgram,id=n%d,local.type=fd,local.str=%d" % (k, self.node_socks[node].fileno())

    def on_datagram(self, sock):
        for _ in range(64):  # a bounded batch, then the other events
            try:
                data, src = sock.recvfrom(65536)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                continue  # e.g. ICMP unreachable of a node that is gone
            if src not in self.ports or len(data) < 14:
                continue  # not one of this run's qemu processes, or no frame
            if not data[6] & 1:
                self.where[data[6:12]] = src
            dst = None if data[0] & 1 else self.where.get(data[0:6])
            for dst in [dst] if dst else self.ports:
                if dst != src:
                    try:
                        sock.sendto(data, dst)
                    except OSError:
                        pass  # a full or gone peer drops the frame, like a switch

    def close_node_ends(self):
        for ns in self.node_socks:
            ns.close()

    def close(self):
        self.sock.close()
