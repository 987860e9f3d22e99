#!/usr/bin/env python3
"""make bench: boot the production kernel at each CPU count, run the in-kernel
benchmarks (tests/bench/), and turn their result lines into a CSV file, a
Markdown table and PNG plots.

    tools/bench.py run --arch ARCH --kernel ELF --out DIR [--smp "1 2 4"]
                       [--accel tcg|tcg-single|kvm] [--objdump OBJDUMP] [--nm NM]
                       [--cmdline "words"] [--reps 5] [--window-ms 100]
    tools/bench.py report --arch ARCH --kernel ELF --out DIR [...]
                       (the tables and plots again from DIR/smpN.log)
    tools/bench.py plot --csv DIR/results.csv --out DIR
    tools/bench.py run ... --runs 5 --smp "1 2 4 8 16 32 64"
                       (the scaling run: 5 boots at each CPU count, one
                       repetition each, median and quartiles over the boots)

The kernel prints one line per measurement and repetition:

    # BENCH bench=read struct=list method=rcu writers=1 cpus=4 rep=2 \
        metric=lookups_per_cpu value=123456.000 unit=1/s

This tool adds what the guest cannot know (the accelerator, the host CPU
model), takes the median and the spread over the repetitions, and checks
the claim that rcu_read_lock()/rcu_read_unlock() cost no instruction: it
disassembles bench_reader_rcu() and bench_reader_plain(), the same lookup
with and without them, and counts.  It asserts no speed.

The rest is in tools/lib/: bench_parse.py (result lines and statistics),
bench_objdump.py (the instruction count), bench_report.py (CSV,
Markdown and plots) and bench_scale.py (the scaling run's table and plots).  This file keeps the command line and the QEMU boots.
"""

import argparse
import datetime
import os
import shlex
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(TOOLS, "lib"))
from bench_parse import aggregate, parse_log  # noqa: E402
from bench_objdump import objdump_check  # noqa: E402
from bench_report import markdown, plot, plot_any_python, read_csv, write_csv  # noqa: E402
from bench_scale import SCALE_FILTER, scale_markdown  # noqa: E402
from machine import host_cpu_model, qemu_version  # noqa: E402


# ---------------------------------------------------------------- driver

def log_paths(out, n, runs):
    """The console logs of CPU count n: smpN.log, or smpN-runK.log for each
    boot of a scaling run (--runs)."""
    if not runs:
        return [os.path.join(out, f"smp{n}.log")]
    return [os.path.join(out, f"smp{n}-run{k}.log") for k in range(1, runs + 1)]


def finished(log):
    """The boot that wrote this log ran every benchmark it was asked for:
    the runner's closing '# ktest: N passed, 0 failed' line is there."""
    try:
        with open(log, encoding="utf-8", errors="replace") as f:
            return any(line.startswith("# ktest: ") and line.rstrip().endswith(" 0 failed")
                       for line in f)
    except OSError:
        return False


def boot_words(args):
    """The kernel's command line: every benchmark, args.reps times; in a
    scaling run, those of SCALE_FILTER once per boot."""
    if args.runs:
        words = [f"ktest.filter={SCALE_FILTER}", "bench.run=1", "bench.reps=1"]
    else:
        words = ["ktest.filter=bench_*", "bench.run=1", f"bench.reps={args.reps}"]
    return words + [f"bench.window_ms={args.window_ms}"] + shlex.split(args.cmdline or "")


def boot_one(args, n, log):
    """Boots the kernel at -smp n with the benchmarks on; returns run.py's status."""
    words = boot_words(args)
    cmd = [sys.executable, os.path.join(TOOLS, "run.py"), "--arch", args.arch,
           "--kernel", args.kernel, "--smp", str(n), "--mem", args.mem,
           "--accel", args.accel, "--mode", "test", "--log", log,
           *(["--icount", args.icount] if args.icount else []),
           *[w for m in args.module for w in ("--module", m)],
           "--timeout", str(args.timeout + 60 * n), "--cmdline", " ".join(words)]
    out = os.path.splitext(log)[0] + ".out"
    with open(out, "w", encoding="utf-8") as f:
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        with open(out, encoding="utf-8", errors="replace") as f:
            tail = f.readlines()[-15:]
        print(f"bench: SMP={n}: the run failed (exit {r.returncode}); last lines of {out}:")
        sys.stdout.write("".join("    " + t for t in tail))
    return r.returncode


def context(args):
    return {
        "arch": args.arch, "accel": args.accel, "icount": args.icount,
        "host_cpu": host_cpu_model(),
        "host_cores": os.cpu_count(), "qemu": qemu_version(args.arch),
        "reps": args.runs or args.reps, "date": datetime.date.today().isoformat(),
        "command": args.command or f"make bench ARCH={args.arch} BENCH_SMP=\"{args.smp}\"",
    }


