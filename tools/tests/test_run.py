#!/usr/bin/env python3
"""Offline tests for tools/lib/ktap.py and tools/run.py (no kernel needed).

    python3 tools/tests/test_run.py        (or: python3 tools/host_tests.py)
"""

import contextlib
import io
import os
import stat
import struct
import sys
import tempfile
import textwrap
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
import arm64_image  # noqa: E402
import ktap  # noqa: E402
import run  # noqa: E402


def parse(text, end="clean"):
    p = ktap.KtapParser()
    for line in textwrap.dedent(text).lstrip("\n").splitlines():
        p.feed(line)
    return p.finish(end)


ALL_PASS = """
    Quiescent booting, 4 CPUs
    KTAP version 1
    1..3
    # ktest: running spinlock_basic
    ok 1 spinlock_basic
    # ktest: running rcu_sync
    ok 2 rcu_sync
    # ktest: running list_rcu
    ok 3 list_rcu
    # all done
"""

ONE_FAIL = """
    KTAP version 1
    1..3
    # ktest: running a
    ok 1 a
    # ktest: running b
    # b: expected 4, got 5
    not ok 2 b
    # ktest: running c
    ok 3 c
"""

SKIP = """
    KTAP version 1
    1..3
    ok 1 a
    ok 2 needs_smp # SKIP only one CPU
    not ok 3 also_skipped # SKIP no timer
"""

TIMEOUT_MID = """
    KTAP version 1
    1..5
    # ktest: running a
    ok 1 a
    # ktest: running b
    ok 2 b
    # ktest: running rcu_stall
    # waiting for grace period...
"""

PANIC = """
    KTAP version 1
    1..4
    # ktest: running a
    ok 1 a
    # ktest: running bad_ptr
    PANIC on CPU 2: page fault at 0x0
"""

NO_PLAN = """
    Quiescent booting
    PANIC on CPU 0: early
"""


class KtapTests(unittest.TestCase):
    def test_all_pass(self):
        lines, c = parse(ALL_PASS)
        self.assertEqual(lines, [])
        self.assertEqual((c.passed, c.failed, c.skipped), (3, 0, 0))
        self.assertTrue(c.complete)
        self.assertEqual(ktap.summary_line(c), "3 passed, 0 failed")

    def test_one_fail(self):
        lines, c = parse(ONE_FAIL)
        self.assertEqual(lines, [])
        self.assertEqual((c.passed, c.failed, c.skipped), (2, 1, 0))
        self.assertTrue(c.complete)
        self.assertEqual(ktap.summary_line(c), "2 passed, 1 failed")

    def test_skip(self):
        _, c = parse(SKIP)
        self.assertEqual((c.passed, c.failed, c.skipped), (1, 0, 2))
        self.assertEqual(ktap.summary_line(c), "1 passed, 0 failed, 2 skipped")

    def test_timeout_mid_test(self):
        lines, c = parse(TIMEOUT_MID, "timeout")
        self.assertEqual(lines, ["not ok 3 rcu_stall # TIMEOUT", "# 2 tests never ran"])
        self.assertEqual((c.passed, c.failed), (2, 3))
        self.assertFalse(c.complete)

    def test_panic(self):
        lines, c = parse(PANIC, "panic")
        self.assertEqual(lines, ["not ok 2 bad_ptr # PANIC", "# 2 tests never ran"])
        self.assertEqual(ktap.summary_line(c), "1 passed, 3 failed")

    def test_crash_last_test(self):
        lines, c = parse("KTAP version 1\n1..2\nok 1 a\n# ktest: running b\n", "crash")
        self.assertEqual(lines, ["not ok 2 b # CRASH"])
        self.assertEqual((c.passed, c.failed), (1, 1))

    def test_cut_without_running_line(self):
        lines, _ = parse("KTAP version 1\n1..2\nok 1 a\n", "timeout")
        self.assertEqual(lines, ["not ok 2 test2 # TIMEOUT"])

    def test_no_plan(self):
        lines, c = parse(NO_PLAN, "panic")
        self.assertEqual((c.passed, c.failed), (0, 1))
        self.assertIsNone(c.planned)
        self.assertFalse(c.complete)
        self.assertTrue(lines[0].startswith("# no KTAP plan"))

    def test_empty_plan_fails(self):
        _, c = parse("KTAP version 1\n# ktest: no test matches 'zzz'\n1..0\n")
        self.assertEqual((c.passed, c.failed), (0, 1))
        self.assertFalse(c.complete)

    def test_crlf_dash_and_subtests(self):
        text = ("KTAP version 1\r\n1..2\r\n"
                "    KTAP version 1\r\n    1..1\r\n    not ok 1 inner\r\n"
                "ok 1 - outer\r\nok 2 second # some note\r\n")
        p = ktap.KtapParser()
        for line in text.splitlines(keepends=True):
            p.feed(line)
        lines, c = p.finish()
        self.assertEqual((c.passed, c.failed, c.skipped), (2, 0, 0))
        self.assertEqual(p.results[1].name, "outer")
        self.assertEqual(p.results[2].directive, "some note")

    def test_missing_in_middle(self):
        lines, c = parse("KTAP version 1\n1..3\nok 1 a\nok 3 c\n", "clean")
        self.assertEqual(lines, ["not ok 2 test2 # CRASH"])
        self.assertEqual((c.passed, c.failed), (2, 1))


