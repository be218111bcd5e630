"""The inventory collector run on every node: CPU, memory, RDMA ports, NVMe drives
and PCIe links, read from sysfs and procfs only."""
import glob
import json
import os
import re
import shutil
import socket
import subprocess
import sys

from .base import FORMAT, Fail, now_utc
from .compare import inventory_hash


def rd(path):
    """A sysfs/procfs value, stripped, or None."""
    try:
        with open(path, errors="replace") as f:
            return f.read(65536).strip()
    except OSError:
        return None


def bracketed(v):
    m = re.search(r"\[([^\]]+)\]", v or "")
    return m.group(1) if m else v


def kv_file(path):
    out = {}
    for line in (rd(path) or "").splitlines():
        k, sep, v = line.partition(":")
        if sep:
            out[k.strip()] = v.strip()
    return out


def inv_cpu(sysfs, proc):
    info = {}
    for block in (rd(os.path.join(proc, "cpuinfo")) or "").split("\n\n")[:1]:
        for line in block.splitlines():
            k, _, v = line.partition(":")
            info[k.strip()] = v.strip()
    govs = {}
    for g in sorted(glob.glob(os.path.join(sysfs, "devices/system/cpu/cpu[0-9]*/cpufreq/"
                                                  "scaling_governor"))):
        v = rd(g)
        govs[v] = govs.get(v, 0) + 1
    return {"model": info.get("model name"), "microcode": info.get("microcode"),
            "online": rd(os.path.join(sysfs, "devices/system/cpu/online")),
            "governors": govs, "driver": rd(os.path.join(
                sysfs, "devices/system/cpu/cpu0/cpufreq/scaling_driver"))}


def inv_memory(sysfs, proc):
    mi = kv_file(os.path.join(proc, "meminfo"))
    nodes = {}
    for d in sorted(glob.glob(os.path.join(sysfs, "devices/system/node/node[0-9]*"))):
        m = re.search(r"MemTotal:\s*([0-9]+)", rd(os.path.join(d, "meminfo")) or "")
        nodes[os.path.basename(d)] = {"cpus": rd(os.path.join(d, "cpulist")),
                                      "mem_kib": int(m.group(1)) if m else None}
    huge = {}
    for d in sorted(glob.glob(os.path.join(sysfs, "kernel/mm/hugepages/hugepages-*"))):
        huge[os.path.basename(d)[len("hugepages-"):]] = rd(os.path.join(d, "nr_hugepages"))
    thp = os.path.join(sysfs, "kernel/mm/transparent_hugepage")
    return {"total_kib": int(mi["MemTotal"].split()[0]) if mi.get("MemTotal") else None,
            "numa_nodes": nodes, "hugepages": huge,
            "thp": {"enabled": bracketed(rd(os.path.join(thp, "enabled"))),
                    "defrag": bracketed(rd(os.path.join(thp, "defrag")))}}


def active_mtu(dev, port):
    """An InfiniBand port's active MTU: not in sysfs, so from ibv_devinfo (None without)."""
    exe = shutil.which("ibv_devinfo")
    if not exe:
        return None
    try:
        p = subprocess.run([exe, "-d", dev, "-i", port], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=10, universal_newlines=True)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"^\s*active_mtu:\s*([0-9]+)", p.stdout, re.M)
    return m.group(1) if m else None


def inv_rdma(sysfs, live):
    out = {}
    for d in sorted(glob.glob(os.path.join(sysfs, "class/infiniband/*"))):
        ports = {}
        for p in sorted(glob.glob(os.path.join(d, "ports/*"))):
            nd = sorted(glob.glob(os.path.join(p, "gid_attrs/ndevs/*")))
            netdev = next((rd(x) for x in nd if rd(x)), None)
            ports[os.path.basename(p)] = {
                "state": rd(os.path.join(p, "state")), "phys_state": rd(os.path.join(
                    p, "phys_state")), "rate": rd(os.path.join(p, "rate")),
                "link_layer": rd(os.path.join(p, "link_layer")), "netdev": netdev,
                "mtu": rd(os.path.join(sysfs, "class/net", netdev, "mtu")) if netdev else None}
            if not netdev and live and rd(os.path.join(p, "link_layer")) == "InfiniBand":
                ports[os.path.basename(p)]["mtu"] = active_mtu(os.path.basename(d),
                                                               os.path.basename(p))
        dev = os.path.realpath(os.path.join(d, "device"))
        out[os.path.basename(d)] = {
            "fw_ver": rd(os.path.join(d, "fw_ver")), "board_id": rd(os.path.join(d, "board_id")),
            "hca_type": rd(os.path.join(d, "hca_type")),
            "pci_address": os.path.basename(dev) if os.path.exists(dev) else None,
            "ports": ports}
    return out


