#!/bin/bash
# vlab's link watch (scripts/vlab, LinkWatch): a transmit ring with frames
# waiting that qemu has taken nothing from is "stuck" (index wrap-around
# included), one that moved or is empty is not; the watch says so once, after
# WATCH_STUCK s, naming the node, the NIC, the numbers, the receive rings and the
# cable's queues, and never for a ring that moves. And against a real qemu
# (paused, no guest): the QMP plumbing reaches a virtio-net ring, and one not set
# up is not read.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
. "$(dirname "$0")/../lib.sh"

py() { vlab_py "$@" 2>&1; }

# ring_stuck(prev, cur): (posted, taken, in use, used, signalled)
check_eq "no earlier look: not stuck" False "$(py 'print(vlab.ring_stuck(None, (9, 5, 0, 5, 5)))')"
check_eq "frames waiting, nothing taken: stuck" True "$(py 'print(vlab.ring_stuck((9, 5, 0, 5, 5), (12, 5, 0, 5, 5)))')"
check_eq "frames waiting, some taken: moving" False "$(py 'print(vlab.ring_stuck((9, 5, 0, 5, 5), (12, 7, 0, 7, 7)))')"
check_eq "all taken, idle: not stuck" False "$(py 'print(vlab.ring_stuck((9, 9, 0, 9, 9), (9, 9, 0, 9, 9)))')"
check_eq "one frame held by qemu (in use): stuck" True "$(py 'print(vlab.ring_stuck((9, 9, 1, 8, 8), (9, 9, 1, 8, 8)))')"
check_eq "waiting across the 16-bit wrap: stuck" True "$(py 'print(vlab.ring_stuck((2, 65534, 0, 65534, 65534), (3, 65534, 0, 65534, 65534)))')"

# The watch over time, with a fake lab: node b's ring stops at 5 of 9 from t=0.
out=$(py '
import types
clock = [0.0]
vlab.time.monotonic = lambda: clock[0]
said = []
vlab.err = lambda line: said.append("t=%d %s" % (clock[0], line))
class Cable(vlab.Cable):
    def __init__(self): pass
    def queues(self): return "a recv-q 0 send-q 0, b recv-q 0 send-q 0"
nodes = [types.SimpleNamespace(index=i, name=n) for i, n in enumerate("ab")]
lab = types.SimpleNamespace(s=vlab.Settings(nics=1), nodes=nodes, workdir="/nonexistent",
                            segments=[Cable()], cables=lambda: lab.segments)
w = vlab.LinkWatch(lab)
def rings(node, nic, queue):
    t = int(clock[0])
    if queue == 0:
        return (300, 44, 0, 44, 44)
    if node.name == "a" or t < 5:
        return (t, t, 0, t, t)
    return (9, 5, 0, 5, 5)
w.rings = rings
for t in range(41):
    clock[0] = float(t)
    w.poll()
print("\n".join(said[:1]))
print(len(said))
')
first=$(echo "$out" | head -n1)
# Looks at t = 5, 10, 15...: stuck from the look at 5, said at the look 10 s later.
check_match "said when the ring stood for 10 s" '^t=15 node b nic0: qemu has taken no frame from the guest.s transmit ring for 10 s' "$first"
check_match "... with the numbers" 'guest posted 9, qemu took 5 \(0 in use\), used 5, signalled 5' "$first"
check_match "... both nodes' receive rings" 'a rx posted 300 taken 44; b rx posted 300 taken 44' "$first"
check_match "... and the cable" 'cable: a recv-q 0 send-q 0, b recv-q 0 send-q 0$' "$first"
check_eq "said once, not again, never of node a (moving)" 1 "$(echo "$out" | tail -n1)"

# A qemu slow to answer is asked again (new connection); WATCH_TRIES failures in a
# row and it is no longer asked; a success in between starts the count again.
check_eq "QMP retried after timeouts, given up after WATCH_TRIES in a row" "None None (1, 1, 0, 1, 1) None None None None None None None; connections 8, asked 9" "$(py '
import types, socket
made, asked = [0], [0]
script = iter(["t", "t", "ok"] + ["t"] * 20)
class Q:
    def __init__(self, path):
        made[0] += 1
        self.sock = socket.socket()
    def ring(self, nic, queue, scratch):
        asked[0] += 1
        if next(script) == "t":
            raise socket.timeout("timed out")
        return (1, 1, 0, 1, 1)
vlab.Qmp = Q
lab = types.SimpleNamespace(workdir="/nonexistent", nodes=[], s=vlab.Settings(nics=1))
w = vlab.LinkWatch(lab)
node = types.SimpleNamespace(index=1, name="b")
out = [w.rings(node, 0, 1) for _ in range(10)]
print(" ".join(str(r) for r in out) + "; connections %d, asked %d" % (made[0], asked[0]))
')"

# The cable's queues as ss(8) shows them: 1000 bytes sent by a, not read by b
# (a's send-q counts the kernel's buffer for them, not the bytes).
check_match "cable queues from ss" '^a recv-q 0 send-q [1-9][0-9]*, b recv-q 1000 send-q 0$' \
	"$(py 'c = vlab.Cable(None, 2); c.node_socks[0].send(b"x" * 1000); print(c.queues())')"

# Against a real qemu: a paused machine with a virtio-net NIC and a QMP socket.
QEMU=${VLAB_QEMU:-qemu-system-x86_64}
command -v "$QEMU" >/dev/null 2>&1 || { finish; exit; }
Q=$TMPD/q.qmp
"$QEMU" -M q35 -accel tcg -nodefaults -no-user-config -display none -monitor none -serial none \
	-S -netdev hubport,id=n0,hubid=0 -device virtio-net-pci,id=nic0,netdev=n0 \
	-qmp "unix:$Q,server=on,wait=off" 2>/dev/null &
qpid=$!
for _ in $(seq 300); do [ -S "$Q" ] && break; kill -0 $qpid 2>/dev/null || break; sleep 0.1; done
[ -S "$Q" ] || fail "qemu opened no QMP socket within 30 s"
got=$(py '
q = vlab.Qmp(sys.argv[3])
out = []
for queue in (1, 0):
    try:
        out.append(str(q.ring(0, queue, sys.argv[4])))
    except ValueError as e:
        out.append("ValueError: %s" % e)
print("; ".join(out))' "$Q" "$TMPD/ring")
# No guest: the rings are not set up, and a ring not set up is not read (not "stuck").
check_eq "a real qemu over QMP: the NIC's rings, not set up, are not read" \
	"ValueError: nic0 queue 1 not set up; ValueError: nic0 queue 0 not set up" "$got"
got=$(py 'q = vlab.Qmp(sys.argv[3]); print(q.cmd("x-query-virtio-queue-status", path="/machine/peripheral/nic0/virtio-backend", queue=1)["vring-num"])' "$Q")
check_eq "... and its queue status answers (a 256-entry ring)" 256 "$got"
kill $qpid 2>/dev/null
wait $qpid 2>/dev/null
finish
