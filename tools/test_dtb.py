#!/usr/bin/env python3
"""Boot the AArch64 kernel with hostile device trees, one per boot.

    tools/test_dtb.py [--kernel build/aarch64/kernel.elf] [--smp 2]

Each tree is QEMU virt's own (dumped with -machine dumpdtb) with one thing
changed in place, and goes in through make's DTB variable (tools/run.py
--dtb).  Each boot must print the kernel's refusal and then run a few
tests normally: a device the tree puts outside the window the kernel maps
is refused, and QEMU virt's address, where the device really is, is used.
(Before the refusal, a UART outside the window faulted on the first
character, and the panic report faulted in turn, for ever, with no output:
such a boot ran into its timeout.)  The last case is QEMU's dump as it
comes, padded to 1 MiB: the runner must pack it, or QEMU finds no room
for it below the kernel and the kernel boots without a device tree.

QEMU writes /chosen and the memory node of any tree it is given, so the
memory map cannot be forged this way: the fuzz cases and the kernel's own
test of the memory map cover that (docs/fuzz.md).
Prints "N passed, N failed" last; exit status 0 when all passed.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "lib"))
import dtb  # noqa: E402

TESTS = "smp_every*"
WINDOW = "is outside the device window the kernel maps (0x200000 to 0x40000000)"


def moved(path, addr):
    """The tree with the first reg entry of node `path` at addr (2 + 2 cells)."""
    def edit(blob):
        reg = bytearray(dtb.get_prop(blob, path, "reg"))
        struct.pack_into(">II", reg, 0, addr >> 32, addr & 0xffffffff)
        return dtb.set_prop(blob, path, "reg", bytes(reg))
    return edit


# (name, how the tree is changed, lines the console must show)
CASES = [
    ("uart-in-ram-above-the-window", moved("/pl011@9000000", 0x50000000),
     [f"fdt: the UART at 0x50000000 (0x1000 bytes) {WINDOW}: refused, using QEMU virt's "
      "at 0x9000000"]),
    ("uart-above-4-gib", moved("/pl011@9000000", 0x100000000),
     ["fdt: the UART at 0x100000000 (0x1000 bytes) is outside the device window"]),
    ("uart-in-page-0", moved("/pl011@9000000", 0x0),
     ["fdt: the UART at 0 (0x1000 bytes) is outside the device window"]),
    ("gic-distributor-above-4-gib", moved("/intc@8000000", 0x100000000),
     ["fdt: the GIC distributor at 0x100000000 (0x10000 bytes) is outside the device window"]),
]


def boot(args, tree, name):
    path = os.path.join(args.logdir, name + ".dtb")
    with open(path, "wb") as f:
        f.write(tree)
    cmd = [sys.executable, os.path.join(TOOLS, "run.py"), "--arch", "aarch64",
           "--kernel", args.kernel, "--smp", str(args.smp), "--mode", "test",
           "--timeout", str(args.timeout), "--log", os.path.join(args.logdir, name + ".log"),
           "--dtb", path, "--cmdline", f"ktest.filter={TESTS}"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    return r.returncode, r.stdout


def check(name, rc, out, want, unwanted=()):
    missing = [w for w in want if w not in out]
    seen = [u for u in unwanted if u in out]
    ok = rc == 0 and not missing and not seen
    print(f"{'ok' if ok else 'not ok'} {name}")
    if not ok:
        print("\n".join("    | " + line for line in out.splitlines()[-20:]))
        for w in missing:
            print(f"    missing: {w}")
        for u in seen:
            print(f"    unexpected: {u}")
        if rc:
            print(f"    the run failed (exit {rc})")
    return ok


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--kernel", default=os.path.join(ROOT, "build", "aarch64", "kernel.elf"))
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--timeout", type=int, default=120)
    args = p.parse_args()
    passed = failed = 0
    with tempfile.TemporaryDirectory() as d:
        args.logdir = d
        qemu = dtb.qemu_virt(args.smp)
        for name, edit, want in CASES:
            rc, out = boot(args, edit(qemu), name)
            ok = check(name, rc, out, want)
            passed, failed = passed + ok, failed + (not ok)
        # QEMU's dump as it comes: padded to 1 MiB.
        padded = qemu + bytes((1 << 20) - len(qemu))
        padded = padded[:4] + struct.pack(">I", 1 << 20) + padded[8:]
        rc, out = boot(args, padded, "dumped-tree-padded-to-1-mib")
        ok = check("dumped-tree-padded-to-1-mib", rc, out,
                   [f"smp: Brought up 1 node, {args.smp} CPUs"], ["fdt: no device tree"])
        passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
