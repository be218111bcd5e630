"""The server half (scripts/vlab.d/launch-agent) of the virtual lab's launcher.

LAB ONLY. It runs commands as root for anyone who can reach it, with no
authentication: it refuses to start outside a vlab guest (VLAB_NODE unset)
and listens only on the node's lab address (VLAB_ADDR, the private socket
link between the two qemu nodes), on port 18599 ($LAUNCH_PORT for tests). A node script starts it
(e.g. `launch-agent --lifetime 280 &`); it ends when a client sends
`launch --stop HOST` or when its lifetime is over.

Protocol (one command per TCP connection), shared with scripts/vlab.d/launch:
  client -> agent  u32 length (big-endian) + JSON {"argv": [...], "timeout": SEC}
                   or {"stop": true}
  agent -> client  frames: 1 byte kind + u32 length + payload, kind "o" = the
                   command's stdout, "e" = its stderr, "x" = its exit status
                   (decimal; 128+N when killed by signal N, 124 on timeout).
The command runs in its own session with stdin from /dev/null; when the
client goes away (closed connection) or the timeout expires, its whole
process group gets SIGTERM, then SIGKILL 5 s later.
"""
import argparse
import json
import os
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time

from .. import command
from .frames import launch_port, recv_exact, send_frame

MAX_REQUEST = 1 << 20
MAX_CLIENTS = 8
RUNNING = set()  # commands still running, stopped when the agent ends
RUNNING_LOCK = threading.Lock()
prog = "launch-agent"


def log(msg):
    print("%s[%s]: %s" % (prog, os.environ.get("VLAB_NODE", "?"), msg), file=sys.stderr, flush=True)


def shown(argv):
    """The command as one log line: an argument of several lines (a script given to
    sh -c) is shown by its first line and its count of lines, not spilled over the
    log, where its text (its error messages among it) would read as the run's own."""
    out = []
    for a in argv:
        lines = a.strip("\n").split("\n")
        out.append(a if len(lines) == 1 else "%s ... (%d lines)" % (lines[0], len(lines)))
    return " ".join(out)


def kill_group(proc):
    """SIGTERM to the command's process group, SIGKILL if it is still there 5 s later."""
    for sig, grace in ((signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(grace)
            return
        except subprocess.TimeoutExpired:
            pass


def run_command(conn, argv, timeout):
    """Run argv, stream its output to conn, return its exit status (None: client gone)."""
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, start_new_session=True)
    except OSError as e:
        send_frame(conn, b"e", ("%s: %s: %s\n" % (prog, argv[0], e.strerror)).encode())
        return 127
    with RUNNING_LOCK:
        RUNNING.add(proc)
    try:
        return stream_command(conn, proc, argv, timeout)
    finally:
        with RUNNING_LOCK:
            RUNNING.discard(proc)


def stream_command(conn, proc, argv, timeout):
    sel = selectors.DefaultSelector()
    sel.register(proc.stdout, selectors.EVENT_READ, b"o")
    sel.register(proc.stderr, selectors.EVENT_READ, b"e")
    sel.register(conn, selectors.EVENT_READ, None)
    deadline = time.monotonic() + timeout
    open_pipes = 2
    status = None
    while open_pipes:
        left = deadline - time.monotonic()
        if left <= 0:
            log("timeout after %g s: %s" % (timeout, argv[0]))
            kill_group(proc)
            status = 124
            break
        for key, _ in sel.select(min(left, 1.0)):
            if key.data is None:  # the client sent more, or went away
                if not conn.recv(4096):
                    log("client gone: stopping %s" % argv[0])
                    kill_group(proc)
                    sel.close()
                    return None
                continue
            data = os.read(key.fileobj.fileno(), 65536)
            if not data:
                sel.unregister(key.fileobj)
                open_pipes -= 1
            elif not send_frame(conn, key.data, data):
                kill_group(proc)
                sel.close()
                return None
    sel.close()
    rc = proc.wait()
    if status is None:
        status = 128 - rc if rc < 0 else rc
    return status


def serve(conn, state):
    try:
        conn.settimeout(10)
        n = struct.unpack(">I", recv_exact(conn, 4))[0]
        if n > MAX_REQUEST:
            raise ValueError("request of %d bytes" % n)
        req = json.loads(recv_exact(conn, n))
        conn.settimeout(None)
        if req.get("stop"):
            log("stop requested")
            state["stop"] = True
            send_frame(conn, b"x", b"0")
            return
        argv = req["argv"]
        timeout = float(req.get("timeout", 600))
        if not argv or not all(isinstance(a, str) for a in argv) or timeout <= 0:
            raise ValueError("bad request")
        log("run (timeout %g s): %s" % (timeout, shown(argv)))
        status = run_command(conn, argv, timeout)
        if status is not None:
            log("exit %d: %s" % (status, argv[0]))
            send_frame(conn, b"x", str(status).encode())
    except (OSError, EOFError, ValueError, KeyError, TypeError) as e:
        log("bad connection: %s" % e)
        send_frame(conn, b"e", ("%s: %s\n" % (prog, e)).encode())
        send_frame(conn, b"x", b"125")
    finally:
        conn.close()
        with state["lock"]:
            state["clients"] -= 1


def seconds(text):
    """A positive number of seconds, for argparse."""
    try:
        v = float(text)
    except ValueError:
        v = 0
    if not 0 < v < float("inf"):
        raise argparse.ArgumentTypeError("not a number of seconds: %s" % text)
    return v


def main(argv):
    p = command.Parser(prog=prog, description="Serve the lab's launcher (virtual lab only).")
    p.add_argument("--lifetime", type=seconds, default=600.0, metavar="SEC",
                   help="end after SEC seconds (default 600)")
    lifetime = p.parse_args(argv[1:]).lifetime
    addr = os.environ.get("VLAB_ADDR")
    if not os.environ.get("VLAB_NODE") or not addr:
        print("%s: not a virtual-lab node (VLAB_NODE/VLAB_ADDR unset): refusing to serve" % prog,
              file=sys.stderr)
        return 2
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    port = launch_port()
    srv.bind((addr, port))
    srv.listen(MAX_CLIENTS)
    srv.settimeout(0.5)
    state = {"stop": False, "clients": 0, "lock": threading.Lock()}
    end = time.monotonic() + lifetime
    log("listening on %s port %d for %g s" % (addr, port, lifetime))
    while not state["stop"]:
        if time.monotonic() >= end:
            log("lifetime over")
            break
        try:
            conn, _ = srv.accept()
        except socket.timeout:
            continue
        with state["lock"]:
            busy = state["clients"] >= MAX_CLIENTS
            if not busy:
                state["clients"] += 1
        if busy:
            send_frame(conn, b"e", b"launch-agent: too many clients\n")
            send_frame(conn, b"x", b"125")
            conn.close()
            continue
        threading.Thread(target=serve, args=(conn, state), daemon=True).start()
    srv.close()
    with RUNNING_LOCK:
        left = list(RUNNING)
    for proc in left:
        log("stopping a command still running: pid %d" % proc.pid)
        kill_group(proc)
    return 0
