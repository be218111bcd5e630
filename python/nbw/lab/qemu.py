"""Preparing a node (initramfs, node.env, share, drive images) and its qemu command
line."""
import mmap
import os
import re
import shutil
import struct
import subprocess
import sys

from .base import EX_LAB, Exit, INITRD_MODULES, INITRD_OPTIONAL, NODE_NAMES, SRCDIR, VLAB_DIR
from .options import host_settings, link_props
from .plan import guest_path, nic_addr, nic_mac, pattern_id, peer_of
from .slowed import slowed_words
from .watch import qmp_path


def run_quiet(argv, **kw):
    return subprocess.run(argv, stdin=subprocess.DEVNULL, **kw).returncode == 0


def module_path(kver, mod, optional=False):
    for modinfo in ("/sbin/modinfo", "modinfo"):
        try:
            r = subprocess.run([modinfo, "-k", kver, "-n", mod], capture_output=True, text=True)
        except OSError:
            continue
        if r.returncode == 0:
            return r.stdout.strip()
    if optional:
        return ""
    raise Exit(EX_LAB, "module %s not found for %s" % (mod, kver))


def build_initrd(workdir, kver):
    """Build the initramfs: static busybox, the 9p modules and stage 1."""
    root = os.path.join(workdir, "initrd.d")
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(os.path.join(root, "bin"))
    os.makedirs(os.path.join(root, "lib", "modules"))
    shutil.copy("/bin/busybox", os.path.join(root, "bin", "busybox"))
    shutil.copy(os.path.join(VLAB_DIR, "init"), os.path.join(root, "init"))
    os.chmod(os.path.join(root, "init"), 0o755)
    loaded = []
    for mod in INITRD_MODULES:
        path = module_path(kver, mod, mod in INITRD_OPTIONAL)
        dest = os.path.join(root, "lib", "modules", mod + ".ko")
        unpack = {".ko": None, ".ko.xz": ["xz", "-dc"], ".ko.zst": ["zstd", "-qdc"]}
        ext = next((e for e in unpack if path.endswith(e)), None)
        if not path.startswith("/") or not ext:
            continue  # built in
        if unpack[ext]:
            with open(dest, "wb") as f:
                if not run_quiet(unpack[ext] + [path], stdout=f):
                    raise Exit(EX_LAB, "cannot unpack %s" % path)
        else:
            shutil.copy(path, dest)
        loaded.append(mod)
    with open(os.path.join(root, "modules.list"), "w") as f:
        f.write("".join(m + "\n" for m in loaded))
    with open(os.path.join(workdir, "initrd.img"), "wb") as f:
        if not run_quiet(["sh", "-c", "find . | cpio -o -H newc --quiet"], cwd=root, stdout=f):
            raise Exit(EX_LAB, "cannot build the initramfs")
    shutil.rmtree(root)


def node_env(s, node):
    """The node.env settings of node index `node` (read by guest.sh)."""
    n, nics = s.nodes, s.nics
    peer = peer_of(node, n)
    addrs = [nic_addr(node, k) for k in range(nics)]
    peers = [nic_addr(peer, k) for k in range(nics)]
    env = [
        ("VLAB_NODE", NODE_NAMES[node]),
        ("VLAB_NODES", n),
        ("VLAB_NICS", nics),
        ("VLAB_DRIVE_COUNT", s.drives),
        ("VLAB_LBS", s.lbs),
        ("VLAB_ADDR", addrs[0]),
        ("VLAB_PEER", peers[0]),
        ("VLAB_ADDRS", " ".join(addrs)),
        ("VLAB_PEERS", " ".join(peers)),
        ("VLAB_HOSTS", " ".join(nic_addr(i, 0) for i in range(n))),
        ("VLAB_NIC_MACS", " ".join(nic_mac(node, k) for k in range(nics))),
        ("VLAB_BUILDDIR", guest_path(s.builddir)),
        ("VLAB_SRCDIR", guest_path(SRCDIR)),
        ("VLAB_TIMEOUT", s.timeout),
        ("VLAB_GO_TIMEOUT", s.boot_timeout + 30),
        ("VLAB_HAS_SCRIPT", 1 if s.scripts[node] else 0),
        ("VLAB_VERBOSE", 1 if s.verbose else 0),
        # NIC k shaped to RATE Mbit/s by the guest (tbf on its netdev): "k:RATE ...".
        ("VLAB_SLOW_NICS", " ".join("%d:%d" % (k, r) for (i, k), r in sorted(s.slow_nics.items())
                                    if i == node)),
        # What vlab slowed on purpose, every node's (for the scripts to say):
        # "drive:NODE:INDEX:MBPS" and "nic:NODE:INDEX:MBIT" words.
        ("VLAB_SLOWED", slowed_words(s)),
    ]
    # Values are shell-sourced: quote them (none holds a single quote but paths).
    return "".join("%s='%s'\n" % (k, str(v).replace("'", "'\\''")) for k, v in env)


