"""nbw.portcounters: what an RDMA port's counter deltas say about loss and congestion,
read from nvme_write_bw_remote's JSON ("counters": [{"device", "port", "counters": {...},
"hw_counters": {...}}], a counter null where the port does not keep it). The groups
are the tool's own (nvme_write_bw_remote/print/attrib.c, listed by
nvme_write_bw_remote --counters-table; tests/schema/counters_table.sh fails when the two
differ): a group is kept when one of its counters is, and moved by the sum of those kept. A low figure whose port keeps
the retransmission count and counted nothing of any group kept is limited by its rate
(a shaper or policer, the port's speed, a slower path); one whose port keeps no
retransmission count cannot be told apart ("not kept", never 0). Pure functions,
standard library only."""

# (key, what a count of it is called, how none of it is said, the kernel's counter names)
GROUPS = (
    ("retransmissions", "retransmissions", "retransmission",
     ("roce_adp_retrans", "roce_adp_retrans_to", "local_ack_timeout_err", "packet_seq_err",
      "implied_nak_seq_err", "duplicate_request", "retry_exceeded_err", "rcvd_seq_err",
      "completer_retry_err")),
    ("cnps", "CNPs and ECN marks", "CNP or ECN mark",
     ("np_cnp_sent", "rp_cnp_handled", "rp_cnp_ignored", "np_ecn_marked_roce_packets")),
    ("out_of_sequence", "out-of-sequence packets", "out-of-sequence packet",
     ("out_of_sequence", "out_of_seq_request")),
    ("rnr", "RNR NAKs and buffer overruns", "RNR NAK",
     ("rnr_nak_retry_err", "out_of_buffer", "rcvd_rnr_err", "send_rnr_err",
      "retry_rnr_exceeded_err")),
    ("xmit_wait", "xmit waits", "xmit wait (pause)", ("port_xmit_wait",)),
    ("link_errors", "link errors", "link error",
     ("symbol_error", "link_error_recovery", "port_rcv_errors", "local_link_integrity_errors",
      "excessive_buffer_overrun_errors", "port_rcv_remote_physical_errors")),
    ("link_downed", "link downs", "link down", ("link_downed",)),
)

LIMITED = ("the rate itself is limited (a shaper or policer, the port's speed, a slower "
           "path), not loss or congestion")
NOT_KEPT = "whether loss or congestion slowed it cannot be told"


def _count(v):
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _values(port):
    """{name: delta} of a port object's kept counters (both kinds)."""
    out = {}
    if not isinstance(port, dict):
        return out
    for kind in ("counters", "hw_counters"):
        c = port.get(kind)
        if isinstance(c, dict):
            for k, v in c.items():
                if _count(v) is not None and isinstance(k, str):
                    out[k] = out.get(k, 0) + v
    return out


def _sum(vals, names):
    have = [vals[n] for n in names if n in vals]
    return sum(have) if have else None


def tally(ports):
    """What ports (a list of port objects) counted together: {"kept": [group keys kept by
    every port], "not_kept": [the others], "moved": {key: sum over ports that keep it},
    "packets": n or None, "bytes": n or None, "ports": how many}."""
    ports = [p for p in ports or [] if isinstance(p, dict)]
    kept, moved, pkts, nbytes = None, {}, None, None
    for p in ports:
        vals = _values(p)
        mine = set()
        for key, _, _, names in GROUPS:
            s = _sum(vals, names)
            if s is not None:
                mine.add(key)
                moved[key] = moved.get(key, 0) + s
        kept = mine if kept is None else kept & mine
        pk = _sum(vals, ("port_xmit_packets", "port_rcv_packets"))
        if pk is None:
            pk = _sum(vals, ("sent_pkts", "rcvd_pkts"))
        if pk is not None:
            pkts = (pkts or 0) + pk
        d = _sum(vals, ("port_xmit_data", "port_rcv_data"))
        if d is not None:
            nbytes = (nbytes or 0) + 4 * d
    kept = kept or set()
    return {"kept": [g[0] for g in GROUPS if g[0] in kept],
            "not_kept": [g[0] for g in GROUPS if g[0] not in kept],
            "moved": {g[0]: moved[g[0]] for g in GROUPS if g[0] in moved},
            "packets": pkts, "bytes": nbytes, "ports": len(ports)}


def still(t):
    """ "rate_limited" (retransmissions kept, nothing kept moved), "moved" (a loss or
    congestion counter moved), "not_kept" (no retransmission count), or None (no port)."""
    if not t["ports"]:
        return None
    if any(t["moved"].get(k) for k in t["moved"]):
        return "moved"
    return "rate_limited" if "retransmissions" in t["kept"] else "not_kept"


def _join(words, last):
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " %s " % last + words[-1]


def words(t, where):
    """A tally in words, where = "on either end", "on the receiving end", ..."""
    v = still(t)
    word = {g[0]: g for g in GROUPS}
    if v is None:
        return "its ports' counters were not read"
    if v == "moved":
        said = ["{:,} {}".format(n, word[k][1]) for k, n in t["moved"].items() if n]
        return "%s counted %s in the window" % (_join(said, "and"), where)
    nk = " (not kept here: %s)" % _join([word[k][1] for k in t["not_kept"]], "and") \
        if t["not_kept"] else ""
    if v == "not_kept":
        out = "retransmissions not kept %s (never read as 0)%s: %s" % (where, nk, NOT_KEPT)
    else:
        out = "no %s counted %s in the window%s: %s" % (
            _join([word[k][2] for k in t["kept"]], "or"), where, nk, LIMITED)
    moved = [x for x in ("{:,} packets".format(t["packets"]) if t["packets"] is not None else None,
                         "{:,} bytes".format(t["bytes"]) if t["bytes"] is not None else None) if x]
    return out + ("; its ports moved %s" % " and ".join(moved) if moved else "")