def inv_nvme(sysfs):
    out = {}
    for c in sorted(glob.glob(os.path.join(sysfs, "class/nvme/nvme*"))):
        name = os.path.basename(c)
        nss = {}
        for ns in sorted(glob.glob(os.path.join(sysfs, "class/block", name + "n*"))):
            nsn = os.path.basename(ns)
            if not re.match(r"^nvme[0-9]+n[0-9]+$", nsn):
                continue
            sectors = rd(os.path.join(ns, "size"))
            nss[nsn] = {"bytes": int(sectors) * 512 if sectors and sectors.isdigit() else None,
                        "logical_block_size": rd(os.path.join(ns, "queue/logical_block_size"))}
        dev = os.path.realpath(os.path.join(c, "device"))
        out[name] = {"model": rd(os.path.join(c, "model")),
                     "firmware_rev": rd(os.path.join(c, "firmware_rev")),
                     "serial": rd(os.path.join(c, "serial")),
                     "transport": rd(os.path.join(c, "transport")),
                     "pci_address": os.path.basename(dev) if os.path.exists(
                         os.path.join(c, "device")) else None,
                     "namespaces": nss}
    return out


def inv_pcie(probe, sysfs_root):
    """Each drive's and NIC's link (current, maximum) from nvme_link_probe --json."""
    if probe == "none":
        return None
    exe = probe or shutil.which("nvme_link_probe") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "nvme_link_probe", "nvme_link_probe")
    if not (os.path.isfile(exe) and os.access(exe, os.X_OK)):
        return {"error": "nvme_link_probe not found"}
    cmd = [exe, "--json"] + (["--sysfs-root", sysfs_root] if sysfs_root else [])
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": "%s: %s" % (exe, e)}
    try:
        doc = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        err = [l for l in p.stderr.decode("utf-8", "replace").splitlines() if l.strip()]
        return {"error": err[-1] if err else "%s: no JSON (exit %d)" % (exe, p.returncode)}
    out = {}
    for d in doc.get("devices") or []:
        if not isinstance(d, dict):
            continue
        links = [l for l in d.get("links") or [] if isinstance(l, dict)]
        own = [l for l in links if l.get("device_bdf") == d.get("bdf")] or links[-1:]
        link = own[0] if own else (d.get("link") or {})
        out[str(d.get("name") or d.get("bdf"))] = {
            "bdf": d.get("bdf"), "kind": d.get("kind"),
            "speed_gts": link.get("speed_gts"), "width": link.get("width"),
            "max_speed_gts": link.get("max_speed_gts", link.get("expected_speed_gts")),
            "max_width": link.get("max_width", link.get("expected_width")),
            "verdict": d.get("verdict")}
    return out


def collect_inventory(sysfs="/sys", proc="/proc", probe=None, host=None, probe_sysfs=None):
    u = os.uname()
    release = rd(os.path.join(proc, "sys/kernel/osrelease")) or u.release
    dmi = os.path.join(sysfs, "class/dmi/id")
    return {
        "tool": "nbw-results inventory", "format": FORMAT, "host": host or socket.gethostname(),
        "collected": now_utc(),
        "kernel": {"release": release, "version": rd(os.path.join(proc, "sys/kernel/version")),
                   "cmdline": rd(os.path.join(proc, "cmdline"))},
        "cpu": inv_cpu(sysfs, proc), "memory": inv_memory(sysfs, proc),
        "bios": {k: rd(os.path.join(dmi, k)) for k in ("bios_vendor", "bios_version",
                                                        "bios_date", "sys_vendor",
                                                        "product_name", "board_name")},
        "rdma": inv_rdma(sysfs, probe_sysfs is None), "nvme": inv_nvme(sysfs), "pcie": inv_pcie(probe, probe_sysfs),
    }


def cmd_inventory(args):
    sysfs = args.sysfs_root or "/sys"
    for d in (sysfs, args.proc_root):
        if not os.path.isdir(d):
            raise Fail(2, "%s: not a directory" % d)
    doc = collect_inventory(sysfs, args.proc_root, args.probe, args.host,
                            args.sysfs_root)
    doc["hash"] = inventory_hash(doc)
    json.dump(doc, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