def prepare_node(s, workdir, node, args):
    """Share directory, settings, script and drive images of one node."""
    name = NODE_NAMES[node]
    share = os.path.join(workdir, name)
    shutil.rmtree(share, ignore_errors=True)
    for f in (name + ".console", name + ".pid"):
        if os.path.exists(os.path.join(workdir, f)):
            os.unlink(os.path.join(workdir, f))
    os.makedirs(os.path.join(share, "out"))
    shutil.copy(os.path.join(VLAB_DIR, "guest.sh"), os.path.join(share, "guest.sh"))
    script = s.scripts[node]
    if script:
        shutil.copy(script, os.path.join(share, "script"))
        os.chmod(os.path.join(share, "script"), 0o755)
        if node == 0 and args:
            with open(os.path.join(share, "args"), "wb") as f:
                f.write(b"".join(os.fsencode(a) + b"\0" for a in args))
    with open(os.path.join(share, "node.env"), "w") as f:
        f.write(node_env(s, node))
    with open(os.path.join(workdir, SMBIOS_MEMORY_FILE), "wb") as f:
        f.write(smbios_memory(s.mem))
    images = os.path.join(workdir, "images")
    for i in range(s.drives):
        img = os.path.join(images, "%s%d.img" % (name, i))
        if not run_quiet([sys.executable, os.path.join(VLAB_DIR, "pattern.py"), "write", img,
                          str(s.drive_size), str(pattern_id(node, i))]):
            raise Exit(EX_LAB, "cannot write %s" % img)
    # Checksums before the boot, so tests can prove the drives unchanged after.
    imgs = ["%s%d.img" % (name, i) for i in range(s.drives)]
    with open(os.path.join(images, "SHA256SUMS." + name), "w") as f:
        if not run_quiet(["sha256sum"] + imgs, cwd=images, stdout=f):
            raise Exit(EX_LAB, "cannot checksum the images of node %s" % name)


def direct_io_ok(directory):
    """cache=none needs O_DIRECT, which tmpfs lacks."""
    path = os.path.join(directory, ".odirect")
    buf = mmap.mmap(-1, 4096)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_DIRECT, 0o600)
        try:
            os.write(fd, buf)
        finally:
            os.close(fd)
        return True
    except OSError:
        return False
    finally:
        if os.path.exists(path):
            os.unlink(path)


def smp_arg(n, spare_cpu=None):
    """qemu's -smp for n vCPUs. One vCPU gets room for a second (maxcpus=2): qemu 7.2's
    TCG drops the guest's memory barriers when a machine can have only one vCPU, but its
    device threads still share the guest's memory, so a virtio ring can miss a kick and
    stop for good (the two-node lab's stall; fixed in qemu 8.1, "tcg: Do not elide memory
    barriers for !CF_PARALLEL in system mode")."""
    if spare_cpu is None:
        spare_cpu = host_settings(os.environ)["spare_cpu"]
    return "1,maxcpus=2" if n == 1 and spare_cpu else str(n)


def clock_arg(cpuinfo="/proc/cpuinfo", khz=None):
    """'tsc=reliable tsc_early_khz=N' for the guest kernel when the host's TSC is
    invariant, else ''. Under TCG every vCPU's TSC is the host's counter, but Linux calls
    the TSC of an AMD-vendor CPU (qemu's max) unsynchronized as soon as a second CPU is
    possible (smp_arg's maxcpus=2) and keeps time with the HPET: an emulated device read
    under qemu's global lock, whose waits on a loaded host put perftest's clock
    calibration off (r^2 < 0.9, "Can't produce a report"). The guest is also told the
    host's TSC rate (khz, default host_tsc_khz()): its own calibration at boot, against
    the emulated PIT, goes wrong when four guests boot at once on two cores, and with
    tsc=reliable nothing corrects it: a node of the four-node lab measured time about
    ten times too fast (its drives read at a tenth, its script's --timeout came after
    two minutes)."""
    try:
        with open(cpuinfo) as f:
            flags = next((l.split(":", 1)[1].split() for l in f if l.startswith("flags")), [])
    except OSError:
        return ""
    if not {"constant_tsc", "nonstop_tsc"} <= set(flags):
        return ""
    khz = host_tsc_khz() if khz is None else khz
    return "tsc=reliable" + (" tsc_early_khz=%d" % khz if khz else "")


def tsc_khz_of(kernel_log):
    """The TSC rate (kHz) the host's kernel settled on, from its log, or 0."""
    khz = 0
    for line in kernel_log.splitlines():
        m = re.search(r"tsc: (?:Refined TSC clocksource calibration|Detected): "
                      r"([0-9]+)\.([0-9]{3}) MHz", line.replace("Detected ", "Detected: "))
        if m:
            khz = int(m.group(1)) * 1000 + int(m.group(2))
    return khz


def host_tsc_khz():
    """The host's TSC rate in kHz: sysfs where the kernel offers it, else its log
    (dmesg), else 0 (unknown: the guest calibrates)."""
    try:
        with open("/sys/devices/system/cpu/cpu0/tsc_freq_khz") as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        pass
    try:
        r = subprocess.run(["dmesg"], capture_output=True, text=True, timeout=5)
    except (OSError, subprocess.SubprocessError):
        return 0
    return tsc_khz_of(r.stdout) if r.returncode == 0 else 0