class ClassifyTests(unittest.TestCase):
    def test_codes(self):
        self.assertEqual(run.classify("x86_64", 33, False), ("clean", None))
        self.assertEqual(run.classify("x86_64", 35, False)[0], "failed")
        end, v = run.classify("aarch64", 37, False)
        self.assertEqual((end, v), ("panic", "run: kernel panic (exit 37)"))
        end, v = run.classify("x86_64", 0, False)
        self.assertEqual(end, "crash")
        self.assertIn("triple fault", v)
        end, v = run.classify("x86_64", 33, True, 120)
        self.assertEqual((end, v), ("timeout", "run: TIMEOUT after 120 s: QEMU killed"))
        self.assertIn("value 0x3", run.classify("x86_64", 7, False)[1])
        self.assertIn("SIGKILL", run.classify("x86_64", -9, False)[1])

    def test_status_0_by_qemus_reason(self):
        # Ctrl-A X: one calm line; a reset or a power-off: a failure that says which.
        end, v = run.classify("x86_64", 0, False, None, "host-qmp-quit")
        self.assertEqual(end, "quit")
        self.assertIn("Ctrl-A X", v)
        end, v = run.classify("x86_64", 0, False, None, "guest-reset")
        self.assertEqual(end, "crash")
        self.assertIn("triple fault", v)
        self.assertIn("PSCI SYSTEM_RESET", run.classify("aarch64", 0, False, None, "guest-reset")[1])
        self.assertIn("guest-shutdown", run.classify("aarch64", 0, False, None, "guest-shutdown")[1])
        self.assertIn("host-signal", run.classify("x86_64", 0, False, None, "host-signal")[1])
        # A reason never turns a kernel exit code into something else.
        self.assertEqual(run.classify("x86_64", 33, False, None, "host-qmp-quit"), ("clean", None))


