#!/usr/bin/env python3
"""make profile's tools: the classes of costly instructions, the plugin's
file and the console's window lines, the attribution of each address,
and end to end on a known loop -- a bare-metal program for each
architecture (tools/profile/knownloop-*.S) whose instructions per round,
per function and per class are known by construction -- booted under
QEMU with the plugin (tools/profile/insncount.c), then analyzed by
tools/profile.py as make profile analyzes the kernel.

    python3 tools/host_tests.py (all host tests), or python3 tools/tests/test_profile.py
"""

import contextlib
import importlib.util
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
import profile_data  # noqa: E402
from profile_classes import CLASS_NAMES, classify  # noqa: E402
from profile_report import summary_line  # noqa: E402

# tools/profile.py by its path: the name "profile" is also the standard library's.
_spec = importlib.util.spec_from_file_location("profile_tool", os.path.join(TOOLS, "profile.py"))
profile_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(profile_tool)

ROUNDS = 1000


class Classes(unittest.TestCase):
    X86 = {
        "lock cmpxchg %edx,0x8(%rsi)": "atomic_rmw",
        "lock xadd %ecx,(%rdi)": "atomic_rmw",
        "lock addq $0x1,0x442e6c(%rip)        # 55f2a8 <nr_messages>": "atomic_rmw",
        "xchg   %eax,0x102234": "atomic_rmw",
        "xchg   %rax,(%rdx)": "atomic_rmw",
        "lock addl $0x0,-0x4(%rsp)": "full_fence",
        "lock orq $0x0,(%rsp)": "full_fence",
        "mfence": "full_fence",
        "fxsave64 (%rsp)": "fp_save",
        "xsaveopt64 (%rdi)": "fp_save",
        "fxrstor64 (%rdi)": "fp_restore",
        "xrstor (%rdi)": "fp_restore",
        "wrmsr": "msr_write",
        "swapgs": "swapgs",
        "syscall": "priv_change",
        "sysretq": "priv_change",
        "iretq": "priv_change",
        "cli": "irq_mask",
        "sti": "irq_mask",
        "popfq": "irq_mask",
        "mov    %rax,%cr3": "pt_base_write",
        "rdtsc": "clock_read",
        "invlpg (%rax)": "tlb_flush",
        # not costly, or not that class:
        "xchg   %ax,%ax": None,
        "cmpxchg %edx,(%rsi)": None,
        "lock addl $0x1,-0x4(%rsp)": "atomic_rmw",
        "mov    %cr3,%rax": None,
        "pushf": None,
        "rdmsr": None,
        "lfence": None,
        "mov    0x8(%rsp),%rax": None,
    }
    A64 = {
        "stxr\tw2, x1, [x20]": "atomic_rmw",
        "stlxr\tw1, w0, [x19]": "atomic_rmw",
        "ldaddal\tx3, x4, [x20]": "atomic_rmw",
        "casal\tw1, w2, [x0]": "atomic_rmw",
        "swpl\tx0, x1, [x2]": "atomic_rmw",
        "dmb\tish": "full_fence",
        "dmb\tsy": "full_fence",
        "dsb\tishst": "full_fence",
        "msr\ttpidr_el0, x2": "msr_write",
        "msr\tsp_el0, x0": "msr_write",
        "svc\t#0x0": "priv_change",
        "eret": "priv_change",
        "msr\tdaifset, #0x3": "irq_mask",
        "msr\tdaif, x23": "irq_mask",
        "msr\tttbr0_el1, x0": "pt_base_write",
        "mrs\tx0, cntvct_el0": "clock_read",
        "tlbi\tvae1is, x0": "tlb_flush",
        "b.ne\t40080054 <kl_loop>  // b.any": None,
        "ldxr\tx1, [x20]": None,
        "dmb\tishld": None,
        "dmb\tishst": None,
        "mrs\tx6, daif": None,
        "mrs\tx7, ttbr0_el1": None,
        "stp\tx29, x30, [sp, #-16]!": None,
        "isb": None,
    }

    def test_x86(self):
        for text, want in self.X86.items():
            self.assertEqual(classify("x86", text), want, text)

    def test_aarch64(self):
        for text, want in self.A64.items():
            self.assertEqual(classify("aarch64", text), want, text)

    def test_aarch64_register_file(self):
        """A whole register file's 16 pairs is one save; a struct copy's pair is none."""
        saves = [f"stp\tq{n}, q{n + 1}, [x2, #{16 * n}]" for n in range(0, 32, 2)]
        saves[0] = "stp\tq0, q1, [x2]"
        after = lambda k: saves[k] if k < len(saves) else None  # noqa: E731
        self.assertEqual(classify("aarch64", saves[0], after), "fp_save")
        loads = [s.replace("stp", "ldp") for s in saves]
        self.assertEqual(classify("aarch64", loads[0], lambda k: loads[k]), "fp_restore")
        self.assertIsNone(classify("aarch64", saves[1], lambda k: None))
        self.assertIsNone(classify("aarch64", "stp\tq0, q1, [x20]", lambda k: "ret"))
        other_base = saves[:15] + ["stp\tq30, q31, [x3, #480]"]
        self.assertIsNone(classify("aarch64", saves[0], lambda k: other_base[k]))

    def test_names_are_stable(self):
        """Scripts (issue 42's targets) read these names: a rename breaks them."""
        self.assertEqual(CLASS_NAMES, ("atomic_rmw", "full_fence", "fp_save", "fp_restore",
                                       "msr_write", "swapgs", "priv_change", "irq_mask",
                                       "pt_base_write", "clock_read", "tlb_flush"))


