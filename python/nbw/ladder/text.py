"""nbw.ladder.text: the ladder as text: its figures (fig: small ones keep three
significant digits), the table of rungs and the lines under it (above a ceiling, the
staging memory, the staging hop, a shared link).
Standard library only."""

from ..jsonutil import gb_text
from ..pcipath import Sum, shared_words

ABOVE = "above ceiling"


def fmt(v, f="%.2f"):
    return f % v if v is not None else "-"


def fig(v):
    """A GB/s figure: two decimals, or two significant digits below 0.1 so that the
    lab's small figures do not all print as 0.00 (jsonutil.gb_text)."""
    return gb_text(v)


def pct_text(r):
    return ABOVE if r.get("above_ceiling") else fmt(r["pct_of_ceiling"], "%.1f")


def table(rungs):
    cols = ("rung", "node", "measured GB/s", "ceiling GB/s", "% of ceiling", "CPU s/GiB")
    rows = [(r["name"] + (" (FAILED)" if r.get("failed") else ""), str(r["node"]),
             fig(r["measured_gb_per_s"]), fig(r["ceiling_gb_per_s"]), pct_text(r),
             fmt(r["cpu_s_per_gib"], "%.3f")) for r in rungs]
    w = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
    return ["  ".join(v.ljust(w[i]) if i < 2 else v.rjust(w[i]) for i, v in enumerate(r)).rstrip()
            for r in [cols] + rows]


def above_notes(rungs):
    """One footnote line per rung above its ceiling: a link's (drives, ports)
    is emulated or misreported; a ceiling made of the rungs below (end to end,
    NFS) holds a figure that did not hold."""
    def why(r):
        if r["kind"] in ("end_to_end", "nfs_rdma", "nfs_tcp", "nfs"):
            return "a rung below it does not hold"
        if r["kind"] == "memory":
            return "the buffers sat in the CPU's cache, or the ceiling is misreported"
        if r["kind"] == "rsync":
            return "its ceiling is one timed ssh stream, measured apart: the two differ by the host's noise"
        return "the link is emulated or its ceiling misreported"
    return ["%s: %s on %s measured %s GB/s, %.2fx its ceiling of %s GB/s: %s; no percentage, "
            "kept out of the binding verdict" %
            (ABOVE, r["name"], r["node"], fig(r["measured_gb_per_s"]),
             r["measured_gb_per_s"] / r["ceiling_gb_per_s"], fig(r["ceiling_gb_per_s"]), why(r))
            for r in rungs if r.get("above_ceiling")]


def memory_notes(rungs):
    """A staging memory that measured less than its drives wrote into it is no
    ceiling: said under the table, and it never binds."""
    return ["staging memory on %s measured %s GB/s, less than its drives wrote into it (%s GB/s): "
            "the stream was held back by its CPU, not by DRAM; it never binds" %
            (r["node"], fig(r["measured_gb_per_s"]), fig(r["drives_wrote_gb_per_s"]))
            for r in rungs if r["kind"] == "memory" and r.get("below_drives")]


def hop_notes(hop):
    """The staging hop's line under the table (Ladder.staging_hop)."""
    if not hop:
        return []
    at = (": %s GB/s of DRAM traffic at %s GB/s moved" % (fig(hop["dram_gb_per_s"]), fig(hop["moved_gb_per_s"]))
          if hop["dram_gb_per_s"] is not None else "")
    if hop["drives"] is None:
        p2p = "whether p2pdma could remove it: unknown (the probe ran without --topology)"
    elif not hop["drives"]:
        p2p = "p2pdma: the probe placed no drive in the PCIe tree"
    else:
        p2p = "p2pdma could remove it for %d of %d drives (nvme_link_probe --topology says why)" % (
            hop["p2p_drives"], hop["drives"])
    return ["staging hop on %s: each GB/s moved costs 2 GB/s of DRAM traffic (the drive writes it, "
            "the NIC reads it)%s; %s" % (hop["node"], at, p2p)]


def shared_notes(rungs):
    """One line per drives-together rung whose ceiling a shared link capped."""
    return ["%s on %s: ceiling capped by a shared link: %s" %
            (r["name"], r["node"], shared_words(Sum(r["links_summed_gb_per_s"],
                                                    r["ceiling_gb_per_s"], r["shared_hops"])))
            for r in rungs if r["kind"] == "drives" and r.get("shared_hops")]