def report(args, smps):
    """Reads DIR/smpN.log, writes results.csv, results.md and the plots."""
    samples, metas = [], []
    for n in smps:
        for log in log_paths(args.out, n, args.runs):
            if not os.path.exists(log):
                print(f"bench: {log} missing")
                continue
            with open(log, encoding="utf-8", errors="replace") as f:
                bad = []
                s, m = parse_log(f, bad)
            for lineno, line in bad[:5]:
                print(f"bench: {log}:{lineno}: not a readable result line: {line[:80]!r}")
            if args.runs:	# each boot is one repetition of every measurement
                run = int(log.rsplit("-run", 1)[1].split(".")[0])
                for x in s:
                    x["rep"] = run
            samples += s
            metas += m
    ok = True
    if any(m.get("checking") != "0" for m in metas):
        print("bench: WARNING: a kernel reported checking=1; make bench measures the "
              "production build (CHECKING=0)")
        ok = False
    checks = None
    try:
        checks = objdump_check(args.kernel, args.objdump, args.nm)
    except (OSError, ValueError, subprocess.CalledProcessError) as e:
        print(f"bench: the instruction count failed: {e}")
        ok = False
    ctx = context(args)
    rows = aggregate(samples)
    csv_path = os.path.join(args.out, "results.csv")
    md_path = os.path.join(args.out, "results.md")
    write_csv(rows, csv_path, ctx)
    text = markdown(rows, ctx, checks)
    if args.runs:
        text += "\n" + scale_markdown(rows, args.runs)
    with open(md_path, "w", encoding="utf-8") as f:
        f.write(text + "\n")
    plot_any_python(csv_path, args.out, ctx)
    print()
    print(text)
    print()
    for i, check in enumerate(checks or []):
        print(f"bench: zero-instruction read side: {check['with']} has {check['with_count']} "
              f"instructions, {check['without']} {check['without_count']}: difference "
              f"{check['diff']}" + (" (identical)" if check["identical"] else ""))
        if i == 0 and args.preempt:
            print("bench: PREEMPT=1: the read side disables preemption, so it costs "
                  "instructions here (reported, not checked)")
        elif i == 0 and (check["diff"] != 0 or not check["identical"]):
            print("bench: FAILED: rcu_read_lock()/rcu_read_unlock() emit instructions in "
                  "this build")
            ok = False
    print(f"bench: wrote {csv_path} and {md_path}")
    return ok


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("action", choices=["run", "report", "plot", "check"])
    p.add_argument("--arch", default="x86_64", choices=["x86_64", "aarch64"])
    p.add_argument("--kernel", help="the production kernel.elf (CHECKING=0)")
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument("--smp", default="1 2 4", help="CPU counts, space-separated")
    p.add_argument("--accel", default="tcg", choices=["tcg", "tcg-single", "kvm"])
    p.add_argument("--mem", default="128M")
    p.add_argument("--icount", metavar="SHIFT",
                   help="boot under QEMU's -icount (repeatable, one vCPU at a time)")
    p.add_argument("--objdump", default="objdump")
    p.add_argument("--nm", default="nm")
    p.add_argument("--cmdline", default="", help="extra kernel command-line words")
    p.add_argument("--module", action="append", default=[],
                   help="a user program to boot beside the kernel (run.py --module)")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--runs", type=int, default=0,
                   help="the scaling run: boot this many times at each CPU count, "
                        "one repetition each (0: one boot with --reps repetitions)")
    p.add_argument("--resume", action="store_true",
                   help="run: keep the logs of boots that completed (a run cut short "
                        "goes on where it stopped, or more --runs add boots)")
    p.add_argument("--window-ms", type=int, default=100)
    p.add_argument("--timeout", type=int, default=240, help="seconds per boot (+60 per CPU)")
    p.add_argument("--preempt", action="store_true",
                   help="the kernel is a PREEMPT=1 build: report the read side's "
                        "instruction count, do not require zero")
    p.add_argument("--command", default="", help="the command to quote in results.md")
    p.add_argument("--csv", help="plot: the results.csv to draw")
    p.add_argument("--host-cpu", help="plot: the host CPU model to print")
    args = p.parse_args(argv)

    os.makedirs(args.out, exist_ok=True)
    if args.action == "plot":
        ctx = {"arch": args.arch, "accel": args.accel,
               "host_cpu": args.host_cpu or host_cpu_model()}
        for path in plot(read_csv(args.csv), args.out, ctx):
            print(f"bench: wrote {path}")
        return 0
    if not args.kernel:
        p.error("--kernel is required")
    if args.action == "check":
        r = objdump_check(args.kernel, args.objdump, args.nm)[0]
        for sym, key in ((r["with"], "with_insns"), (r["without"], "without_insns")):
            print(f"{sym}: {len(r[key])} instructions")
            for insn in r[key]:
                print(f"    {insn}")
        print(f"difference: {r['diff']}" + (" (identical)" if r["identical"] else ""))
        return 0 if r["diff"] == 0 and r["identical"] else 1
    if (args.runs or args.reps) < 5:
        print(f"bench: note: {args.runs or args.reps} "
              f"{'boots' if args.runs else 'repetitions'} (the issue asks for at least 5)")
    smps = [int(x) for x in args.smp.split()]
    failed = []
    if args.action == "run":
        for n in smps:
            for log in log_paths(args.out, n, args.runs):
                if args.resume and finished(log):
                    print(f"bench: SMP={n}: {log} is complete, kept (--resume)")
                    continue
                t0 = time.monotonic()
                print(f"bench: SMP={n}: booting {args.kernel} ({args.accel}) for {log}",
                      flush=True)
                if boot_one(args, n, log) != 0:
                    failed.append(n)
                print(f"bench: SMP={n}: {time.monotonic() - t0:.0f} s", flush=True)
    ok = report(args, smps)
    if failed:
        print(f"bench: FAILED: the run at SMP={' '.join(map(str, failed))} did not complete")
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