COUNTS = """insncount 1 x86_64
window 1
1000 3 0f05
1004 2 90
end 1 5
window 2
1000 1 0f05
end 2 1
windows 2
"""


class PluginFile(unittest.TestCase):
    def test_windows(self):
        target, windows = profile_data.parse_counts(COUNTS.splitlines())
        self.assertEqual(target, "x86_64")
        self.assertEqual(windows, [{(0x1000, "0f05"): 3, (0x1004, "90"): 2},
                                   {(0x1000, "0f05"): 1}])

    def test_broken_files_refused(self):
        for bad, why in ((COUNTS.replace("end 1 5", "end 1 6"), "add up"),
                         (COUNTS.replace("windows 2\n", ""), "ends early"),
                         (COUNTS.replace("windows 2", "windows 2 open"), "never closed"),
                         (COUNTS.replace("windows 2", "windows 2 stray 1"), "out of order"),
                         ("insncount 2 x86_64\n", "version 1"),
                         (COUNTS.replace("1004 2 90", "1004 zz"), "unreadable")):
            with self.assertRaises(profile_data.ProfileError) as e:
                profile_data.parse_counts(bad.splitlines())
            self.assertIn(why, str(e.exception))

    def test_console(self):
        log = ["# PROFILE op=syscall n=1000 program=tests/user/helpers/nullcall",
               "# BENCH bench=user op=syscall timed=loop cpus=1 rep=0 metric=ns "
               "value=399.451 unit=ns",
               "# PROFILE op=ipc_threads n=1000 program=tests/user/helpers/pingpong",
               "# BENCH bench=ipc op=ipc timed=spawn cpus=1 rep=0 metric=ns value=1.0 unit=ns"]
        named = profile_data.parse_console(log)
        self.assertEqual([(n["op"], n["n"], n["timed_ns"]) for n in named],
                         [("syscall", 1000, 399.451), ("ipc_threads", 1000, None)])


class FakeDisassembly(profile_data.Disassembly):
    def __init__(self, insns, name=None, arch="x86_64"):
        self.arch, self.name, self.insns = arch, name, insns


class Attribution(unittest.TestCase):
    def test_kernel_program_and_strangers(self):
        kernel = FakeDisassembly({0x100: ("spin_lock", "f00fc10f", "lock xadd %ecx,(%rdi)"),
                                  0x104: ("spin_lock", "c3", "ret")})
        prog = FakeDisassembly({0x8000: ("q_syscall", "0f05", "syscall")}, "pingpong")
        window = {(0x100, "f00fc10f"): 28, (0x104, "c3"): 28, (0x8000, "0f05"): 4,
                  (0x104, "90"): 2, (0x9000, "0f05"): 6}
        op = profile_data.attribute(window, {"op": "x", "n": 2, "program": "p"}, kernel, prog)
        self.assertEqual(op.total, 68)
        self.assertEqual(op.functions["spin_lock"], {"insns": 56, "user": False,
                                                     "atomic_rmw": 28})
        self.assertEqual(op.functions["pingpong:q_syscall"]["priv_change"], 4)
        self.assertTrue(op.functions["pingpong:q_syscall"]["user"])
        self.assertEqual((op.mismatched, op.unknown), (2, 6))
        self.assertEqual(op.classes["atomic_rmw"], 28)
        line = summary_line("x86_64", op)
        self.assertIn(" insns=34.00 user=2.00 kernel=32.00 atomic_rmw=14.00 ", line)
        self.assertTrue(line.startswith("PROFILE arch=x86_64 op=x n=2 "))


class Problems(unittest.TestCase):
    """make profile fails when its account is not whole, or disagrees with the clock."""

    def op(self, total, timed, **kw):
        op = profile_data.Operation("syscall", 10, "p", timed)
        op.total = total
        for k, v in kw.items():
            setattr(op, k, v)
        return op

    def test_whole_and_agreeing(self):
        self.assertEqual(profile_tool.problems([self.op(3990, 399.4)]), [])
        self.assertEqual(profile_tool.problems([self.op(3990, None)]), [])
        # 10 rounds: the clock's one system call out and back is 40 per round
        self.assertEqual(profile_tool.problems([self.op(3990, 439.0)]), [])

    def test_each_problem_named(self):
        self.assertIn("no window", profile_tool.problems([])[0])
        self.assertIn("other bytes", profile_tool.problems([self.op(3990, None, mismatched=2)])[0])
        self.assertIn("no ELF holds", profile_tool.problems([self.op(3990, None, unknown=1)])[0])
        self.assertIn("clock", profile_tool.problems([self.op(3990, 550.0)])[0])


