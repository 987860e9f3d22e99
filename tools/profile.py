#!/usr/bin/env python3
"""make profile: every instruction of one operation, counted by a QEMU TCG
plugin, per function and per costly class (docs/benchmarks.md, "make
profile").

    tools/profile.py run --arch ARCH --kernel ELF --plugin SO --user-dir DIR --out DIR
                         [--rounds 1000] [--objdump OBJDUMP] [--module '...']...
        boots the production kernel at one CPU under -icount shift=0 with the
        plugin and bench.profile=ROUNDS (tests/bench/profile.c), then analyzes
    tools/profile.py analyze --arch ARCH --kernel ELF --counts FILE --log FILE --out DIR
                         [--user-dir DIR] [--objdump OBJDUMP]
        the tables again from a run's files (or from any program that marks
        windows and names them on its console: the known-loop test)

Writes DIR/profile.md (the tables), DIR/profile.json (everything, for
scripts), DIR/console.log and DIR/insncount.out (the run's), and prints
the tables and one 'PROFILE arch=... op=... insns=...' line per operation.
"""

import argparse
import datetime
import json
import os
import subprocess
import sys

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(TOOLS, "lib"))
from profile_data import (Disassembly, ProfileError, attribute, objdump_lines,  # noqa: E402
                          parse_console, parse_counts)
from profile_report import json_doc, markdown, summary_line  # noqa: E402
from machine import qemu_version  # noqa: E402

# Functions under this many instructions per round share one row of the table.
MIN_ROW = 0.1
# The plugin's count and the program's own clock (under -icount shift=0 a
# ns is an instruction) must agree this closely: the clock also holds the
# window's ticks (a share), and a system call's way out and back (at most
# CLOCK_CALL instructions, spread over the rounds).
CLOCK_AGREES = 0.02
CLOCK_CALL = 1000


def problems(ops):
    """What makes this profile not an account of every instruction."""
    said = [] if ops else ["no window was profiled"]
    for op in ops:
        if op.unknown or op.mismatched:
            said.append(f"{op.op}: {op.unknown} instructions at addresses no ELF holds, "
                        f"{op.mismatched} where the ELF holds other bytes (a stale build?)")
        per = op.total / op.n if op.n else 0
        if op.timed_ns is not None and abs(op.timed_ns - per) > CLOCK_AGREES * per + \
                CLOCK_CALL / op.n:
            said.append(f"{op.op}: the plugin counted {per:.2f} instructions per round, the "
                        f"program's clock {op.timed_ns:.2f} ns (not -icount shift=0?)")
    return said


def boot(args, counts, log):
    """The production kernel with the plugin: run.py's status."""
    words = ["ktest.filter=bench_profile", "bench.run=1", "bench.reps=1",
             f"bench.profile={args.rounds}"] + args.cmdline.split()
    cmd = [sys.executable, os.path.join(TOOLS, "run.py"), "--arch", args.arch,
           "--kernel", args.kernel, "--smp", "1", "--mem", args.mem, "--mode", "test",
           "--icount", "0", "--plugin",
           f"{os.path.abspath(args.plugin)},out={os.path.abspath(counts)}",
           "--log", log, "--timeout", str(args.timeout), "--user-dir", args.user_dir,
           *[w for m in args.module for w in ("--module", m)], "--cmdline", " ".join(words)]
    with open(os.path.splitext(log)[0] + ".out", "w", encoding="utf-8") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT).returncode