class QemuCommandTests(unittest.TestCase):
    def test_x86_kvm(self):
        a = run.parse_args(["--arch", "x86_64", "--kernel", "k", "--accel", "kvm", "--smp", "2"])
        cmd = run.qemu_command(a, False, "r.iso")
        self.assertIn("host,-arch-capabilities", cmd)
        self.assertNotIn("max", cmd)
        self.assertEqual(cmd[cmd.index("-cdrom") + 1], "r.iso")
        self.assertEqual(cmd[-4:], ["-serial", "stdio", "-monitor", "none"])

    def test_tcg_single_thread(self):
        for arch, boot in (("x86_64", "r.iso"), ("aarch64", ("r.img", None))):
            a = run.parse_args(["--arch", arch, "--kernel", "k", "--accel", "tcg-single"])
            cmd = run.qemu_command(a, False, boot)
            self.assertEqual(cmd[cmd.index("-accel") + 1], "tcg,thread=single")
            a = run.parse_args(["--arch", arch, "--kernel", "k"])
            cmd = run.qemu_command(a, False, boot)
            self.assertEqual(cmd[cmd.index("-accel") + 1], "tcg")

    def test_aarch64_boots_the_image_with_its_initrd(self):
        a = run.parse_args(["--arch", "aarch64", "--kernel", "k.elf"])
        cmd = run.qemu_command(a, False, ("r.img", "r.initrd"))
        self.assertEqual(cmd[cmd.index("-kernel") + 1], "r.img")
        self.assertEqual(cmd[cmd.index("-initrd") + 1], "r.initrd")
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "cortex-a76")	# PAN
        cmd = run.qemu_command(a, False, ("r.img", None))
        self.assertNotIn("-initrd", cmd)
        a = run.parse_args(["--arch", "aarch64", "--kernel", "k.elf", "--cpu", "cortex-a72"])
        cmd = run.qemu_command(a, False, ("r.img", None))
        self.assertEqual(cmd[cmd.index("-cpu") + 1], "cortex-a72")

    def test_aarch64_debug_interactive(self):
        a = run.parse_args(["--arch", "aarch64", "--kernel", "k", "--cmdline", "a  b", "--debug"])
        cmd = run.qemu_command(a, True)
        self.assertEqual(cmd[cmd.index("-append") + 1], "a  b")
        self.assertIn("mon:stdio", cmd)
        self.assertEqual(cmd[-2:], ["-s", "-S"])

    def test_plugin(self):
        a = run.parse_args(["--arch", "x86_64", "--kernel", "k", "--plugin", "p.so,out=f"])
        cmd = run.qemu_command(a, False, "r.iso")
        self.assertEqual(cmd[cmd.index("-plugin") + 1], "p.so,out=f")
        a = run.parse_args(["--arch", "x86_64", "--kernel", "k"])
        self.assertNotIn("-plugin", run.qemu_command(a, False, "r.iso"))

    def test_icount(self):
        a = run.parse_args(["--arch", "aarch64", "--kernel", "k", "--icount", "0"])
        cmd = run.qemu_command(a, False)
        self.assertEqual(cmd[cmd.index("-icount") + 1], "shift=0,sleep=off")
        a = run.parse_args(["--arch", "x86_64", "--kernel", "k"])
        self.assertNotIn("-icount", run.qemu_command(a, False, "r.iso"))

    def test_iso_beside_log(self):
        a = run.parse_args(["--arch", "x86_64", "--kernel", "build/x86_64/quiescent.elf",
                            "--log", "build/x86_64/run.log"])
        self.assertEqual(run.iso_path(a), "build/x86_64/run.iso")
        a = run.parse_args(["--arch", "aarch64", "--kernel", "/b/kernel.elf"])
        self.assertEqual(run.boot_file_path(a, ".img"), "/b/run.img")


    def test_isolated_cpus_from_the_tests_words(self):
        self.assertEqual(run.isolated_cpus(""), 2)
        self.assertEqual(run.isolated_cpus("x=1 ktest.cpus=3"), 3)
        self.assertEqual(run.isolated_cpus("ktest.cpus=abc"), 2)

    def test_dtb_packed_beside_the_log_and_passed_to_qemu(self):
        with tempfile.TemporaryDirectory() as d:
            padded = bytearray(1 << 16)
            padded[:40] = struct.pack(">10I", 0xd00dfeed, 1 << 16, 56, 72, 40, 17, 16, 0, 4, 16)
            padded[56:72] = struct.pack(">4I", 1, 0, 2, 9)
            src = os.path.join(d, "virt.dtb")
            with open(src, "wb") as f:
                f.write(padded)
            a = run.parse_args(["--arch", "aarch64", "--kernel", "k", "--dtb", src,
                                "--log", os.path.join(d, "run.log")])
            self.assertIsNone(run.pack_dtb(a))
            self.assertEqual(a.dtb_packed, os.path.join(d, "run.dtb"))
            with open(a.dtb_packed, "rb") as f:
                packed = f.read()
            self.assertEqual(len(packed), 76)	# strings end at 72 + 4
            self.assertEqual(struct.unpack(">I", packed[4:8])[0], 76)
            cmd = run.qemu_command(a, False)
            self.assertEqual(cmd[cmd.index("-dtb") + 1], a.dtb_packed)
            a.dtb = os.path.join(d, "run.log")
            with open(a.dtb, "w") as f:
                f.write("not a tree")
            self.assertIn("not a flattened device tree", run.pack_dtb(a))


