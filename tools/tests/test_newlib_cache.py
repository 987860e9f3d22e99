#!/usr/bin/env python3
"""Tests of tools/newlib.sh, newlib's cache outside the tree (README.md,
"The first build"): python3 tools/tests/test_newlib_cache.py.

A stand-in builder (a few files, and a line in a log per build) and a
stand-in tarball and compiler make each build instant, so the key's every
part can be changed and the rebuilds counted.  One test drives the real
Makefile's rules in a scratch folder, with the same stand-ins."""
import os
import shutil
import subprocess
import tempfile
import threading
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(TOOLS)
SCRIPT = os.path.join(TOOLS, "newlib.sh")

# Builds PREFIX as tools/build-newlib.sh would, in miniature: a libc.a
# whose bytes depend on the flags, a libm.a and a header; one log line per
# build; FAKE_FAIL=1 fails half-way, FAKE_SLEEP=S takes S seconds.
BUILDER = r"""#!/bin/bash
set -e
arch=$1 prefix=$2; shift 3; shift
echo "$arch $*" >>"$FAKE_LOG"
sleep "${FAKE_SLEEP:-0}"
t=$arch-elf
rm -rf "$prefix"; mkdir -p "$prefix/$t/lib" "$prefix/$t/include"
echo "libc for $*" >"$prefix/$t/lib/libc.a"
[ "${FAKE_FAIL:-0}" = 1 ] && { echo "build-newlib: make failed" >&2; exit 1; }
echo "libm" >"$prefix/$t/lib/libm.a"
echo "int printf();" >"$prefix/$t/include/stdio.h"
echo "$*" >"$prefix/.built"
"""

TOOL = """#!/bin/sh
case "$1" in --version) echo "{name} (Fake) {version}";; -dumpmachine) echo fake-linux-gnu;; esac
"""


