"""The launcher's frames, shared by the client (launch) and the agent (launch_agent):
a request is a u32 length (big-endian) + JSON; an answer, frames of 1 byte kind + u32
length + payload."""
import os
import struct


def launch_port(environ=os.environ):
    """The agent's TCP port: 18599, or $LAUNCH_PORT (tests on loopback pick another)."""
    return int(environ.get("LAUNCH_PORT", "18599"))


def recv_exact(conn, n):
    """N bytes from CONN; EOFError when it closes first."""
    buf = b""
    while len(buf) < n:
        part = conn.recv(n - len(buf))
        if not part:
            raise EOFError("connection closed")
        buf += part
    return buf


def send_frame(conn, kind, data):
    """One frame of KIND; False when the connection is gone."""
    try:
        conn.sendall(kind + struct.pack(">I", len(data)) + data)
        return True
    except OSError:
        return False