# A cross objcopy that writes a 64-byte arm64 Image header with image_size
# 4096 ("$4" is the output of "-O binary ELF OUT"), and a strip that copies.
FAKE_OBJCOPY = """#!/usr/bin/env python3
import struct, sys
hdr = struct.pack("<IIQQQQQQ", 0x14000010, 0, 0x200000, 4096, 2, 0, 0, 0) + b"ARM\\x64" + bytes(4)
open(sys.argv[4], "wb").write(hdr)
"""
FAKE_STRIP = """#!/bin/sh
cp "$4" "$3"
"""


class EndToEndTests(unittest.TestCase):
    """main() against a fake qemu-system-aarch64 that prints a transcript."""

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name
        self.kernel = os.path.join(self.dir, "k.elf")
        open(self.kernel, "w").close()
        self.old_path = os.environ["PATH"]
        os.environ["PATH"] = self.dir + os.pathsep + self.old_path
        self.fake_tool("aarch64-linux-gnu-objcopy", FAKE_OBJCOPY)
        self.fake_tool("aarch64-linux-gnu-strip", FAKE_STRIP)

    def fake_tool(self, name, body):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(body)
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def tearDown(self):
        os.environ["PATH"] = self.old_path
        self.tmp.cleanup()

    def fake_qemu(self, transcript, status, sleep=0):
        body = textwrap.dedent(transcript).lstrip("\n")
        path = os.path.join(self.dir, "qemu-system-aarch64")
        with open(path, "w") as f:
            f.write("#!/bin/sh\ncat <<'EOF'\n" + body + "EOF\n")
            if sleep:
                f.write(f"sleep {sleep}\n")
            f.write(f"exit {status}\n")
        os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)

    def main(self, *extra):
        out = io.StringIO()
        log = os.path.join(self.dir, "sub", "test.log")
        with contextlib.redirect_stdout(out):
            rc = run.main(["--arch", "aarch64", "--kernel", self.kernel, "--mode", "test",
                           "--log", log] + list(extra))
        with open(log) as f:
            self.assertEqual(f.read(), out.getvalue())
        return rc, out.getvalue().splitlines()

    def test_filter_too_long_is_refused(self):
        self.fake_qemu(ALL_PASS, 33)	# would pass: the runner must not start it
        out = io.StringIO()
        word = "ktest.filter=" + "x" * 243	# 256 characters
        with contextlib.redirect_stdout(out):
            rc = run.main(["--arch", "aarch64", "--kernel", self.kernel, "--mode", "test",
                           "--cmdline", word])
        lines = out.getvalue().splitlines()
        self.assertEqual(rc, 1)
        self.assertIn("ktest.filter= is 256 characters long", lines[0])
        self.assertIn("shorter TESTS glob", lines[0])
        self.assertEqual(lines[-1], "0 passed, 1 failed")
        with contextlib.redirect_stdout(io.StringIO()):	# 255 is still taken
            self.assertEqual(run.main(["--arch", "aarch64", "--kernel", self.kernel,
                                       "--mode", "test", "--cmdline", word[:-1]]), 0)

    def test_pass(self):
        self.fake_qemu(ALL_PASS, 33)
        rc, lines = self.main()
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], "3 passed, 0 failed")

    def test_fail(self):
        self.fake_qemu(ONE_FAIL, 35)
        rc, lines = self.main()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], "2 passed, 1 failed")

    def test_panic(self):
        self.fake_qemu(PANIC, 37)
        rc, lines = self.main()
        self.assertEqual(rc, 1)
        self.assertIn("not ok 2 bad_ptr # PANIC", lines)
        self.assertIn("run: kernel panic (exit 37)", lines)
        self.assertEqual(lines[-1], "1 passed, 3 failed")

    def test_timeout_kills(self):
        self.fake_qemu(TIMEOUT_MID, 33, sleep=30)
        rc, lines = self.main("--timeout", "1")
        self.assertEqual(rc, 1)
        self.assertIn("not ok 3 rcu_stall # TIMEOUT", lines)
        self.assertIn("run: TIMEOUT after 1 s: QEMU killed", lines)
        self.assertEqual(lines[-1], "2 passed, 3 failed")

    def test_skip_counts_as_success(self):
        self.fake_qemu(SKIP, 33)
        rc, lines = self.main()
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], "1 passed, 0 failed, 2 skipped")

    def test_33_with_missing_results(self):
        self.fake_qemu("KTAP version 1\n1..2\nok 1 a\n", 33)
        rc, lines = self.main()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], "1 passed, 1 failed")

    def test_bad_icount_refused(self):
        for bad in (["--icount", "auto"], ["--icount", "11"]):
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = run.main(["--arch", "aarch64", "--kernel", self.kernel] + bad)
            self.assertEqual(rc, 1)
            self.assertIn("give a shift from 0 to 10", out.getvalue())

    def test_aarch64_boot_files(self):
        """The Image beside the log, padded to image_size; the initrd holds
        each module with its argv; QEMU is handed both."""
        self.fake_tool("qemu-system-aarch64",
                       '#!/bin/sh\necho "$@" > "$(dirname "$0")/qemu-args"\n'
                       'printf "Quiescent 0.1\\nuser: 1 boot module (programs)\\n"\n'
                       'printf "KTAP version 1\\n1..1\\nok 1 a\\n"\nexit 33\n')
        prog = os.path.join(self.dir, "hello.elf")
        with open(prog, "wb") as f:
            f.write(b"\x7fELF-program")
        rc, lines = self.main("--module", f"{prog} user/hello a b")
        self.assertEqual(rc, 0, lines)
        sub = os.path.join(self.dir, "sub")
        with open(os.path.join(self.dir, "qemu-args")) as f:
            qargs = f.read().split()
        self.assertEqual(qargs[qargs.index("-kernel") + 1], os.path.join(sub, "test.img"))
        self.assertEqual(qargs[qargs.index("-initrd") + 1], os.path.join(sub, "test.initrd"))
        with open(os.path.join(sub, "test.img"), "rb") as f:
            self.assertEqual(len(f.read()), 4096)	# FAKE_OBJCOPY's image_size
        with open(os.path.join(sub, "test.initrd"), "rb") as f:
            self.assertEqual(f.read(), arm64_image.pack_initrd(
                [(b"\x7fELF-program", "user/hello a b")]))

    def test_aarch64_missing_module_refused(self):
        self.fake_qemu(ALL_PASS, 33)	# would pass: the runner must not start it
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = run.main(["--arch", "aarch64", "--kernel", self.kernel, "--mode", "test",
                           "--module", os.path.join(self.dir, "nothere.elf") + " x"])
        lines = out.getvalue().splitlines()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], "0 passed, 1 failed")
        self.assertIn("could not make the boot files", lines[0])
        self.assertIn("nothere.elf not found", lines[0])

    def test_kvm_refused_on_aarch64(self):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = run.main(["--arch", "aarch64", "--kernel", self.kernel, "--accel", "kvm"])
        self.assertEqual(rc, 1)
        self.assertIn("impossible", out.getvalue())


if __name__ == "__main__":
    unittest.main()
