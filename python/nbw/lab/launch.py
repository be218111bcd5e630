"""The virtual lab's launcher (scripts/vlab.d/launch), for LAUNCHER= of
scripts/run_bench.sh and scripts/scale_sweep.sh inside a vlab node (it is
to the lab what `srun -N1 -w HOST` is to a cluster). LAB ONLY.

  launch [--timeout SEC] HOST CMD [ARG...]   run CMD on lab node HOST (a, b, c or d)
  launch --stop HOST                         end HOST's launch-agent

CMD's argv arrives unchanged (no shell in between, like srun). On the
calling node itself CMD is executed directly; on the other node it runs
through that node's scripts/vlab.d/launch-agent (port 18599, or $LAUNCH_PORT, on its lab
address). CMD's stdout and stderr come out on ours, separately; the exit
status is CMD's, 124 when --timeout (default 600 s; $LAUNCH_TIMEOUT) expires,
255 when the agent cannot be reached within $LAUNCH_CONNECT_TIMEOUT (default
60 s) or the connection breaks, 2 on usage errors. Killing the client (Ctrl-C,
SIGTERM) closes the connection and the agent stops CMD's process group.
"""
import argparse
import json
import os
import signal
import socket
import struct
import sys
import time

from .. import command
from .frames import launch_port, recv_exact

prog = "launch"


def die(code, msg):
    print("%s: %s" % (prog, msg), file=sys.stderr, flush=True)
    sys.exit(code)


def on_sigterm(signum, frame):
    raise SystemExit(143)


def node_address(host):
    """None for the calling node itself, else the lab address of node HOST."""
    me = os.environ.get("VLAB_NODE")
    if not me:
        die(2, "not inside a virtual-lab node (VLAB_NODE is unset)")
    if host in (me, os.environ.get("VLAB_ADDR")):
        return None
    # VLAB_HOSTS: every node's address in node order a b c d (older labs: none).
    hosts = os.environ.get("VLAB_HOSTS", "").split()
    if not hosts and os.environ.get("VLAB_NODES") == "2":
        pair = [os.environ.get("VLAB_ADDR"), os.environ["VLAB_PEER"]]
        hosts = pair if me == "a" else pair[::-1]
    names = "abcd"[:len(hosts)]
    if len(hosts) < 2:
        if host in ("b", "c", "d"):
            die(2, "%s: no such node (a one-node lab)" % host)
    elif host in names:
        return hosts[names.index(host)]
    elif host in hosts:
        return host
    die(2, "%s: not a lab node (%s)" % (host, ", ".join(names) or "a"))


def connect(addr, limit):
    """Connect to the agent, retrying while it is not listening yet."""
    deadline = time.monotonic() + limit
    port = launch_port()
    while True:
        try:
            return socket.create_connection((addr, port), timeout=5)
        except OSError as e:
            if time.monotonic() >= deadline:
                die(255, "%s port %d: no launch-agent within %g s: %s"
                    % (addr, port, limit, e.strerror or e))
            time.sleep(0.5)


def request(addr, req, timeout, what):
    """Send one request, copy the frames to stdout/stderr, return the exit status."""
    sock = connect(addr, float(os.environ.get("LAUNCH_CONNECT_TIMEOUT", "60")))
    data = json.dumps(req).encode()
    sock.sendall(struct.pack(">I", len(data)) + data)
    # The agent ends CMD at the timeout and answers 124; allow it some slack.
    deadline = time.monotonic() + timeout + 20
    out = {b"o": sys.stdout.buffer, b"e": sys.stderr.buffer}
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                die(124, "%s: no answer within %g s" % (what, timeout))
            sock.settimeout(left)
            kind = recv_exact(sock, 1)
            n = struct.unpack(">I", recv_exact(sock, 4))[0]
            payload = recv_exact(sock, n)
            if kind == b"x":
                return int(payload)
            if kind in out:
                out[kind].write(payload)
                out[kind].flush()
    except socket.timeout:
        die(124, "%s: no answer within %g s" % (what, timeout))
    except EOFError:
        die(255, "%s: connection to %s lost" % (what, addr))
    except OSError as e:
        die(255, "%s: connection to %s lost%s" % (what, addr, ": %s" % e if str(e) else ""))
    finally:
        sock.close()


def seconds(text):
    """A positive number of seconds, for argparse."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("not a number: %s" % text) from None
    if not 0 < v < float("inf"):
        raise argparse.ArgumentTypeError("not a positive number of seconds: %s" % text)
    return v


def parse_args(argv):
    """The options, HOST and CMD (everything after HOST, unchanged) of ARGV."""
    p = command.Parser(prog=prog, allow_abbrev=False, description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter,
                       usage="%(prog)s [--timeout SEC] HOST CMD [ARG...] | --stop HOST")
    p.add_argument("--timeout", type=seconds, metavar="SEC",
                   help="CMD's time limit (default $LAUNCH_TIMEOUT, else 600)")
    p.add_argument("--stop", metavar="HOST", help="end HOST's launch-agent")
    p.add_argument("host", nargs="?", metavar="HOST", help="a lab node: a, b, c or d")
    p.add_argument("cmd", nargs=argparse.REMAINDER, metavar="CMD [ARG...]",
                   help="the command and its arguments, passed unchanged")
    args = p.parse_args(argv)
    if args.stop is not None:
        if args.host is not None or args.timeout is not None:
            p.error("--stop HOST takes nothing else")
        return args
    if args.host is None or not args.cmd:
        p.error("expected HOST CMD [ARG...]")
    if args.timeout is None:
        try:
            args.timeout = seconds(os.environ.get("LAUNCH_TIMEOUT", "600"))
        except argparse.ArgumentTypeError as e:
            p.error("LAUNCH_TIMEOUT: %s" % e)
    return args


def main(argv):
    signal.signal(signal.SIGTERM, on_sigterm)
    args = parse_args(argv[1:])
    if args.stop is not None:
        addr = node_address(args.stop)
        if addr is None:
            return 0
        return request(addr, {"stop": True}, 30, "%s: stop" % args.stop)
    host, cmd, timeout = args.host, args.cmd, args.timeout
    addr = node_address(host)
    if addr is None:
        try:
            os.execvp("timeout", ["timeout", "-k", "5", "%g" % timeout] + cmd)
        except OSError as e:
            die(127, "timeout: %s" % e.strerror)
    return request(addr, {"argv": cmd, "timeout": timeout}, timeout, "%s: %s" % (host, cmd[0]))
