"""The link watch: each node's virtio-net rings, read over QMP, and a transmit ring
qemu takes no frame from, said with its numbers."""
import json
import os
import socket
import time

from .base import err


#
# A link that stops (docs/investigations.md, "Soft-RoCE stalls, found and removed": how
# this watch caught qemu 7.2 waiting for a kick a one-vCPU guest never sent) is visible
# from here: every WATCH_EVERY
# s vlab asks each node's qemu (QMP) how far it has taken frames from the
# guest's transmit ring and reads how far the guest has filled it (the ring's
# avail index in guest memory). A ring with frames waiting that qemu has not
# taken from for WATCH_STUCK s is said once, with the numbers, both nodes'
# receive rings and the cable's socket queues.

WATCH_EVERY = 5.0
WATCH_STUCK = 10.0
WATCH_TRIES = 6
# $VLAB_WATCH_LOG=FILE (Settings.watch_log): every look, one line per ring, appended.


def qmp_path(workdir, name):
    """The node's QMP socket, or None where the path is too long for AF_UNIX."""
    p = os.path.join(workdir, name + ".qmp")
    return p if len(p.encode()) < 100 else None


class Qmp:
    """One node's QMP socket; every reply bounded by 2 s."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(2.0)
        self.sock.connect(path)
        self.buf = b""
        self.message()  # the greeting
        self.cmd("qmp_capabilities")

    def message(self):
        while b"\n" not in self.buf:
            data = self.sock.recv(65536)
            if not data:
                raise OSError("QMP closed")
            self.buf += data
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def cmd(self, name, **args):
        self.sock.sendall(json.dumps({"execute": name, "arguments": args}).encode() + b"\n")
        while True:
            r = self.message()
            if "return" in r:
                return r["return"]
            if "error" in r:
                raise OSError(r["error"].get("desc", "QMP error"))

    def ring(self, nic, queue, scratch):
        """(posted by the guest, taken by qemu, in use, used, signalled) of a virtqueue."""
        q = self.cmd("x-query-virtio-queue-status",
                     path="/machine/peripheral/nic%d/virtio-backend" % nic, queue=queue)
        if not q["vring-avail"]:
            raise ValueError("nic%d queue %d not set up" % (nic, queue))
        self.cmd("pmemsave", val=q["vring-avail"] + 2, size=2, filename=scratch)
        with open(scratch, "rb") as f:
            posted = int.from_bytes(f.read(2), "little")
        return posted, q["last-avail-idx"], q["inuse"], q["used-idx"], q["signalled-used"]


def ring_stuck(prev, cur):
    """A transmit ring qemu took nothing from since prev while frames wait in it."""
    return (prev is not None and cur[1] == prev[1]
            and ((cur[0] - cur[1]) & 0xffff != 0 or cur[2] > 0))


class LinkWatch:
    """Looks at the nodes' transmit rings while the scripts run (see above)."""

    def __init__(self, lab):
        self.lab = lab
        self.next = time.monotonic() + WATCH_EVERY
        self.qmp = {}
        self.fails = {}  # node -> QMP failures in a row
        self.last = {}  # (node, nic) -> (ring, since when qemu took nothing)
        self.told = set()

    def rings(self, node, nic, queue):
        """The ring's numbers, or None: a qemu slow to answer (a starved or frozen
        one) is asked again at the next look, on a new connection; one whose QMP
        fails WATCH_TRIES times in a row, or answers nonsense, is not watched."""
        if self.fails.get(node.index, 0) >= WATCH_TRIES:
            return None
        try:
            if node.index not in self.qmp:
                self.qmp[node.index] = Qmp(qmp_path(self.lab.workdir, node.name))
            r = self.qmp[node.index].ring(nic, queue, os.path.join(
                self.lab.workdir, node.name + ".ring"))
            self.fails[node.index] = 0
            return r
        except (OSError, ValueError, KeyError, TypeError) as e:
            q = self.qmp.pop(node.index, None)
            if q:
                q.sock.close()
            self.fails[node.index] = self.fails.get(node.index, 0) + 1
            self.log("node %s: QMP: %s" % (node.name, e or type(e).__name__))
            return None

    def poll(self):
        now = time.monotonic()
        if now < self.next or not self.lab.cables():
            return
        self.next = now + WATCH_EVERY
        for node in self.lab.nodes:
            for nic in range(self.lab.s.nics):
                cur = self.rings(node, nic, 1)
                if cur is None:
                    continue
                self.log("%.1f node %s nic%d tx posted %d taken %d in-use %d used %d "
                         "signalled %d" % (now, node.name, nic, *cur))
                prev, since = self.last.get((node.index, nic), (None, now))
                if not ring_stuck(prev, cur):
                    since = now
                self.last[(node.index, nic)] = (cur, since)
                if now - since >= WATCH_STUCK and (node.index, nic) not in self.told:
                    self.told.add((node.index, nic))
                    self.tell(node, nic, cur, now - since)

    def log(self, line):
        if self.lab.s.watch_log:
            try:
                with open(self.lab.s.watch_log, "a") as f:
                    f.write(line + "\n")
            except OSError:
                pass

    def tell(self, node, nic, tx, secs):
        rx = []
        for other in self.lab.nodes:
            r = self.rings(other, nic, 0)
            rx.append("%s rx posted %s taken %s" % (other.name, *r[:2]) if r else other.name + " rx ?")
        err("node %s nic%d: qemu has taken no frame from the guest's transmit ring for %.0f s: "
            "guest posted %d, qemu took %d (%d in use), used %d, signalled %d; %s; cable: %s"
            % (node.name, nic, secs, *tx, "; ".join(rx), self.lab.cables()[nic].queues()))

    def close(self):
        for q in self.qmp.values():
            q.sock.close()
