"""nbw.results.inventory: a host's inventory from a captured sysfs and procfs."""
import os
import tempfile
import unittest

import nbwpath  # noqa: F401
from nbw.results.inventory import bracketed, collect_inventory, inv_cpu, inv_memory, kv_file


def write(root, rel, text):
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


class Inventory(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.sys = os.path.join(self.tmp.name, "sys")
        self.proc = os.path.join(self.tmp.name, "proc")
        write(self.proc, "cpuinfo", "processor\t: 0\nmodel name\t: Test CPU 9000\n"
              "microcode\t: 0x2a\n\nprocessor\t: 1\nmodel name\t: Other\n")
        write(self.proc, "meminfo", "MemTotal:       16384256 kB\nMemFree: 1 kB\n")
        for cpu, gov in (("cpu0", "performance"), ("cpu1", "performance"), ("cpu2", "powersave")):
            write(self.sys, "devices/system/cpu/%s/cpufreq/scaling_governor" % cpu, gov + "\n")
        write(self.sys, "devices/system/cpu/online", "0-2\n")
        write(self.sys, "devices/system/node/node0/meminfo", "Node 0 MemTotal:  8192000 kB\n")
        write(self.sys, "devices/system/node/node0/cpulist", "0-1\n")
        write(self.sys, "kernel/mm/transparent_hugepage/enabled", "always [madvise] never\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_helpers(self):
        self.assertEqual(bracketed("always [madvise] never"), "madvise")
        self.assertEqual(bracketed("plain"), "plain")
        self.assertEqual(kv_file(os.path.join(self.proc, "meminfo"))["MemTotal"], "16384256 kB")

    def test_cpu_first_block_and_governor_counts(self):
        cpu = inv_cpu(self.sys, self.proc)
        self.assertEqual((cpu["model"], cpu["microcode"], cpu["online"]),
                         ("Test CPU 9000", "0x2a", "0-2"))
        self.assertEqual(cpu["governors"], {"performance": 2, "powersave": 1})

    def test_memory(self):
        mem = inv_memory(self.sys, self.proc)
        self.assertEqual(mem["total_kib"], 16384256)
        self.assertEqual(mem["numa_nodes"], {"node0": {"cpus": "0-1", "mem_kib": 8192000}})
        self.assertEqual(mem["thp"]["enabled"], "madvise")

    def test_whole_document_without_a_probe(self):
        doc = collect_inventory(self.sys, self.proc, probe="", host="n1", probe_sysfs=self.sys)
        self.assertEqual((doc["tool"], doc["host"]), ("nbw-results inventory", "n1"))
        self.assertEqual((doc["rdma"], doc["nvme"]), ({}, {}))


if __name__ == "__main__":
    unittest.main()
