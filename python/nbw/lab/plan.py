"""The lab's plan: addresses, MACs, drive pattern IDs, paths as the guest sees them."""


def nic_addr(node, nic):
    return "10.77.%d.%d" % (nic, node + 1)


def nic_mac(node, nic):
    # 52:54:00 is qemu's prefix; 76 is 'v'; then the NIC index and node number.
    return "52:54:00:76:%02x:%02x" % (nic, node + 1)


def pattern_id(node, drive):
    """Drive pattern ID: a = 0x00, b = 0x80, c = 0x40, d = 0xc0, | drive."""
    return (node & 1) << 7 | (node >> 1) << 6 | drive


def guest_path(path):
    """The path the guest sees a host path by (its /tmp is its own tmpfs)."""
    if path == "/tmp" or path.startswith("/tmp/"):
        return "/run/vlab-host" + path
    return path


def peer_of(node, nodes):
    """a's peer is b, every other node's is a; a lone node is its own peer."""
    if nodes == 1:
        return 0
    return 1 if node == 0 else 0