def throttle(mbps):
    """The -drive suboption that slows a drive's reads to mbps MB/s (qemu's block
    throttling: a leaky bucket on the bytes read, bursts of a tenth of a second's worth),
    or ''."""
    return ",throttling.bps-read=%d" % (mbps * 1000000) if mbps else ""


# The emulated node's memory as its firmware describes it (SMBIOS type 17): one DIMM of
# DDR4-3200 on one channel, 64 data bits. The staging-memory rung's ceiling is read from
# this table as on hardware (nvme_read_bw --memory); it is the lab's description of its
# machine, like the drives' PCIe links, not a property of the host. qemu's own type 17
# (-smbios type=17,...) leaves the data width unknown (0xffff), so the whole structure is
# given as a file (-smbios file=), which qemu then uses instead of its own.
SMBIOS_MEMORY_FILE = "smbios17.bin"
SMBIOS_MEMORY_MTS = 3200


def smbios_memory(mem_mb):
    """The SMBIOS 2.8 type 17 structure (0x28 bytes and its strings) of the lab's DIMM."""
    t = bytearray(0x28)
    t[0], t[1] = 17, 0x28
    struct.pack_into("<HHHHHH", t, 0x02, 0x1100, 0x1000, 0xFFFE, 64, 64, mem_mb)
    t[0x0E], t[0x10], t[0x11], t[0x12] = 0x09, 1, 2, 0x1A  # DIMM, locators 1 and 2, DDR4
    struct.pack_into("<HH", t, 0x13, 0x0080, SMBIOS_MEMORY_MTS)  # synchronous; speed
    t[0x17], t[0x1B] = 3, 1  # manufacturer string; rank 1
    struct.pack_into("<HHHH", t, 0x20, SMBIOS_MEMORY_MTS, 1200, 1200, 1200)  # conf. speed; mV
    return bytes(t) + b"DIMM 0\0CHANNEL A\0QEMU (vlab)\0\0"


def qemu_args(s, workdir, node, netdevs, cache):
    """The qemu command line of one node; netdevs[k]: NIC k's backend, if any."""
    name = NODE_NAMES[node]
    share = os.path.join(workdir, name)
    args = [s.qemu, "-M", "q35", "-accel", "tcg", "-cpu", s.cpu, "-m", str(s.mem),
            "-smp", smp_arg(s.smp, s.spare_cpu), "-nodefaults", "-no-user-config", "-display", "none",
            "-monitor", "none", "-serial", "stdio", "-no-reboot",
            "-smbios", "file=" + os.path.join(workdir, SMBIOS_MEMORY_FILE),
            "-pidfile", os.path.join(workdir, name + ".pid"), "-name", "vlab-" + name,
            "-kernel", s.kernel, "-initrd", os.path.join(workdir, "initrd.img"),
            "-append", " ".join(a for a in (
                "console=ttyS0 quiet loglevel=%d panic=-1 mitigations=off"
                % (7 if s.verbose else 1), clock_arg(), s.append) if a),
            "-virtfs", "local,path=/,mount_tag=hostroot,security_model=none,readonly=on,"
            "multidevs=remap",
            "-virtfs", "local,path=%s,mount_tag=vlabnode,security_model=none,multidevs=remap"
            % share]
    qmp = qmp_path(workdir, name)
    if s.nodes > 1 and qmp:
        args += ["-qmp", "unix:%s,server=on,wait=off" % qmp]
    rp = 0
    for i in range(s.drives):
        rp += 1
        img = os.path.join(workdir, "images", "%s%d.img" % (name, i))
        args += ["-device", "pcie-root-port,id=rp%d,chassis=%d,slot=%d,%s"
                 % (rp, rp, rp, link_props(s.links[i])),
                 "-drive", "file=%s,if=none,id=d%d,format=raw,cache=%s%s" % (
                     img, i, cache, throttle(s.slow_drives.get((node, i))))]
        bus = "rp%d" % rp
        if s.switch and i == s.drives - 1:
            args += ["-device", "x3130-upstream,id=up0,bus=rp%d" % rp,
                     "-device", "xio3130-downstream,id=dn0,bus=up0,chassis=%d,slot=0" % (rp + 100)]
            bus = "dn0"
        warn = s.smart_warnings.get((node, i))
        args += ["-device", "nvme,drive=d%d,serial=vlab-%s-%d,bus=%s,logical_block_size=%d,"
                 "physical_block_size=%d%s" % (i, name, i, bus, s.lbs, s.lbs,
                                               ",smart_critical_warning=%d" % warn if warn else "")]
    for k in range(s.nics):
        rp += 1
        args += ["-device", "pcie-root-port,id=rp%d,chassis=%d,slot=%d,%s"
                 % (rp, rp, rp, link_props(s.nic_links[k])),
                 "-device", "virtio-net-pci,id=nic%d,netdev=n%d,bus=rp%d,mac=%s"
                 % (k, k, rp, nic_mac(node, k))]
        if netdevs:
            args += ["-netdev", netdevs[k]]
        else:
            args += ["-netdev", "hubport,id=n%d,hubid=%d" % (k, k)]
    return args
