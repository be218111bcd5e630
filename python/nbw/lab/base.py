"""The lab's ground: its names, limits, exit statuses, paths, usage and errors."""
import os
import re
import sys


VLAB_VERSION = 1
PROG = "vlab"
EX_USAGE, EX_SKIP, EX_TIMEOUT, EX_LAB = 2, 77, 124, 125
NODE_NAMES = "abcd"
MAX_NICS = 4
# The lab runs from the source tree: this package sits in python/nbw/lab/, and the
# tree's scripts/ holds vlab.d/ (the guests' side: init, guest.sh, pattern.py, the
# demo's scripts).
SRCDIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
SCRIPTS_DIR = os.path.join(SRCDIR, "scripts")
VLAB_DIR = os.path.join(SCRIPTS_DIR, "vlab.d")
# Two nodes' cable: qemu's stream netdev (default), its older socket netdev on the
# same socketpair, or the hub (as for three or more nodes).
CABLES = ("stream", "socket", "hub")
# The kernel series the lab is proven on: Debian 12's stock 6.1. Its 6.12
# (linux-image-6.12-amd64, bookworm-security) crashes in rxe under TCG without a
# one-vCPU node's spare slot (smp_arg) and passes with it (docs/investigations.md,
# "the newer kernel was not the fix"); it is booted only when named.
LAB_SERIES = "6.1."

# Modules the initramfs loads, in order, to mount the host's root over 9p.
# fscache is a module of its own up to 6.1 and part of netfs from 6.x on (the
# bookworm-backports 6.12 kernel): where modinfo does not know it, it is skipped.
INITRD_OPTIONAL = ("fscache",)
INITRD_MODULES = ("virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev "
                  "virtio_pci netfs fscache 9pnet 9pnet_virtio 9p").split()

# Console lines qemu prints about a backend-less NIC (one-node lab).
HUB_WARNING = re.compile(r": warning: hub \d+ is not connected to host network$")

USAGE = """\
usage: vlab run [OPTIONS] SCRIPT [ARGS...]
       vlab demo [OPTIONS]
       vlab fleet [OPTIONS] [-- NBW-FLEET-RUN-OPTIONS]
       vlab check
       vlab pattern write FILE SIZE ID | check FILE ID | word OFFSET ID

run: boot the lab, run SCRIPT as root in node a (and SCRIPT_B, SCRIPT_C,
SCRIPT_D in nodes b, c, d), stream their output (node b's lines prefixed
"[b] ", c's "[c] "...), power off, and exit with SCRIPT's status (else the
first non-zero status of the other nodes' scripts).

demo: run_bench.sh ladder on two nodes; the ladder (json, txt, png) and every
tool's JSON are copied to a new ./nbw-demo-YYYYmmdd-HHMMSS (-1, -2... if taken),
recorded into this host's nbw-results (with the nodes' inventory) and reported
in HTML (report.html there); the last lines name the ladder, the record and
the report (vlab.d/demo-host.sh).

fleet: nbw-fleet run over the lab's nodes (default --nodes 4 --drives 2)
through the lab's launcher, node a running it; the sweep's directory is
copied to a new ./nbw-fleet-YYYYmmdd-HHMMSS (-1, -2... if taken), judged
again there (judge.txt, judge.json, report.html), recorded into this host's
nbw-results as one fleet run; the last lines name the judgement, the record,
the report and, last, the sweep (vlab.d/fleet-host.sh). Options after "--" go
to nbw-fleet run.

Options of run, demo and fleet:
  --nodes N            nodes to boot, 1..4 (default 1): a, b, c, d
  --nics N             virtio NICs per node, 1..4 (default 1); NIC k of every
                       node is on its own segment 10.77.k.0/24 (node i: .i+1)
                       with Soft-RoCE device rxeK on it
  --drives N           emulated NVMe drives per node (default 2)
  --drive-size SIZE    size of each drive, e.g. 64M (default 64M)
  --links LIST         root-port link of drive i = entry i of a comma list of
                       GT/s:width, e.g. 8:4,16:4,2.5:16 (last entry repeats;
                       default 8:4); speeds 2.5 5 8 16
  --switch             put the last drive behind a PCIe switch
                       (x3130-upstream + xio3130-downstream)
  --nic-link LIST      root-port link of NIC k = entry k of a comma list like
                       --links (default 16:16)
  --lbs 512|4096       logical block size of the drives (default 512)
  --slow-drive NODE:INDEX:MBPS
                       drive INDEX (0-based) of NODE reads at most MBPS MB/s
                       (10^6 bytes; qemu's block throttling); repeatable
  --slow-nic NODE:INDEX:MBIT
                       NIC INDEX (0-based) of NODE sends at most MBIT Mbit/s
                       (a tbf shaper the guest sets before the scripts run);
                       repeatable. The scripts see what was slowed in
                       $VLAB_SLOWED (drive:NODE:INDEX:MBPS nic:NODE:INDEX:MBIT)
  --smart-warning NODE:INDEX:BITS
                       drive INDEX (0-based) of NODE reports critical warning
                       BITS (1..31) in its health log from boot (qemu's nvme
                       smart_critical_warning); repeatable
  --on-b SCRIPT_B      run SCRIPT_B in node b (implies --nodes 2)
  --on-c SCRIPT_C      run SCRIPT_C in node c (implies --nodes 3)
  --on-d SCRIPT_D      run SCRIPT_D in node d (implies --nodes 4)
  --builddir DIR       built tree whose tools go on the guest PATH
                       (default: $VLAB_BUILDDIR, else the tree of this script)
  --workdir DIR        keep images, shares and consoles in DIR (default: a
                       temporary directory, removed on exit)
  --timeout SEC        hard limit for the scripts (default 300)
  --boot-timeout SEC   hard limit for booting (default 180)
  --mem MIB            guest memory per node (default 1024)
  --smp N              vCPUs per node (default 2, or 1 with two or more nodes;
                       one vCPU is started with room for a second, maxcpus=2,
                       which keeps the guest's memory barriers under TCG;
                       $VLAB_SPARE_CPU=0 drops the spare, to compare)
  --kernel FILE        kernel image (default: $VLAB_KERNEL, else the newest
                       6.1 /boot/vmlinuz-* with modules, else the newest);
                       $VLAB_QEMU names qemu, $VLAB_CPU the guests' CPU model
                       (default max), $VLAB_APPEND extra guest kernel arguments
  --verbose            show kernel messages on the console
  -h, --help           this text

NIC k of two nodes: a direct cable (a socketpair); of three or more: a UDP hub
inside vlab on 127.0.0.1 ($VLAB_CABLE: stream, the default, qemu's stream
netdev; socket, its socket netdev; hub, the hub for two nodes too). No traffic
leaves the host. A cable is watched: a
transmit ring qemu takes no frame from for 10 s is said on stderr with its
numbers ($VLAB_WATCH_LOG=FILE: every look, appended to FILE).
Exit status of run: the scripts' (above); 124 a boot or script timeout; 125 the
lab failed (qemu or the guest); 2 usage; 77 qemu or kernel missing (check).
"""


class Exit(Exception):
    """Leave vlab with status code (after cleanup), printing msg if any."""

    def __init__(self, code, msg=None):
        super().__init__(msg)
        self.code = code
        self.msg = msg


def err(msg):
    try:
        sys.stdout.flush()  # keep the order of stdout and stderr
    except OSError:
        pass
    print("%s: %s" % (PROG, msg), file=sys.stderr, flush=True)


def usage_err(msg):
    err(msg)
    print("Try '%s --help' for more information." % PROG, file=sys.stderr)
    sys.exit(EX_USAGE)