class NewlibCache(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="newlib-cache-test.")
        self.cache = os.path.join(self.dir, "cache")
        self.log = os.path.join(self.dir, "builds.log")
        self.builder = self.write("build-newlib.sh", BUILDER)
        self.tarball = self.write("newlib.tar.xz", "source 1\n")
        self.set_compiler("12.2.0")
        self.dest = os.path.join(self.dir, "build", "newlib-x86_64")
        self.env = dict(os.environ, NEWLIB_CACHE_DIR=self.cache, NEWLIB_BUILDER=self.builder,
                        NEWLIB_TARBALL=self.tarball, FAKE_LOG=self.log, NEWLIB_CACHE="1")
        self.env.pop("XDG_CACHE_HOME", None)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def write(self, name, text, mode=0o755):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        os.chmod(path, mode)
        return path

    def set_compiler(self, version):
        for tool in ("gcc", "as"):
            self.write("fake-" + tool, TOOL.format(name=tool, version=version))

    def newlib(self, verb, flags="-O2 -g", dest=None, **env):
        r = subprocess.run(["bash", SCRIPT, verb, "x86_64", dest or self.dest,
                            os.path.join(self.dir, "fake-"), "--", *flags.split()],
                           capture_output=True, text=True, env=dict(self.env, **env))
        return r.returncode, r.stdout + r.stderr

    def install(self, flags="-O2 -g", **env):
        rc, out = self.newlib("install", flags, **env)
        self.assertEqual(rc, 0, out)
        return out

    def builds(self):
        if not os.path.exists(self.log):
            return 0
        with open(self.log) as f:
            return len(f.read().splitlines())

    def libc(self):
        with open(os.path.join(self.dest, "x86_64-elf", "lib", "libc.a")) as f:
            return f.read()

    def entries(self):
        return sorted(e for e in os.listdir(self.cache) if e.startswith("newlib-"))

    def test_built_once_then_linked_from_the_cache(self):
        self.install()
        self.assertEqual(self.builds(), 1)
        self.assertTrue(os.path.islink(self.dest))
        self.assertTrue(os.path.realpath(self.dest).startswith(os.path.realpath(self.cache)))
        self.assertEqual(self.libc(), "libc for -O2 -g\n")
        self.install()
        shutil.rmtree(os.path.dirname(self.dest))  # a fresh clone: only the cache is left
        self.install()
        self.assertEqual(self.builds(), 1, "a valid entry was built again")
        self.assertEqual(self.libc(), "libc for -O2 -g\n")

    def test_each_part_of_the_key_rebuilds(self):
        self.install()
        self.install(flags="-O2 -g -mno-red-zone")
        self.assertEqual(self.builds(), 2, "new flags did not rebuild")
        self.assertEqual(self.libc(), "libc for -O2 -g -mno-red-zone\n")
        self.write("build-newlib.sh", BUILDER + "# --enable-something-new\n")
        self.install()
        self.assertEqual(self.builds(), 3, "a changed tools/build-newlib.sh did not rebuild")
        self.write("newlib.tar.xz", "source 2\n")
        self.install()
        self.assertEqual(self.builds(), 4, "another tarball did not rebuild")
        self.set_compiler("12.3.0")
        self.install()
        self.assertEqual(self.builds(), 5, "another compiler did not rebuild")
        self.assertEqual(len(self.entries()), 5)
        self.set_compiler("12.2.0")
        self.write("newlib.tar.xz", "source 1\n")
        self.write("build-newlib.sh", BUILDER)
        self.install(flags="-O2 -g -mno-red-zone")
        self.assertEqual(self.builds(), 5, "going back to an earlier key rebuilt it")

    def test_key_file_changes_only_with_the_key(self):
        key = self.dest + ".key"
        self.assertEqual(self.newlib("key")[0], 0)
        first = os.stat(key).st_mtime_ns
        with open(key) as f:
            text = f.read()
        for part in ("tarball:", "builder:", "gcc: gcc (Fake) 12.2.0", "binutils:", "flags: -O2 -g"):
            self.assertIn(part, text)
        os.utime(key, ns=(first - 10**9, first - 10**9))
        self.newlib("key")
        self.assertEqual(os.stat(key).st_mtime_ns, first - 10**9, "an unchanged key was rewritten")
        self.newlib("key", flags="-O3")
        self.assertNotEqual(os.stat(key).st_mtime_ns, first - 10**9)

    def test_damaged_entries_are_rebuilt_never_used(self):
        self.install()
        libc = os.path.join(os.path.realpath(self.dest), "x86_64-elf", "lib", "libc.a")
        with open(libc, "r+") as f:
            f.truncate(3)
        out = self.install()
        self.assertEqual(self.builds(), 2, "a truncated libc.a was used")
        self.assertIn("incomplete or damaged", out)
        self.assertEqual(self.libc(), "libc for -O2 -g\n")
        os.remove(os.path.join(os.path.realpath(self.dest), "x86_64-elf", "include", "stdio.h"))
        self.install()
        self.assertEqual(self.builds(), 3, "an entry missing a header was used")
        os.remove(os.path.join(os.path.realpath(self.dest), ".manifest"))
        self.install()
        self.assertEqual(self.builds(), 4, "an entry without its manifest was used")

    def test_a_failed_build_leaves_nothing_to_use(self):
        rc, out = self.newlib("install", FAKE_FAIL="1")
        self.assertNotEqual(rc, 0)
        self.assertIn("failed", out)
        self.assertFalse(os.path.exists(self.dest))
        self.assertEqual(self.entries(), [], "a half-built entry is in the cache")
        self.install()
        self.assertEqual(self.libc(), "libc for -O2 -g\n")

    def test_two_builds_of_one_key_at_once_build_it_once(self):
        other = os.path.join(self.dir, "clone2", "build", "newlib-x86_64")
        results = []

        def run(dest):
            results.append(self.newlib("install", dest=dest, FAKE_SLEEP="1"))
        threads = [threading.Thread(target=run, args=(d,)) for d in (self.dest, other)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual([rc for rc, _ in results], [0, 0], results)
        self.assertEqual(self.builds(), 1)
        self.assertEqual(os.path.realpath(self.dest), os.path.realpath(other))

    def test_without_the_cache_the_build_is_the_clones_own(self):
        self.install(NEWLIB_CACHE="0")
        self.assertTrue(os.path.isdir(self.dest) and not os.path.islink(self.dest))
        self.assertFalse(os.path.exists(self.cache) and self.entries())
        self.install(NEWLIB_CACHE="0")
        self.assertEqual(self.builds(), 1)
        with open(os.path.join(self.dest, "x86_64-elf", "lib", "libm.a"), "w") as f:
            f.write("")
        self.install(NEWLIB_CACHE="0")
        self.assertEqual(self.builds(), 2, "a damaged build of its own was used")
        self.install()
        self.assertTrue(os.path.islink(self.dest), "turning the cache on did not link")

    def test_the_size_cap_prunes_the_least_recently_used(self):
        for flags in ("-O1", "-O2", "-O3"):
            self.install(flags=flags)
        self.assertEqual(len(self.entries()), 3)
        oldest = min(self.entries(), key=lambda e: os.stat(
            os.path.join(self.cache, e, ".manifest")).st_mtime)
        for e in self.entries():
            t = 1_000_000_000 if e == oldest else 2_000_000_000
            os.utime(os.path.join(self.cache, e, ".manifest"), (t, t))
        self.install(flags="-Os", NEWLIB_CACHE_MAX_MB="0")
        self.assertEqual(len(self.entries()), 1, "the cache was not cut to its cap")
        self.assertEqual(self.libc(), "libc for -Os\n", "the entry in use was pruned")
        rc, out = self.newlib("install", NEWLIB_CACHE_MAX_MB="x")
        self.assertNotEqual(rc, 0)
        self.assertIn("not a number", out)

    def test_prune_all_and_list(self):
        self.install()
        r = subprocess.run(["bash", SCRIPT, "list"], capture_output=True, text=True, env=self.env)
        self.assertIn("newlib-x86_64-", r.stdout)
        subprocess.run(["bash", SCRIPT, "prune", "--all"], capture_output=True, env=self.env,
                       check=True)
        self.assertEqual(self.entries(), [])
        self.install()
        self.assertEqual(self.builds(), 2)

    def test_the_makefile_checks_a_library_changed_behind_its_back(self):
        # A scratch tree with the real Makefile: make newlib, then a
        # truncated libc.a in the cache must be noticed by make itself.
        tree = os.path.join(self.dir, "tree")
        os.makedirs(tree)
        for name in ("Makefile", "arch", "user", "tools", "kernel"):
            os.symlink(os.path.join(ROOT, name), os.path.join(tree, name))

        def make():
            r = subprocess.run(["make", "--no-print-directory", "newlib", "newlib-user"],
                               cwd=tree, capture_output=True, text=True, env=self.env)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        make()
        self.assertEqual(self.builds(), 2)  # the kernel's newlib and the user one
        make()
        self.assertEqual(self.builds(), 2)
        libc = os.path.join(tree, "build", "newlib-x86_64", "x86_64-elf", "lib", "libc.a")
        with open(libc, "r+") as f:
            f.truncate(1)
        make()
        self.assertEqual(self.builds(), 3, "make used a truncated libc.a")
        shutil.rmtree(os.path.realpath(os.path.join(tree, "build", "newlib-user-x86_64")))
        make()
        self.assertEqual(self.builds(), 4, "make did not notice the user newlib's entry gone")


if __name__ == "__main__":
    unittest.main()
