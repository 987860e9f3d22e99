#!/usr/bin/env python3
"""The x86-64 kernel's way out of whatever local APIC mode firmware left a
CPU in (arch/x86_64/apic_mode.c), compiled for the host and checked
against the transitions the architecture allows (Intel SDM vol. 3,
"x2APIC State Transitions"): python3 tools/tests/test_apic_mode.py.

QEMU 7.2's TCG has no x2APIC, so no boot can show firmware handing a CPU
over in x2APIC mode: this is that code's test."""
import os
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EN, EXTD, BSP = 1 << 11, 1 << 10, 1 << 8

DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include "apic_mode.h"
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		u64 w[2];
		int n = apic_to_xapic(strtoull(argv[i], NULL, 0), w);
		printf("%d", n);
		for (int k = 0; k < n; k++)
			printf(" %llu", (unsigned long long)w[k]);
		printf("\n");
	}
	return 0;
}
"""


def mode(v):
    return {(0, 0): "disabled", (EN, 0): "xapic", (EN, EXTD): "x2apic"}.get(
        (v & EN, v & EXTD), "invalid")


# The changes IA32_APIC_BASE may make (anything else faults).
ALLOWED = {("disabled", "disabled"), ("disabled", "xapic"), ("xapic", "xapic"),
           ("xapic", "x2apic"), ("xapic", "disabled"), ("x2apic", "x2apic"),
           ("x2apic", "disabled")}


class ApicToXapic(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cc = shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
        if not cc:
            raise unittest.SkipTest("no C compiler")
        cls.dir = tempfile.TemporaryDirectory()
        src = os.path.join(cls.dir.name, "driver.c")
        with open(src, "w") as f:
            f.write(DRIVER)
        cls.exe = os.path.join(cls.dir.name, "driver")
        subprocess.run([cc, "-std=gnu11", "-Wall", "-Werror", "-I", os.path.join(ROOT, "kernel"),
                        "-I", os.path.join(ROOT, "lib"), "-I", os.path.join(ROOT, "arch", "x86_64"),
                        "-o", cls.exe, src, os.path.join(ROOT, "arch", "x86_64", "apic_mode.c")],
                       check=True)

    @classmethod
    def tearDownClass(cls):
        cls.dir.cleanup()

    def sequences(self, values):
        out = subprocess.run([self.exe] + [str(v) for v in values], capture_output=True,
                             text=True, check=True).stdout.splitlines()
        return [[int(x) for x in line.split()[1:]] for line in out]

    def test_every_mode_ends_in_xapic_by_allowed_steps(self):
        starts = []
        for base in (0xfee00000, 0xfec00000, 0x123456000):
            for bsp in (0, BSP):
                for bits in (0, EN, EN | EXTD):
                    starts.append(base | bsp | bits)
        for start, writes in zip(starts, self.sequences(starts)):
            with self.subTest(msr=hex(start)):
                state = start
                for w in writes:
                    self.assertIn((mode(state), mode(w)), ALLOWED,
                                  f"{mode(state)} -> {mode(w)} faults")
                    state = w
                self.assertEqual(mode(state), "xapic")
                self.assertEqual(state & ~(EN | EXTD), start & ~(EN | EXTD),
                                 "the base address or the BSP flag changed")
                if mode(start) == "xapic":
                    self.assertEqual(writes, [], "an xAPIC is left alone")


if __name__ == "__main__":
    unittest.main()
