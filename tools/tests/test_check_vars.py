#!/usr/bin/env python3
"""Tests of tools/check-vars.sh, the make variables checked before anything
is built or booted: python3 tools/tests/test_check_vars.py."""
import os
import subprocess
import unittest

SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                      "check-vars.sh")


def check(mem="128M", *counts, machine="pc", max_smp="255", min_mem="10"):
    r = subprocess.run(["sh", SCRIPT, machine, max_smp, min_mem, mem, *counts],
                       capture_output=True, text=True)
    return r.stdout.strip(), r.stderr.strip()


class CheckVars(unittest.TestCase):
    def assert_says(self, want, mem="128M", *counts, **kw):
        out, err = check(mem, *counts, **kw)
        self.assertEqual(err, "", "the shell complained before the refusal")
        if want:
            self.assertIn(want, out)
            self.assertEqual(len(out.splitlines()), 1)
        else:
            self.assertEqual(out, "")

    def test_good_values_pass(self):
        for mem in ("10M", "128M", "512", "2G", "5G", "0128M", "1024G"):
            self.assert_says("", mem, "SMP=4")
        self.assert_says("", "128M", "SMP=255", "TORTURE_SMP=1 2 4 8 16", "BENCH_SMP=1 2 4")
        self.assert_says("", "128M", "SMP=512", machine="virt", max_smp="512")

    def test_cpu_counts_that_are_not_whole_numbers(self):
        for smp, shown in (("0", "0"), ("abc", "abc"), ("08", "08"), ("", ""),
                           (" ", "' '"), ("*", "*"), ("1.5", "1.5"), ("-1", "-1"),
                           ("1 2", "'1 2'")):
            self.assert_says(f"SMP={shown}: not a CPU count", "128M", f"SMP={smp}")
        self.assert_says("BENCH_SMP=x: not a CPU count", "128M", "BENCH_SMP=1 x")

    def test_counts_beyond_the_machine_whatever_their_length(self):
        for smp in ("256", "300", "1000", "99999999999999999999",
                    "18446744073709551617"):
            self.assert_says(f"SMP={smp}: the QEMU pc machine takes at most 255 CPUs",
                             "128M", f"SMP={smp}")

    def test_memory_sizes(self):
        self.assert_says("MEM=1M: too little memory", "1M", "SMP=4")
        self.assert_says("MEM=9M: too little memory", "9M", "SMP=4")
        self.assert_says("MEM=1.5G: not a memory size", "1.5G", "SMP=4")
        self.assert_says("MEM=: not a memory size", "", "SMP=4")
        # The shell's arithmetic wraps beyond 64 bits: such sizes once read as "too little".
        for mem in ("1025G", "99999999999999999999G", "18446744073709551616M",
                    "99999999999999999999"):
            self.assert_says(f"MEM={mem}: more than 1 TiB", mem, "SMP=4")


class MakeRefuses(unittest.TestCase):
    """The Makefile computes TIMEOUT from SMP before the check runs: a wrong
    SMP must reach the refusal without a shell error first."""

    def test_refusal_is_the_only_line(self):
        root = os.path.dirname(os.path.dirname(SCRIPT))
        for smp, want in ((" ", "SMP=: not a CPU count"), ("08", "SMP=08: not a CPU count"),
                          ("1 2", "SMP='1 2': not a CPU count"),
                          ("99999999999999999999", "takes at most 255 CPUs")):
            r = subprocess.run(["make", "-n", "--no-print-directory", "test", f"SMP={smp}"],
                               cwd=root, capture_output=True, text=True)
            self.assertNotEqual(r.returncode, 0)
            self.assertEqual(r.stdout, "")
            lines = r.stderr.strip().splitlines()
            self.assertEqual(len(lines), 1, r.stderr)
            self.assertIn(want, lines[0])


if __name__ == "__main__":
    unittest.main()
