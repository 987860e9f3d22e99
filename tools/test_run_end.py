#!/usr/bin/env python3
"""How a run ends when the kernel gives no exit code: QEMU exits with
status 0 both when a person quits it (Ctrl-A X) and when the machine
resets (-no-reboot), and the runner tells them apart by QEMU's own
shutdown reason (tools/run.py, ShutdownReason).  Two boots:

  quit   `make run DEMO=none` on a pseudo-terminal, Ctrl-A X at the
         monitor's prompt: make must exit 0, with the runner's one calm
         line and no error of make's.
  reset  a kernel of a few instructions that triple-faults at once (an
         empty IDT, then int3), booted by tools/run.py through GRUB in run
         mode and in test mode: each must fail, naming the reset.

    tools/test_run_end.py [--only quit|reset] [--arch x86_64|aarch64]

The reset boot is x86-64's (GRUB loads the multiboot2 kernel below);
--arch picks the architecture of the quit boot.  Exit status 0 when every
check passed.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_demos import BOOT_BUDGET_S, ROOT, Pty, verdict  # noqa: E402

QUIT_LINE = "run: you quit QEMU (Ctrl-A X)"
RESET_WORDS = "QEMU's reason: guest-reset"

# A multiboot2 kernel whose first instructions triple-fault: an IDT of
# limit 0 makes int3 a #GP, then a double fault, then the reset.
TRIPLE_FAULT_S = """\
	.text
	.align 8
header:
	.long 0xe85250d6, 0, header_end - header
	.long -(0xe85250d6 + (header_end - header))
	.short 0, 0
	.long 8
header_end:
	.code32
	.globl _start
_start:
	lidt empty_idt
	int3
empty_idt:
	.word 0
	.long 0
"""


def test_quit(arch, problems):
    p = Pty(["make", "-s", "run", f"ARCH={arch}", "SMP=2", "DEMO=none"])
    try:
        if p.expect("quiescent> ", BOOT_BUDGET_S) < 0:
            problems.append("quit: the monitor prompt never came")
            return
        p.send("\x01x")
        p.expect(QUIT_LINE, 60)
        p.read(2)
        p.reap(60)
        out = p.out[p.out.find("quiescent> "):]
        if p.status != 0:
            problems.append(f"quit: make run ended with status {p.status} after Ctrl-A X")
        if QUIT_LINE not in out:
            problems.append(f"quit: no {QUIT_LINE!r} line")
        for bad in ("make: ***", "Error", "triple fault", "without the kernel's exit code"):
            if bad in out:
                problems.append(f"quit: the end says {bad!r}:\n{out[-600:]}")
    finally:
        p.kill()


def test_reset(problems):
    work = os.path.join(ROOT, "build", "test_run_end")
    os.makedirs(work, exist_ok=True)
    src, obj, elf = (os.path.join(work, f"triple_fault.{x}") for x in ("S", "o", "elf"))
    with open(src, "w") as f:
        f.write(TRIPLE_FAULT_S)
    subprocess.run(["as", "--32", src, "-o", obj], check=True)
    subprocess.run(["ld", "-m", "elf_i386", "-Ttext=0x200000", "-e", "_start", obj, "-o", elf],
                   check=True)
    for mode in ("run", "test"):
        r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "run.py"),
                            "--arch", "x86_64", "--kernel", elf, "--smp", "1", "--mem", "32M",
                            "--mode", mode, "--timeout", "120"],
                           stdin=subprocess.DEVNULL, capture_output=True, text=True)
        out = r.stdout + r.stderr
        if r.returncode == 0:
            problems.append(f"reset: --mode {mode}: a triple fault exited 0:\n{out}")
        if RESET_WORDS not in out or "triple fault" not in out:
            problems.append(f"reset: --mode {mode}: the end does not name the reset:\n{out}")
        if QUIT_LINE in out:
            problems.append(f"reset: --mode {mode}: taken for a person's quit:\n{out}")


def main(argv=None):
    ap = argparse.ArgumentParser(description="How a run ends without the kernel's exit code.")
    ap.add_argument("--only", choices=["quit", "reset"])
    ap.add_argument("--arch", default="x86_64", choices=["x86_64", "aarch64"])
    args = ap.parse_args(argv)
    problems = []
    if args.only in (None, "reset"):
        test_reset(problems)
    if args.only in (None, "quit"):
        test_quit(args.arch, problems)
    return verdict("test_run_end", problems)


if __name__ == "__main__":
    sys.exit(main())
