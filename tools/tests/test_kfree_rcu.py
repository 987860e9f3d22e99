#!/usr/bin/env python3
"""kfree_rcu() refuses, at compile time, an rcu_head at offset 4096 or more.

kfree_rcu(ptr, member) passes the member's offset in place of a callback
(kernel/rcu/rcupdate.h): a "function" below KFREE_RCU_MAX_OFFSET is taken
for an offset.  An rcu_head further into its structure would be called as
a function, so the macro holds a static assertion; these tests compile
small files with the kernel's own flags (build/<arch>/flags, written by
make all) and check that it fires exactly from 4096 on.

python3 tools/host_tests.py (or run this file); an architecture that was
never built is skipped.
"""
import os
import shlex
import subprocess
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPILERS = {"x86_64": "gcc", "aarch64": "aarch64-linux-gnu-gcc"}
MESSAGE = "kfree_rcu(): the rcu_head must lie in the first 4096"

SOURCE = """
#include "kernel.h"

struct victim {
	char pad[%d];
	struct rcu_head rh;
};

void free_it(struct victim *v)
{
	kfree_rcu(v, rh);
}
"""


def compile_flags(arch):
    """The kernel's C flags for arch, without dependency output; None if never built."""
    path = os.path.join(ROOT, "build", arch, "flags")
    if not os.path.exists(path):
        return None
    with open(path) as f:
        words = shlex.split(f.read())
    return [w for w in words if w not in ("-MMD", "-MP")]


def compile_snippet(arch, pad):
    """Compiles SOURCE with the rcu_head after pad bytes: (ok, compiler output)."""
    cmd = [COMPILERS[arch]] + compile_flags(arch) + ["-fsyntax-only", "-x", "c", "-"]
    p = subprocess.run(cmd, input=SOURCE % pad, cwd=ROOT, capture_output=True, text=True)
    return p.returncode == 0, p.stderr


class KfreeRcuOffset(unittest.TestCase):
    def check_arch(self, arch):
        if compile_flags(arch) is None:
            self.skipTest(f"build/{arch} not built (make all ARCH={arch})")
        ok, err = compile_snippet(arch, 4088)	# rcu_head at 4088: the last place allowed
        self.assertTrue(ok, f"an rcu_head at offset 4088 should compile:\n{err}")
        for pad in (4096, 8192):
            ok, err = compile_snippet(arch, pad)
            self.assertFalse(ok, f"an rcu_head at offset {pad} compiled")
            self.assertIn(MESSAGE, err, f"offset {pad}: not the static assertion:\n{err}")

    def test_x86_64(self):
        self.check_arch("x86_64")

    def test_aarch64(self):
        self.check_arch("aarch64")


if __name__ == "__main__":
    unittest.main()
