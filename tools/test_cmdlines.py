#!/usr/bin/env python3
"""Boot the kernel with malformed and hostile command lines, one per boot.

    tools/test_cmdlines.py --arch x86_64 --kernel build/x86_64/kernel.elf [--smp 2]

Each line of the table must boot, report exactly the words it ignored
("cmdline: ignoring ..."), and then run a test normally.  GRUB's own
parser treats quotes, $ and backslashes specially: tools/mkiso.sh quotes
every word so it arrives literally, and the kernel undoes the backslashes
GRUB adds.

Then the command lines the fuzzer found (tools/fuzz/cmdlines.txt, picked
by tools/fuzz/pick_cmdlines.py) boot the same way, and each is held to a
stronger check: the kernel's "cmdline: ignoring" lines must be exactly
those the host build of the same parser (build/fuzz/fuzz_cmdline, with
the same test.* keys) prints for the line GRUB actually delivered (the
kernel's "Command line:"), not for the words we asked GRUB to pass.
Prints "N passed, N failed" last; exit status 0 when all passed.
"""

import argparse
import os
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
FUZZ_LINES = os.path.join(TOOLS, "fuzz", "cmdlines.txt")
HOST_PARSER = os.path.join(ROOT, "build", "fuzz", "fuzz_cmdline")
FILTER = "ktest.filter=cmdline_applies_good_words"

# (command-line words, how many the kernel must report as ignored, what it is)
TABLE = [
    ("bogus=1", 1, "unknown key"),
    ("rcu_cpu_stall_timeout=abc", 1, "not a number"),
    ("rcu_cpu_stall_timeout=99999999999999999999", 1, "number too large"),
    ("rcu_cpu_stall_timeout=-5", 1, "number out of range"),
    ("rcu_cpu_stall_timeout=", 1, "empty value"),
    ("rcu_cpu_stall_timeout", 1, "no value"),
    ("trace=" + "x" * 300, 1, "overlong value"),
    ("=", 1, "empty key"),
    ("rcu.inject=maybe spinlock.inject", 2, "bad values for injection keys"),
    ('"quoted"', 1, "double quotes"),
    ("it's", 1, "single quote"),
    ("$HOME ${x} $(reboot)", 3, "dollar signs (GRUB variables)"),
    ("a;b {x} #c back\\slash", 4, "GRUB's special characters"),
    ("hung_task_timeout_secs=100 bogus rcu_cpu_stall_timeout=30", 1, "good words around a bad one"),
    (" ".join(f"k{i}=v" for i in range(120)), 120, "120 unknown words"),
]


def boot(args, words):
    cmd = [sys.executable, os.path.join(TOOLS, "run.py"), "--arch", args.arch,
           "--kernel", args.kernel, "--smp", str(args.smp), "--mode", "test",
           "--timeout", "120", "--log", os.path.join(args.logdir, "cmdline.log"),
           "--cmdline", f"{FILTER} {words}"]
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace")
    return r.returncode, r.stdout


def fuzz_lines():
    with open(FUZZ_LINES) as f:
        return [l.rstrip("\n") for l in f if l.strip() and not l.startswith("#")]


def ignored_lines(text):
    return [l for l in text.splitlines() if l.startswith("cmdline: ignoring")]


def host_reports(delivered):
    """What the host build of kernel/cmdline.c reports for the delivered line
    (less the runner's own ktest.filter word, a key only the kernel has)."""
    with tempfile.NamedTemporaryFile("w", suffix=".cmdline", delete=False) as f:
        f.write(delivered)
    try:
        # -detect_leaks=0: otherwise libFuzzer runs an input a second time
        # (to look for a leak) whenever its mallocs and frees do not balance,
        # and the host's reports would be printed twice.
        r = subprocess.run([HOST_PARSER, "-detect_leaks=0", f.name], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, errors="replace",
                           env=dict(os.environ, FUZZ_VERBOSE="1"))
    finally:
        os.unlink(f.name)
    return [l for l in ignored_lines(r.stdout) if not l.startswith(f"cmdline: ignoring '{FILTER}'")]


def check_fuzz_line(args, words):
    """(ok, detail): boots words; the kernel's reports against the host's."""
    rc, out = boot(args, words)
    head = out.split("KTAP version 1")[0]
    delivered = next((l[len("Command line: "):] for l in head.splitlines()
                      if l.startswith("Command line: ")), None)
    if rc != 0 or delivered is None:
        return False, [f"exit {rc}, command line {'seen' if delivered else 'not seen'}"] + \
            out.splitlines()[-8:]
    kernel, host = ignored_lines(head), host_reports(delivered)
    if kernel != host:
        return False, [f"GRUB delivered: {delivered!r}"] + [f"kernel: {l}" for l in kernel] + \
            [f"host:   {l}" for l in host]
    return True, [f"{len(kernel)} ignored, as the host parser says for {delivered!r}"]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--arch", default="x86_64")
    p.add_argument("--kernel", required=True)
    p.add_argument("--smp", type=int, default=2)
    args = p.parse_args()
    args.logdir = os.path.dirname(os.path.abspath(args.kernel))
    passed = failed = 0
    for words, want, what in TABLE:
        rc, out = boot(args, words)
        head = out.split("KTAP version 1")[0]
        ignored = [l for l in head.splitlines() if l.startswith("cmdline: ignoring")]
        shown = words if len(words) < 60 else words[:57] + "..."
        if rc == 0 and len(ignored) == want:
            print(f"ok {passed + failed + 1} {what}: {shown!r} ({want} ignored, tests ran)")
            passed += 1
        else:
            print(f"not ok {passed + failed + 1} {what}: {shown!r}: exit {rc}, "
                  f"{len(ignored)} ignored (expected {want})")
            for l in ignored[:5]:
                print(f"#   {l}")
            if rc != 0:
                print("\n".join("#   " + l for l in out.splitlines()[-8:]))
            failed += 1
    if not os.path.exists(HOST_PARSER) and subprocess.run(
            [sys.executable, os.path.join(TOOLS, "fuzz", "fuzz.py"), "build", "cmdline"]).returncode:
        print(f"not ok {passed + failed + 1} the host parser could not be built")
        failed += 1
    else:
        for words in fuzz_lines():
            ok, detail = check_fuzz_line(args, words)
            shown = words if len(words) < 60 else words[:57] + "..."
            print(f"{'ok' if ok else 'not ok'} {passed + failed + 1} fuzzer-found line "
                  f"{shown!r}: {detail[0]}")
            for l in detail[1:]:
                print(f"#   {l}")
            passed, failed = passed + ok, failed + (not ok)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
