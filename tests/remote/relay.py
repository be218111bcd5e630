#!/usr/bin/env python3
"""A host on the path of the control channel, for tests/remote/fake_mac.sh.

relay.py LOG LISTEN_HOST LISTEN_PORT SINK_HOST SINK_PORT [ACTION:TYPE[:DELAY_MS]]

Takes one connection on LISTEN, connects it to the sink, and relays both ways
message by message (12-byte header: magic, u16 version, u16 type, u32 length; a
version 4 message has a 32-byte MAC after its payload). To the first message
of TYPE (in the direction its sender uses) it does ACTION: flip (a byte of the
payload), flipmac (a byte of the trailer), replay (sent twice) or drop. A
replay goes out with its original in one write; with DELAY_MS the copy is a
write of its own, DELAY_MS after the original (0: right after it). Either
side's end ends the connection both ways, as a middlebox may: a receiver
that closes before the sender's end never sees what comes late.
LOG gets one line per message: direction, version, type name, payload
length, trailer length. Stdlib only; loopback only; every wait has a timeout.
"""
import socket
import struct
import sys
import threading
import time

TYPES = ["?", "HELLO", "ACCEPT", "ERROR", "SLICES", "CANARY", "START", "RESULT",
         "VERIFY", "DONE", "PROGRESS", "AUTH", "QPS"]
BY_SINK = {"ACCEPT", "SLICES", "START", "DONE"}


def read_n(s, n):
    buf = b""
    while len(buf) < n:
        got = s.recv(n - len(buf))
        if not got:
            return None
        buf += got
    return buf


def pipe(src, dst, direction, action, log, lock):
    done = False
    try:
        while True:
            hdr = read_n(src, 12)
            if hdr is None:
                break
            _, version, typ, length = struct.unpack(">IHHI", hdr)
            tail = 32 if version == 4 else 0
            body = read_n(src, length + tail)
            if body is None:
                break
            name = TYPES[typ] if typ < len(TYPES) else str(typ)
            msg = bytearray(hdr + body)
            what = ""
            if action and not done and name == action[1]:
                done = True
                what = action[0]
                if what == "flip" and length:
                    msg[12 + length // 2] ^= 0x01
                elif what == "flipmac" and tail:
                    msg[-1] ^= 0x80
            with lock:
                log.write("%s v%d %s %d %d %s\n" % (direction, version, name, length,
                                                    tail, what))
                log.flush()
            if what == "drop":
                continue
            if what == "replay" and len(action) > 2:
                dst.sendall(msg)
                time.sleep(int(action[2]) / 1000)
                dst.sendall(msg)
            else:
                # In one write: the receiver's answer to the first cannot
                # close the connection between them.
                dst.sendall(msg + msg if what == "replay" else msg)
    except OSError:
        pass
    for s in (src, dst):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def main():
    logpath, lhost, lport, shost, sport = sys.argv[1:6]
    action = sys.argv[6].split(":") if len(sys.argv) > 6 else None
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((lhost, int(lport)))
    ls.listen(1)
    ls.settimeout(30)
    print("listening", flush=True)
    src, _ = ls.accept()
    snk = socket.create_connection((shost, int(sport)), timeout=30)
    src.settimeout(30)
    lock = threading.Lock()
    sink_action = action if action and action[1] in BY_SINK else None
    src_action = action if action and action[1] not in BY_SINK else None
    with open(logpath, "w") as log:
        threads = [threading.Thread(target=pipe, args=(src, snk, "s>k", src_action, log, lock)),
                   threading.Thread(target=pipe, args=(snk, src, "k>s", sink_action, log, lock))]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)


if __name__ == "__main__":
    main()
