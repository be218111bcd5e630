"""nbw.lab (the virtual lab): the kernel's pick, the command line and its settings,
the lab's plan, qemu's command line and the link watch's rule."""
import contextlib
import os
import io
import tempfile
import struct
import unittest

import nbwpath  # noqa: F401
from nbw.lab.kernel import check, pick_kernel, version_key
from nbw.lab.options import (Settings, host_settings, link_list, link_props, parse_run_args,
                             parse_size, validate)
from nbw.lab.plan import guest_path, nic_addr, nic_mac, pattern_id, peer_of
from nbw.lab.qemu import clock_arg, node_env, qemu_args, smbios_memory, smp_arg, tsc_khz_of
from nbw.lab.slowed import lab_doc, slowed_words
from nbw.lab.watch import ring_stuck
from nbw.lab.launch_agent import shown


def usage_exit(fn, *args):
    """(exit status, stderr) of a call that ends in a usage error."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        with unittest.TestCase().assertRaises(SystemExit) as e:
            fn(*args)
    return e.exception.code, err.getvalue().splitlines()[0]


class Kernel(unittest.TestCase):
    def test_version_key_orders_numbers_as_numbers(self):
        self.assertLess(version_key("6.1.0-9-amd64"), version_key("6.1.0-57-amd64"))
        self.assertLess(version_key("6.9.0-1-amd64"), version_key("6.12.117+deb12-amd64"))
        self.assertLess(version_key("5.10.0-30-amd64"), version_key("6.1.0-9-amd64"))

    def test_pick_kernel_prefers_the_proven_series(self):
        self.assertEqual(pick_kernel(["6.12.117+deb12-amd64", "6.1.0-9-amd64", "6.1.0-57-amd64"]),
                         "6.1.0-57-amd64")
        self.assertEqual(pick_kernel(["6.9.0-1-amd64", "6.12.117+deb12-amd64"]),
                         "6.12.117+deb12-amd64")
        self.assertIsNone(pick_kernel([]))

    def test_check_refuses_an_unknown_cable(self):
        s = Settings(**host_settings({"VLAB_CABLE": "bogus"}))
        self.assertEqual(check(s), (2, "vlab: VLAB_CABLE: stream, socket, hub, not 'bogus'"))


class Options(unittest.TestCase):
    def test_sizes_and_links(self):
        self.assertEqual(parse_size("64M"), 64 << 20)
        self.assertEqual(parse_size("2g"), 2 << 30)
        self.assertIsNone(parse_size("1.5M"))
        self.assertEqual(link_props("2.5:1"), "x-speed=2_5,x-width=1")
        self.assertEqual(link_props("16:16"), "x-speed=16,x-width=16")
        self.assertIsNone(link_props("8:3"))
        self.assertEqual(link_list("8:4,16:4", 3), ["8:4", "16:4", "16:4"])

    def test_environment_read_when_asked(self):
        h = host_settings({"VLAB_CPU": "qemu64", "VLAB_SPARE_CPU": "0"})
        self.assertEqual((h["cpu"], h["spare_cpu"], h["qemu"]), ("qemu64", False, "qemu-system-x86_64"))

    def test_options_then_the_script_and_its_arguments(self):
        o, script, args = parse_run_args(["--nodes", "2", "--switch", "s.sh", "--x", "-h"], {})
        self.assertEqual((o["--nodes"], o["--switch"], o["--nics"]), ("2", True, "1"))
        self.assertEqual((script, args), ("s.sh", ["--x", "-h"]))
        self.assertEqual(parse_run_args(["s.sh", "--", "x"], {})[2], ["--", "x"])
        self.assertEqual(parse_run_args(["--", "-s.sh"], {})[1], "-s.sh")
        self.assertEqual(parse_run_args(["s.sh"], {"VLAB_KERNEL": "/k"})[0]["--kernel"], "/k")

    def test_usage_errors(self):
        self.assertEqual(usage_exit(parse_run_args, ["--on-c"], {}),
                         (2, "vlab: option --on-c needs a value"))
        self.assertEqual(usage_exit(parse_run_args, ["--node", "2", "s.sh"], {}),
                         (2, "vlab: unknown option --node"))
        self.assertEqual(usage_exit(parse_run_args, ["--nodes", "3"], {}),
                         (2, "vlab: run: SCRIPT missing"))

    def test_validate_makes_settings(self):
        with tempfile.NamedTemporaryFile("w", suffix=".sh") as f:
            o, script, _ = parse_run_args(["--drives", "3", "--links", "8:4,16:4", "--on-b",
                                           f.name, f.name], {})
            s = validate(o, script, {"VLAB_CABLE": "socket"})
        self.assertEqual((s.nodes, s.drives, s.links, s.smp, s.cable),
                         (2, 3, ["8:4", "16:4", "16:4"], 1, "socket"))
        self.assertEqual(s.scripts, [f.name, f.name])
        self.assertEqual(usage_exit(validate, dict(o, **{"--nics": "5"}), script, {}),
                         (2, "vlab: --nics: 1..4"))


class Plan(unittest.TestCase):
    def test_addresses(self):
        self.assertEqual((nic_addr(1, 2), nic_mac(1, 2)), ("10.77.2.2", "52:54:00:76:02:02"))
        self.assertEqual([pattern_id(n, 1) for n in range(4)], [0x01, 0x81, 0x41, 0xc1])
        self.assertEqual([peer_of(n, 3) for n in range(3)], [1, 0, 0])
        self.assertEqual(peer_of(0, 1), 0)
        self.assertEqual(guest_path("/tmp/x"), "/run/vlab-host/tmp/x")
        self.assertEqual(guest_path("/tmpx"), "/tmpx")

    def test_node_env(self):
        s = Settings(nodes=2, nics=2, scripts=["a.sh", ""], builddir="/src", timeout=60)
        env = dict(line.split("=", 1) for line in node_env(s, 1).splitlines())
        self.assertEqual((env["VLAB_NODE"], env["VLAB_ADDRS"], env["VLAB_PEER"]),
                         ("'b'", "'10.77.0.2 10.77.1.2'", "'10.77.0.1'"))
        self.assertEqual((env["VLAB_HAS_SCRIPT"], env["VLAB_GO_TIMEOUT"]), ("'0'", "'210'"))


class Qemu(unittest.TestCase):
    def test_clock_arg_wants_an_invariant_tsc(self):
        with tempfile.TemporaryDirectory() as d:
            def clock(flags):
                path = os.path.join(d, "cpuinfo")
                with open(path, "w") as f:
                    f.write("processor\t: 0\nflags\t\t: fpu %s sse2\n" % flags)
                return clock_arg(path, khz=0)
            self.assertEqual(clock("tsc constant_tsc nonstop_tsc"), "tsc=reliable")
            with open(os.path.join(d, "cpuinfo"), "w") as f:
                f.write("flags\t\t: tsc constant_tsc nonstop_tsc\n")
            self.assertEqual(clock_arg(os.path.join(d, "cpuinfo"), khz=2596136),
                             "tsc=reliable tsc_early_khz=2596136")
            self.assertEqual(clock("tsc constant_tsc"), "")
            self.assertEqual(clock("tsc nonstop_tsc"), "")
            self.assertEqual(clock_arg(os.path.join(d, "missing")), "")

    def test_the_hosts_tsc_rate_from_its_log(self):
        log = ("[    0.000048] tsc: Detected 2596.136 MHz processor\n"
               "[    0.395336] clocksource: Switched to clocksource tsc\n")
        self.assertEqual(tsc_khz_of(log), 2596136)
        self.assertEqual(tsc_khz_of(log + "[    1.5] tsc: Refined TSC clocksource calibration: "
                                    "2596.140 MHz\n"), 2596140)
        self.assertEqual(tsc_khz_of("nothing here\n"), 0)

    def test_smp_spare(self):
        self.assertEqual((smp_arg(1, True), smp_arg(2, True), smp_arg(1, False)),
                         ("1,maxcpus=2", "2", "1"))

    def test_qemu_args_of_a_node(self):
        s = Settings(nodes=2, drives=2, nics=1, links=["8:4", "16:4"], nic_links=["16:16"],
                     kernel="/boot/vmlinuz-x", mem=512, smp=1, lbs=4096, cpu="qemu64",
                     append="foo=1", switch=True)
        a = qemu_args(s, "/w", 1, ["stream,id=n0,fd=5"], "none")
        self.assertEqual(a[:8], ["qemu-system-x86_64", "-M", "q35", "-accel", "tcg", "-cpu",
                                 "qemu64", "-m"])
        self.assertEqual(a[a.index("-smp") + 1], "1,maxcpus=2")
        append = a[a.index("-append") + 1]
        clock = clock_arg()
        self.assertTrue(append.endswith(("mitigations=off %s foo=1" % clock) if clock
                                        else "mitigations=off foo=1"), append)
        devices = [a[i + 1] for i, x in enumerate(a) if x == "-device"]
        self.assertEqual(devices[0], "pcie-root-port,id=rp1,chassis=1,slot=1,x-speed=8,x-width=4")
        self.assertIn("xio3130-downstream,id=dn0,bus=up0,chassis=102,slot=0", devices)
        self.assertIn("nvme,drive=d1,serial=vlab-b-1,bus=dn0,logical_block_size=4096,"
                      "physical_block_size=4096", devices)
        self.assertEqual(devices[-1], "virtio-net-pci,id=nic0,netdev=n0,bus=rp3,mac=52:54:00:76:00:02")
        self.assertEqual(a[a.index("-netdev") + 1], "stream,id=n0,fd=5")
        self.assertEqual(a[a.index("-qmp") + 1], "unix:/w/b.qmp,server=on,wait=off")
        # the memory its firmware describes (the staging memory's ceiling), as a file
        self.assertEqual(a[a.index("-smbios") + 1], "file=/w/smbios17.bin")

    def test_smbios_memory(self):
        t = smbios_memory(512)
        self.assertEqual((t[0], t[1]), (17, 0x28))
        width, size = struct.unpack_from("<HH", t, 0x0A)
        speed, = struct.unpack_from("<H", t, 0x15)
        conf, = struct.unpack_from("<H", t, 0x20)
        self.assertEqual((width, size, speed, conf, t[0x12]), (64, 512, 3200, 3200, 0x1A))
        strings = t[0x28:].split(b"\0")
        self.assertEqual((strings[t[0x10] - 1], strings[t[0x11] - 1]), (b"DIMM 0", b"CHANNEL A"))
        self.assertTrue(t.endswith(b"\0\0"))

    def test_a_lone_node_has_hub_ports(self):
        s = Settings(nodes=1, drives=1, nics=2, links=["8:4"], nic_links=["16:16", "16:16"],
                     kernel="/k", smp=2)
        a = qemu_args(s, "/w", 0, [], "writeback")
        self.assertEqual([a[i + 1] for i, x in enumerate(a) if x == "-netdev"],
                         ["hubport,id=n0,hubid=0", "hubport,id=n1,hubid=1"])
        self.assertNotIn("-qmp", a)
        self.assertIn("file=/w/images/a0.img,if=none,id=d0,format=raw,cache=writeback", a)


class Slowed(unittest.TestCase):
    """$VLAB_SLOWED's words, and lab.json (fleet-a.sh's note beside the sweep) read
    back from them."""

    def test_words_and_lab_json(self):
        class S:
            slow_drives = {(1, 0): 150}
            slow_nics = {(2, 1): 4}
        words = slowed_words(S())
        self.assertEqual(words, "drive:b:0:150 nic:c:1:4")
        doc = lab_doc(["10.0.2.15", "10.0.2.16", "10.0.2.17"], words)
        self.assertEqual(doc["nodes"], {"a": "10.0.2.15", "b": "10.0.2.16", "c": "10.0.2.17"})
        self.assertEqual(doc["slowed"], [
            {"kind": "drive", "node": "b", "address": "10.0.2.16", "index": 0, "rate": 150,
             "unit": "MB/s"},
            {"kind": "nic", "node": "c", "address": "10.0.2.17", "index": 1, "rate": 4,
             "unit": "Mbit/s"}])
        self.assertEqual(lab_doc(["10.0.2.15"], "")["slowed"], [])


class AgentLog(unittest.TestCase):
    def test_a_script_argument_is_one_line_with_its_count(self):
        script = "act=$1\nerr() { echo x; }\n{ err \"mount failed\"; exit 1; }\n"
        line = shown(["sh", "-c", script, "sh", "up"])
        self.assertEqual(line, "sh -c act=$1 ... (3 lines) sh up")
        self.assertNotIn("failed", line)

    def test_plain_arguments_as_they_are(self):
        self.assertEqual(shown(["ib_write_bw", "-d", "rxe0", "10.77.0.1"]),
                         "ib_write_bw -d rxe0 10.77.0.1")
        self.assertEqual(shown(["echo", ""]), "echo ")


class Watch(unittest.TestCase):
    def test_ring_stuck(self):
        self.assertFalse(ring_stuck(None, (9, 5, 0, 5, 5)))
        self.assertTrue(ring_stuck((9, 5, 0, 5, 5), (12, 5, 0, 5, 5)))
        self.assertFalse(ring_stuck((9, 5, 0, 5, 5), (12, 7, 0, 7, 7)))
        self.assertTrue(ring_stuck((2, 65534, 0, 65534, 65534), (3, 65534, 0, 65534, 65534)))


class PatternAndFrames(unittest.TestCase):
    def test_every_word_names_its_offset_and_id(self):
        from nbw.lab.pattern import chunk, word
        self.assertEqual(word(0x1000, 0x81), 0x5681000000001000)
        data = chunk(4096, 16, 0x01)
        self.assertEqual(bytes(data)[:8], (0x5601000000001000).to_bytes(8, "little"))
        self.assertEqual(bytes(data)[8:16], (0x5601000000001008).to_bytes(8, "little"))

    def test_frames(self):
        import socket
        from nbw.lab.frames import launch_port, recv_exact, send_frame
        self.assertEqual((launch_port({}), launch_port({"LAUNCH_PORT": "20001"})), (18599, 20001))
        a, b = socket.socketpair()
        with a, b:
            self.assertTrue(send_frame(a, b"o", b"hello"))
            self.assertEqual(recv_exact(b, 1) + recv_exact(b, 4) + recv_exact(b, 5),
                             b"o\x00\x00\x00\x05hello")
            a.close()
            with self.assertRaises(EOFError):
                recv_exact(b, 1)


class CommandLines(unittest.TestCase):
    """The launcher's, the agent's and the pattern's command lines (argparse)."""

    def test_launch_passes_cmd_unchanged(self):
        from nbw.lab.launch import parse_args
        a = parse_args(["--timeout", "5", "b", "nvme_read_bw", "-t", "2", "--timeout", "3", "--",
                        "x"])
        self.assertEqual((a.host, a.timeout, a.stop), ("b", 5.0, None))
        self.assertEqual(a.cmd, ["nvme_read_bw", "-t", "2", "--timeout", "3", "--", "x"])
        os.environ.pop("LAUNCH_TIMEOUT", None)
        self.assertEqual(parse_args(["c", "true"]).timeout, 600.0)
        self.assertEqual(parse_args(["--stop", "d"]).stop, "d")

    def test_launch_usage_errors(self):
        from nbw.lab.launch import parse_args
        for argv, line in ((["b"], "launch: expected HOST CMD [ARG...] (--help)"),
                           ([], "launch: expected HOST CMD [ARG...] (--help)"),
                           (["--timeout", "soon", "b", "true"],
                            "launch: argument --timeout: not a number: soon (--help)"),
                           (["--timeout", "0", "b", "true"], "launch: argument --timeout: "
                            "not a positive number of seconds: 0 (--help)"),
                           (["--stop", "b", "c"], "launch: --stop HOST takes nothing else (--help)"),
                           (["-x", "b", "true"], "launch: unrecognized arguments: -x (--help)")):
            self.assertEqual(usage_exit(parse_args, argv), (2, line), argv)

    def test_agent_and_pattern_usage_errors(self):
        from nbw.lab import launch_agent, pattern
        self.assertEqual(usage_exit(launch_agent.main, ["launch-agent", "--lifetime", "x"]),
                         (2, "launch-agent: argument --lifetime: not a number of seconds: x "
                          "(--help)"))
        self.assertEqual(usage_exit(pattern.main, ["pattern.py", "write", "f", "1O", "1"]),
                         (2, "pattern.py write: argument SIZE: not a number: 1O (--help)"))
        self.assertEqual(usage_exit(pattern.main, ["pattern.py", "word"]),
                         (2, "pattern.py word: the following arguments are required: OFFSET, "
                          "ID (--help)"))
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(pattern.main(["pattern.py", "word", "0x1000", "0x81"]), 0)
        self.assertEqual(out.getvalue(), "5681000000001000\n")


if __name__ == "__main__":
    unittest.main()