def analyze(args, counts, log):
    """The tables from the plugin's file and the console; returns the text."""
    with open(counts, encoding="utf-8") as f:
        target, windows = parse_counts(f)
    if target != args.arch:
        raise ProfileError(f"{counts} was counted on {target}, not {args.arch}")
    with open(log, encoding="utf-8", errors="replace") as f:
        named = parse_console(f)
    if len(named) != len(windows):
        raise ProfileError(f"the plugin closed {len(windows)} windows, the console names "
                           f"{len(named)} ('# PROFILE op=... n=... program=...' lines)")
    kernel = Disassembly(objdump_lines(args.objdump, args.kernel), args.arch)
    programs, ops = {}, []
    for window, name in zip(windows, named):
        prog = name["program"]
        if prog != "-" and prog not in programs:
            elf = os.path.join(args.user_dir or "", prog + ".elf")
            if not os.path.isfile(elf):
                raise ProfileError(f"no ELF for the program {prog} ({elf})")
            programs[prog] = Disassembly(objdump_lines(args.objdump, elf), args.arch,
                                         os.path.basename(prog))
        ops.append(attribute(window, name, kernel, programs.get(prog)))
    context = {"kernel": args.kernel, "qemu": qemu_version(args.arch),
               "date": datetime.date.today().isoformat(), "cpus": 1,
               "icount": "shift=0,sleep=off"}
    head = [f"# make profile: {args.arch}", "",
            f"- Kernel `{args.kernel}` at 1 CPU, under {context['qemu']} with `-icount "
            "shift=0,sleep=off` (x86-64 under -icount runs at one CPU only: "
            "docs/benchmarks.md); every figure is per round, the window's count over its "
            "rounds; the columns after the instructions are the classes of "
            "tools/lib/profile_classes.py.", ""]
    text = "\n".join(head + [markdown(args.arch, op, MIN_ROW) for op in ops])
    summary = [summary_line(args.arch, op) for op in ops]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "profile.md"), "w", encoding="utf-8") as f:
        f.write(text + "\n" + "\n".join(summary) + "\n")
    with open(os.path.join(args.out, "profile.json"), "w", encoding="utf-8") as f:
        json.dump(json_doc(args.arch, context, ops), f, indent=1)
        f.write("\n")
    return text + "\n" + "\n".join(summary), problems(ops)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("action", choices=["run", "analyze"])
    p.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    p.add_argument("--kernel", required=True, help="the production kernel.elf")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--plugin", help="run: the plugin (build/profile/insncount.so)")
    p.add_argument("--user-dir", help="the programs' ELFs (build/ARCH/user)")
    p.add_argument("--rounds", type=int, default=1000, help="run: rounds per operation")
    p.add_argument("--module", action="append", default=[],
                   help="run: a program to boot beside the kernel (run.py --module)")
    p.add_argument("--mem", default="128M")
    p.add_argument("--cmdline", default="",
                   help="run: more words for the kernel (make profile CMDLINE='ipc.fastpath=0')")
    p.add_argument("--timeout", type=int, default=300, help="run: seconds for the boot")
    p.add_argument("--objdump", default="objdump")
    p.add_argument("--counts", help="analyze: the plugin's file")
    p.add_argument("--log", help="analyze: the console log")
    args = p.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    counts = args.counts or os.path.join(args.out, "insncount.out")
    log = args.log or os.path.join(args.out, "console.log")
    if args.action == "run":
        if not args.plugin or not args.user_dir:
            p.error("run needs --plugin and --user-dir")
        if os.path.exists(counts):
            os.remove(counts)	# (a boot that fails early must not leave the last run's)
        print(f"profile: booting {args.kernel} at 1 CPU under -icount with the plugin, "
              f"{args.rounds} rounds per operation (console: {log})", flush=True)
        if boot(args, counts, log) != 0:
            print(f"profile: FAILED: the boot did not complete; see "
                  f"{os.path.splitext(log)[0] + '.out'}")
            return 1
    try:
        text, said = analyze(args, counts, log)
    except (OSError, ProfileError) as e:
        print(f"profile: FAILED: {e}")
        return 1
    print(text)
    print(f"profile: wrote {os.path.join(args.out, 'profile.md')} and "
          f"{os.path.join(args.out, 'profile.json')}")
    for why in said:
        print(f"profile: FAILED: {why}")
    return 1 if said else 0


if __name__ == "__main__":
    sys.exit(main())
