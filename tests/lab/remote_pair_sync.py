#!/usr/bin/env python3
# tests/lab/remote_pair_sync.py: the step between two parts of remote_pair.sh, inside
# the guests. Node a leads: it listens on PORT and, once node b connects,
# names the next part (or "end"). Node b follows: it connects to node a
# (again and again, the listener may not be up yet) and prints what it was
# told. Each side waits at most SECS by the clock and then says so (exit 1),
# so that a node whose peer died ends with a line, not the lab's timeout.
#
#   remote_pair_sync.py lead ADDR PORT SECS NAME
#   remote_pair_sync.py follow ADDR PORT SECS
#
# Lab only: it talks to the address it is given and nowhere else.
import socket
import sys
import time

MAX_NAME = 64


def read_line(conn):
    """One line of at most MAX_NAME bytes, without its newline; None if the
    peer closed first or sent a longer one."""
    got = b""
    while not got.endswith(b"\n"):
        if len(got) > MAX_NAME:
            return None
        piece = conn.recv(MAX_NAME + 1 - len(got))
        if not piece:
            return None
        got += piece
    return got[:-1]


def lead(addr, port, secs, name):
    end = time.monotonic() + secs
    with socket.create_server((addr, port)) as srv:
        while True:
            left = end - time.monotonic()
            if left <= 0:
                sys.exit("node a: node b did not come to part %s within %g s" % (name, secs))
            srv.settimeout(left)
            try:
                conn, _ = srv.accept()
            except socket.timeout:
                continue
            with conn:
                conn.settimeout(max(end - time.monotonic(), 1))
                try:
                    conn.sendall(name.encode() + b"\n")
                    # b's answer says it read the name; without it, b comes again.
                    if read_line(conn) == name.encode():
                        return
                except OSError:
                    pass


def follow(addr, port, secs):
    end = time.monotonic() + secs
    while time.monotonic() < end:
        try:
            with socket.create_connection((addr, port), timeout=2) as conn:
                conn.settimeout(max(end - time.monotonic(), 1))
                name = read_line(conn)
                if name and name.isascii():
                    conn.sendall(name + b"\n")
                    print(name.decode())
                    return
        except OSError:
            pass
        time.sleep(0.2)
    sys.exit("node b: no word from node a within %g s" % secs)


def main(argv):
    if len(argv) == 6 and argv[1] == "lead":
        lead(argv[2], int(argv[3]), float(argv[4]), argv[5])
    elif len(argv) == 5 and argv[1] == "follow":
        follow(argv[2], int(argv[3]), float(argv[4]))
    else:
        sys.exit("usage: remote_pair_sync.py lead ADDR PORT SECS NAME | follow ADDR PORT SECS")


if __name__ == "__main__":
    main(sys.argv)
