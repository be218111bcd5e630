"""The kernel to boot (the newest of the series the lab is proven on) and the host's
check: qemu, the kernel, busybox and the tools the guests use."""
import glob
import os
import re
import shutil
import subprocess
import sys

from .base import CABLES, EX_LAB, EX_SKIP, EX_USAGE, LAB_SERIES, PROG
from .options import Settings, host_settings


def version_key(kver):
    """Sort key of a kernel release: 6.12.117+deb12-amd64 after 6.9.0 and 6.1.0-57."""
    return [(0, int(p), "") if p.isdigit() else (1, 0, p) for p in re.split(r"[.+~-]", kver)]


def pick_kernel(kvers):
    """The release to boot of kvers: the newest of LAB_SERIES, else the newest."""
    ours = [k for k in kvers if k.startswith(LAB_SERIES)]
    return max(ours or kvers, key=version_key, default=None)


def find_kernel():
    """The /boot/vmlinuz-* that pick_kernel() picks among those with modules, or None."""
    found = [k[len("/boot/vmlinuz-"):] for k in glob.glob("/boot/vmlinuz-*") if os.access(k, os.R_OK)]
    k = pick_kernel([v for v in found if os.path.isdir("/lib/modules/" + v)])
    return "/boot/vmlinuz-" + k if k else None


def which(cmd):
    return shutil.which(cmd, path=os.environ.get("PATH", "") + ":/sbin:/usr/sbin")


def check(s):
    """(status, message): 0 when the lab can run here, else 77, 125 or 2. S: the
    settings (Settings, or host_settings' keys as attributes)."""
    if s.cable not in CABLES:
        return EX_USAGE, "%s: VLAB_CABLE: %s, not '%s'" % (PROG, ", ".join(CABLES), s.cable)
    if not shutil.which(s.qemu):
        return EX_SKIP, "SKIP: %s not found (apt-get install qemu-system-x86)" % s.qemu
    k = os.environ.get("VLAB_KERNEL")
    if k:
        if not os.access(k, os.R_OK):
            return EX_SKIP, "SKIP: kernel %s (VLAB_KERNEL) not readable" % k
    else:
        k = find_kernel()
        if not k:
            return EX_SKIP, ("SKIP: no readable /boot/vmlinuz-* with /lib/modules "
                             "(apt-get install linux-image-amd64)")
    if not os.access("/bin/busybox", os.X_OK):
        return EX_LAB, "%s: /bin/busybox missing (apt-get install busybox-static)" % PROG
    for tool, pkg in (("python3", "python3"), ("timeout", "coreutils"), ("cpio", "cpio"),
                      ("ip", "iproute2"), ("rdma", "iproute2"), ("modprobe", "kmod")):
        if not which(tool):
            return EX_LAB, "%s: %s missing (apt-get install %s)" % (PROG, tool, pkg)
    out = subprocess.run([s.qemu, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"version (\S+)", out)
    return 0, "vlab: qemu %s, kernel %s, cpu %s%s%s%s" % (
        m.group(1) if m else "?", k, s.cpu, ", append %s" % s.append if s.append else "",
        ", cable %s" % s.cable if s.cable != "stream" else "",
        "" if s.spare_cpu else ", no spare cpu")


def cmd_check():
    code, msg = check(Settings(**host_settings(os.environ)))
    print(msg, file=sys.stderr if code in (EX_LAB, EX_USAGE) else sys.stdout)
    return code
