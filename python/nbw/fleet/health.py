"""nbw.fleet.health: a suspect drive's own evidence in a fleet sweep: what its node's
nvme_read_bw document says of its health log around the window and of the shape of
its seconds (nbw.drivehealth's rules), and the probe's verdict on its link. A pure
function from a node's documents; the judge calls it for each suspect drive."""
from .. import drivehealth


def drive_evidence(read_doc, name, probe_ev=None):
    """The drive's evidence ({"rules", "says", "health_read", "why_not_read"}), or None
    when the node's document has no such drive. probe_ev: the judge's probe evidence of
    its link; a link the probe found downgraded is a change counted elsewhere."""
    drive = drivehealth.drive_named(read_doc, name)
    if drive is None:
        return None
    link_said = isinstance(probe_ev, dict) and probe_ev.get("verdict") == "downgraded"
    return drivehealth.evidence(drive, link_said=link_said)