# ---------------------------------------------------------------- end to end

def have(*tools):
    return all(shutil.which(t) for t in tools)


class KnownLoop(unittest.TestCase):
    """The plugin and the tool on a loop whose counts are known: every count
    must come out exactly (docs/benchmarks.md, "make profile")."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="profile-test-")
        if not have("make", "cc"):
            raise unittest.SkipTest("no host compiler")
        r = subprocess.run(["make", "-s", "-C", ROOT, f"BUILD={cls.tmp}",
                            f"{cls.tmp}/profile/insncount.so"], capture_output=True, text=True)
        if r.returncode:
            raise AssertionError(f"the plugin did not build:\n{r.stdout}{r.stderr}")
        cls.plugin = os.path.join(cls.tmp, "profile", "insncount.so")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def boot(self, arch):
        """The known loop's ELF, then the analysis's JSON."""
        d = os.path.join(self.tmp, arch)
        os.makedirs(d)
        src = os.path.join(TOOLS, "profile", f"knownloop-{arch}.S")
        elf, obj = os.path.join(d, "loop.elf"), os.path.join(d, "loop.o")
        if arch == "x86":
            build = [["cc", "-m32", "-c", "-I", os.path.join(ROOT, "lib"),
                      "-I", os.path.join(ROOT, "arch", "x86_64", "include"), "-o", obj, src],
                     ["ld", "-m", "elf_i386", "-Ttext=0x100000", "-e", "_start", "-o", elf, obj]]
            qemu = ["qemu-system-x86_64", "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
            objdump, target = "objdump", "x86_64"
        else:
            build = [["aarch64-linux-gnu-gcc", "-c", "-I", os.path.join(ROOT, "lib"),
                      "-I", os.path.join(ROOT, "arch", "aarch64", "include"), "-o", obj, src],
                     ["aarch64-linux-gnu-ld", "-Ttext=0x40080000", "-e", "_start", "-o", elf, obj]]
            qemu = ["qemu-system-aarch64", "-M", "virt", "-cpu", "cortex-a76",
                    "-semihosting-config", "enable=on,target=native"]
            objdump, target = "aarch64-linux-gnu-objdump", "aarch64"
        if not have(build[0][0], build[1][0], qemu[0], objdump):
            self.skipTest(f"no {arch} tools")
        for cmd in build:
            subprocess.run(cmd, check=True)
        counts, log = os.path.join(d, "insncount.out"), os.path.join(d, "console.log")
        r = subprocess.run(qemu + ["-display", "none", "-no-reboot", "-monitor", "none",
                                   "-icount", "shift=0,sleep=off", "-kernel", elf,
                                   "-serial", f"file:{log}",
                                   "-plugin", f"{self.plugin},out={counts}"],
                           capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 33, f"the loop did not end as it should: {r.stderr}")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            rc = profile_tool.main(["analyze", "--arch", target, "--kernel", elf, "--counts",
                                    counts, "--log", log, "--out", d, "--objdump", objdump])
        self.assertEqual(rc, 0, out.getvalue())
        self.assertIn(f"PROFILE arch={target} op=loop n={ROUNDS} ", out.getvalue())
        with open(os.path.join(d, "profile.json"), encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(len(doc["ops"]), 1)
        return doc["ops"][0]

    def check(self, op, functions, classes):
        self.assertEqual(op["n"], ROUNDS)
        self.assertEqual((op["unknown"], op["mismatched"]), (0, 0))
        self.assertEqual({f["name"]: f["insns"] for f in op["functions"]}, functions)
        self.assertEqual(op["insns"], sum(functions.values()))
        want = dict.fromkeys(CLASS_NAMES, 0)
        want.update({c: n * ROUNDS for c, n in classes.items()})
        self.assertEqual(op["classes"], want)

    def test_x86(self):
        op = self.boot("x86")
        self.check(op, {"_start": 1, "kl_loop": 23 * ROUNDS + 1, "kl_call": 3 * ROUNDS},
                   {"atomic_rmw": 2, "full_fence": 2, "fp_save": 1, "fp_restore": 1,
                    "msr_write": 1, "irq_mask": 3, "pt_base_write": 1, "clock_read": 1,
                    "priv_change": 1})
        kl_loop = next(f for f in op["functions"] if f["name"] == "kl_loop")
        self.assertEqual(kl_loop["atomic_rmw"], 2 * ROUNDS)

    def test_aarch64(self):
        op = self.boot("aarch64")
        self.check(op, {"_start": 1, "kl_loop": 56 * ROUNDS + 1, "kl_call": 3 * ROUNDS,
                        "vectors": ROUNDS},
                   {"atomic_rmw": 2, "full_fence": 2, "fp_save": 1, "fp_restore": 1,
                    "msr_write": 1, "irq_mask": 2, "pt_base_write": 1, "clock_read": 1,
                    "priv_change": 2})


if __name__ == "__main__":
    unittest.main()
