#!/usr/bin/env python3
# tests/lab/remote_access_stranger.py: a hostile or careless client of nvme_write_bw_remote's
# sink, for the lab test remote_access.sh. It connects to HOST PORT, behaves
# as MODE says, reads until the sink closes the connection (at most 30 s) and
# prints one JSON line: what it sent and everything it received.
#
#   silent       connect and say nothing
#   garbage      64 random bytes
#   hello-first  a well-formed HELLO (protocol v3) without the AUTH exchange
#   mismatch     a HELLO of other parameters (depth 99), again without AUTH
#   no-key       AUTH without a key, then a HELLO
#   wrong-key    AUTH with a key, then a proof made with another key
#
# With a fourth argument, that file is created once the stranger has said
# all it will say (for a test to start the real source only then).
# Lab only: it sends to the address it is given and nowhere else.
import hashlib
import hmac
import json
import os
import socket
import struct
import sys
import time

MAGIC, VERSION = 0x4E425752, 3
HELLO, AUTH = 1, 11


def message(mtype, payload):
    return struct.pack(">IHHI", MAGIC, VERSION, mtype, len(payload)) + payload


def hello(depth=4):
    # chunk, depth, workers, warmup_ms, duration_ms, verify (canary), source (mem)
    return message(HELLO, struct.pack(">QIIQQBB", 1 << 20, depth, 1, 1000, 6000, 1, 1))


def auth(has_key, nonce=b"\0" * 32, mac=b"\0" * 32):
    return message(AUTH, struct.pack(">B", has_key) + nonce + mac)


def read_messages(sock, limit_s):
    """Everything the sink sends until it closes: raw bytes and the message types."""
    got, deadline = b"", time.monotonic() + limit_s
    sock.settimeout(1.0)
    closed = False
    while time.monotonic() < deadline:
        try:
            part = sock.recv(4096)
        except socket.timeout:
            continue
        except OSError:  # reset by the peer
            closed = True
            break
        if not part:
            closed = True
            break
        got += part
    types, pos = [], 0
    while pos + 12 <= len(got):
        _, _, mtype, n = struct.unpack(">IHHI", got[pos:pos + 12])
        types.append(mtype)
        pos += 12 + n
    return got, types, closed


def main(argv):
    host, port, mode = argv[1], int(argv[2]), argv[3]
    sock = socket.create_connection((host, port), timeout=10)
    sent = b""
    if mode == "garbage":
        sent = os.urandom(64)
    elif mode == "hello-first":
        sent = hello()
    elif mode == "mismatch":
        sent = hello(depth=99)
    elif mode == "no-key":
        sent = auth(0, os.urandom(32)) + hello()
    elif mode == "wrong-key":
        sent = auth(1, os.urandom(32))
    if sent:
        sock.sendall(sent)
    first_mac_zero = None
    if mode == "wrong-key":
        head, body = b"", b""
        try:
            sock.settimeout(10)
            head = sock.recv(12, socket.MSG_WAITALL)
            if len(head) == 12:
                body = sock.recv(struct.unpack(">IHHI", head)[3], socket.MSG_WAITALL)
            nonce_k = body[1:33]
            mac = hmac.new(b"not-the-right-key-at-all", b"nbw-source" + nonce_k + b"\0" * 32,
                           hashlib.sha256).digest()
            sock.sendall(auth(1, mac=mac))
            first_mac_zero = body[33:65] == b"\0" * 32
        except OSError:
            pass
    if len(argv) > 4:
        open(argv[4], "w").close()
    got, types, closed = read_messages(sock, 30)
    if mode == "wrong-key":
        got, types = head + body + got, ([AUTH] if body else []) + types
    print(json.dumps({"mode": mode, "sent": len(sent), "received": len(got), "types": types,
                      "closed": closed, "first_mac_zero": first_mac_zero}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
