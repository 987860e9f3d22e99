#!/usr/bin/env python3
"""make fuzz: the kernel's parsers of outside input, built for the host
with libFuzzer, AddressSanitizer and UndefinedBehaviorSanitizer.

    tools/fuzz/fuzz.py build                  build every target (build/fuzz/)
    tools/fuzz/fuzz.py run [-t S] [TARGET...] fuzz each target for S seconds
                                              (FUZZ_SECONDS, default 60), one
                                              after the other; stop at the
                                              first finding
    tools/fuzz/fuzz.py replay                 run every seed, past crash and
                                              regression case once (the host
                                              test; CI runs it)
    tools/fuzz/fuzz.py merge [TARGET...]      minimise what runs found into
                                              tools/fuzz/corpus/

The pseudo-target syscalls is the system-call fuzzer (user/sysfuzz/): not
a host build but the kernel itself, booted on each architecture with the
fuzzer as a program in user mode (make test TESTS=user_syscall_fuzz*),
for --calls calls (SYSFUZZ_CALLS, default a million) from --seed (random
when 0; the run prints it; several, comma-separated, run one after the
other: CI runs a fixed set, SYSFUZZ_CI_SEEDS).  run runs it after the
host targets.

Each target compiles the kernel's own source file (TARGETS below) with a
small host shim (tools/fuzz/shim/) and a harness, tools/fuzz/fuzz_NAME.c,
that checks properties, not only the absence of a crash (docs/fuzz.md).
A run prints per target the executions, the coverage reached (edges,
features) and when it last grew, and the corpus size; a finding is saved
under tools/fuzz/crashes/NAME/ with a one-line command that replays it.
"""

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(FUZZ))
BUILD = os.environ.get("FUZZ_BUILD") or os.path.join(ROOT, "build", "fuzz")


def kernel_nr_cpus():
    """NR_CPUS as the kernel is built by default (kernel/param.h, as the
    Makefile reads it): the harnesses' per-CPU arrays and limits are the
    kernel's."""
    with open(os.path.join(ROOT, "kernel", "param.h")) as f:
        m = re.search(r"^#define NR_CPUS\s+(\d+)", f.read(), re.M)
    return int(m.group(1))


NR_CPUS = kernel_nr_cpus()

# name -> (kernel sources, include directory of the arch it belongs to, extra link flags)
TARGETS = {
    "cmdline": (["kernel/cmdline.c"], "arch/x86_64", []),
    "monitor": (["kernel/monitor_parse.c"], "arch/x86_64", []),
    # The page allocator's region handling sees the regions the parser found;
    # the host's kernel image is [1 MiB, 1.5 MiB) (the map must cover it;
    # free memory begins at its end).
    # (multiboot.c and acpi.c call each other for the boot word bootdata.dump.)
    "multiboot": (["arch/x86_64/multiboot.c", "arch/x86_64/acpi.c", "kernel/page_alloc.c"],
                  "arch/x86_64", ["-no-pie", "-Wl,--defsym=__kernel_start=0x100000",
                                   "-Wl,--defsym=__kernel_end=0x180000"]),
    "acpi": (["arch/x86_64/acpi.c", "arch/x86_64/multiboot.c"], "arch/x86_64", []),
    "fdt": (["arch/aarch64/fdt.c"], "arch/aarch64", []),
    # The ELF loader's checks of a program from a boot module (pure: no memory touched).
    "elf": (["kernel/user/elf.c"], "arch/x86_64", []),
    # (initrd.c's glue reads fdt.c's dt and the kernel's bounds; only the parser is fuzzed.)
    "initrd": (["arch/aarch64/initrd.c", "arch/aarch64/fdt.c"], "arch/aarch64",
               ["-no-pie", "-Wl,--defsym=__kernel_start=0x40200000",
                "-Wl,--defsym=__kernel_end=0x40800000"]),
}

# The longest input each is given: twice its largest seed or real input.
MAX_LEN = {"cmdline": 8192, "monitor": 4096, "multiboot": 8192, "acpi": 4096, "fdt": 12288,
           "elf": 4096, "initrd": 4096}

SANITIZE = ["-fsanitize=fuzzer,address,undefined", "-fno-sanitize-recover=all"]
CFLAGS = ["-g", "-O1", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-fno-omit-frame-pointer",
          f"-DNR_CPUS={NR_CPUS}", "-DCONFIG_RCU_CHECKING=1",
          # Host ELF linkers mark the bounds of a section named like a C identifier.
          '-DKPARAM_SECTION="kparam"', "-D__kparam_start=__start_kparam",
          "-D__kparam_end=__stop_kparam"]


def binary(name):
    return os.path.join(BUILD, f"fuzz_{name}")


def rel(path):
    return os.path.relpath(path, ROOT)


def build(names, quiet=False):
    """Builds the targets that are out of date; True when all built."""
    os.makedirs(BUILD, exist_ok=True)
    cc = os.environ.get("FUZZ_CC", "clang")
    if not shutil.which(cc):
        print(f"fuzz: {cc} not found: bash tools/deps.sh fuzz installs clang and "
              "libclang-rt-14-dev", file=sys.stderr)
        return False
    ok = True
    for name in names:
        srcs, arch, ldflags = TARGETS[name]
        files = [os.path.join(FUZZ, f"fuzz_{name}.c"), os.path.join(FUZZ, "shim", "shim.c")]
        files += [os.path.join(ROOT, s) for s in srcs]
        out = binary(name)
        deps = files + [os.path.join(FUZZ, "fuzz.py"), os.path.join(ROOT, "kernel", "param.h")]
        for d in ("kernel", "lib", arch, os.path.join(FUZZ, "shim"), "tests"):
            d = os.path.join(ROOT, d)
            deps += [os.path.join(dp, f) for dp, _, fs in os.walk(d) for f in fs
                     if f.endswith(".h")]
        if os.path.exists(out) and os.path.getmtime(out) >= max(map(os.path.getmtime, deps)):
            continue
        cmd = [cc] + SANITIZE + CFLAGS + [
            "-I" + os.path.join(FUZZ, "shim"), "-I" + os.path.join(ROOT, "kernel"),
            "-I" + os.path.join(ROOT, "lib"), "-I" + os.path.join(ROOT, arch),
            # (after the shim's asm/: the arch's own headers the shim does not replace)
            "-I" + os.path.join(ROOT, arch, "include"),
            "-o", out] + files + ldflags
        if not quiet:
            print(f"  FUZZCC  {rel(out)}")
        r = subprocess.run(cmd, cwd=ROOT)
        ok = ok and r.returncode == 0
    return ok


# "#1234	NEW    cov: 56 ft: 78 corp: 9/100b ..." (libFuzzer's status lines)
STATUS_RE = re.compile(r"^#(\d+)\s+(\w+)\s+cov: (\d+) ft: (\d+)(?: corp: (\d+)/)?")
EXECS_RE = re.compile(r"stat::number_of_executed_units:\s*(\d+)")
ARTIFACT_RE = re.compile(r"Test unit written to (\S+)")


def fuzz_one(name, seconds, log_dir, min_execs=0):
    """Fuzzes one target for seconds, and on until min_execs inputs ran;
    returns a dict of what the run reached."""
    corpus = os.path.join(BUILD, "corpus", name)
    seeds = os.path.join(FUZZ, "corpus", name)
    artifacts = os.path.join(BUILD, "artifacts", name) + os.sep
    os.makedirs(corpus, exist_ok=True)
    os.makedirs(seeds, exist_ok=True)
    os.makedirs(artifacts, exist_ok=True)
    limit = seconds if not min_execs else 100 * seconds	# then we stop it ourselves
    cmd = [binary(name), f"-max_total_time={limit}", "-print_final_stats=1",
           "-timeout=10", "-rss_limit_mb=2048", f"-max_len={MAX_LEN[name]}",
           f"-artifact_prefix={artifacts}", corpus, seeds]
    dict_file = os.path.join(FUZZ, f"{name}.dict")
    if os.path.exists(dict_file):
        cmd.insert(1, f"-dict={dict_file}")
    log_path = os.path.join(log_dir, f"{name}.log")
    res = {"name": name, "execs": 0, "cov": 0, "ft": 0, "corpus": 0, "seconds": seconds,
           "last_cov_s": 0.0, "last_ft_s": 0.0, "crash": None, "log": log_path}
    start = time.monotonic()
    with open(log_path, "w") as log:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                             text=True, errors="replace", cwd=ROOT)

        def stop_when_done():
            # libFuzzer prints a status line at every power of two of executions.
            while p.poll() is None:
                if time.monotonic() - start >= seconds and res["execs"] >= min_execs:
                    p.send_signal(signal.SIGINT)	# it prints its final stats and exits
                    return
                time.sleep(1)
        if min_execs:
            threading.Thread(target=stop_when_done, daemon=True).start()
        for line in p.stdout:
            now = time.monotonic() - start
            log.write(f"[{now:8.1f}s] {line}")
            log.flush()		# (a long run is watched with tail -f)
            m = STATUS_RE.match(line)
            if m:
                execs, kind, cov, ft = int(m.group(1)), m.group(2), int(m.group(3)), int(m.group(4))
                # The first pass over the seeds (INITED) is the starting point.
                if kind != "INITED" and cov > res["cov"] and res["cov"]:
                    res["last_cov_s"] = now
                if kind != "INITED" and ft > res["ft"] and res["ft"]:
                    res["last_ft_s"] = now
                res["execs"] = max(res["execs"], execs)
                res["cov"], res["ft"] = max(res["cov"], cov), max(res["ft"], ft)
                if m.group(5):
                    res["corpus"] = int(m.group(5))
            m = EXECS_RE.search(line)
            if m:
                res["execs"] = int(m.group(1))
            m = ARTIFACT_RE.search(line)
            if m:
                res["crash"] = m.group(1)
        rc = p.wait()
    res["elapsed"] = time.monotonic() - start
    if min_execs and rc == 72 and not res["crash"]:
        rc = 0		# our SIGINT: libFuzzer's "run interrupted" status
    if rc != 0 and not res["crash"]:
        res["crash"] = f"(libFuzzer exit {rc}, no reproducer written: see {rel(log_path)})"
    return res


def keep_crash(name, artifact):
    """Copies a reproducer into tools/fuzz/crashes/NAME/; returns its path."""
    if not os.path.isfile(artifact):
        return artifact
    dest_dir = os.path.join(FUZZ, "crashes", name)
    os.makedirs(dest_dir, exist_ok=True)
    dest = os.path.join(dest_dir, os.path.basename(artifact))
    shutil.copyfile(artifact, dest)
    return dest


SYSFUZZ_LINE_RE = re.compile(r"^# .*?(sysfuzz: .*)$")
SUMMARY_RE = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?")


# The seeds CI runs (.ci/run, --seed ci), each a boot per architecture:
# fixed, so that a failure replays (each thread's calls, peers included,
# are the seed's; only their interleaving is the scheduler's).
SYSFUZZ_CI_SEEDS = "0x1e15,0xc0ffee"


def run_syscalls(args):
    """The system-call fuzzer on each architecture, each seed; 0 when it found nothing."""
    seeds = SYSFUZZ_CI_SEEDS if args.seed == "ci" else args.seed
    for arch in args.arches.split():
        for seed in seeds.split(","):
            if run_syscalls_once(args, arch, seed.strip()):
                return 1
    return 0


def run_syscalls_once(args, arch, seed):
    """One boot: the fuzzer on arch from seed; 0 when it found nothing."""
    calls = args.calls
    cmd = ["make", "--no-print-directory", "test", f"ARCH={arch}", "SMP=4", "ISOLATED=0",
           f"TIMEOUT={300 + calls // 500}", "TESTS=user_syscall_fuzz*",
           f"CMDLINE=sysfuzz.calls={calls} sysfuzz.seed={seed} sysfuzz.threads=3"]
    print(f"fuzz: syscalls ({arch}): {calls} calls, seed {seed if seed != '0' else 'random'} ...",
          flush=True)
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       errors="replace", cwd=ROOT)
    lines = r.stdout.splitlines()
    said = [m.group(1) for m in map(SYSFUZZ_LINE_RE.match, lines) if m]
    summary = next((m for m in map(SUMMARY_RE.match, reversed(lines)) if m), None)
    for s in said:
        if not s.startswith("sysfuzz: per call"):
            print(f"fuzz: syscalls ({arch}): {s}")
    if summary and summary.group(3) and summary.group(1) == "0":
        print(f"fuzz: syscalls ({arch}): skipped: no user programs on this architecture")
        return 0
    if r.returncode == 0 and summary and summary.group(2) == "0":
        print(f"fuzz: syscalls ({arch}): no finding ({time.monotonic() - t0:.0f} s: the "
              "kernel lived, every promise kept, nothing leaked)")
        return 0
    log = os.path.join(BUILD, "logs", f"syscalls-{arch}.log")
    os.makedirs(os.path.dirname(log), exist_ok=True)
    with open(log, "w") as f:
        f.write(r.stdout)
    print(f"fuzz: syscalls ({arch}): FINDING: the run failed; console in {rel(log)}")
    print("fuzz: replay it with the seed above: make test ARCH=" + arch +
          " TESTS='user_syscall_fuzz*' CMDLINE='sysfuzz.seed=SEED sysfuzz.calls=N'")
    for line in lines[-25:]:
        print("    | " + line)
    return 1


def cmd_run(args):
    names = args.targets or list(TARGETS) + ([] if args.host_only else ["syscalls"])
    host = [n for n in names if n != "syscalls"]
    if host and not build(host):
        return 1
    log_dir = os.path.join(BUILD, "logs")
    os.makedirs(log_dir, exist_ok=True)
    for name in names:
        if name == "syscalls":
            if run_syscalls(args):
                return 1
            continue
        more = f", and on to {args.min_execs} executions" if args.min_execs else ""
        print(f"fuzz: {name}: {args.seconds} s{more} ...", flush=True)
        r = fuzz_one(name, args.seconds, log_dir, args.min_execs)
        half = r["elapsed"] / 2
        print(f"fuzz: {name}: {r['execs']} executions in {r['elapsed']:.0f} s, "
              f"coverage {r['cov']} edges / {r['ft']} features "
              f"(last new edge at {r['last_cov_s']:.0f} s, last new feature at "
              f"{r['last_ft_s']:.0f} s{', none in the second half' if r['last_cov_s'] <= half else ''}), "
              f"corpus {r['corpus']} inputs", flush=True)
        if r["crash"]:
            path = keep_crash(name, r["crash"])
            print(f"fuzz: {name}: FINDING: reproducer saved as {rel(path)}; see {rel(r['log'])}")
            print(f"fuzz: replay it with: FUZZ_VERBOSE=1 {rel(binary(name))} {rel(path)}")
            return 1
        print(f"fuzz: {name}: no finding")
    return 0


def inputs(*dirs):
    for d in dirs:
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                p = os.path.join(d, f)
                if os.path.isfile(p) and not f.endswith(".expect") and not f.startswith("."):
                    yield p


def replay_expectations(name, failed):
    """Each regression case whose .expect file lists lines its console must show."""
    n = 0
    for case in inputs(os.path.join(FUZZ, "regress", name)):
        expect = os.path.splitext(case)[0] + ".expect"
        r = subprocess.run([binary(name), "-timeout=20", case], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT,
                           text=True, errors="replace", env=dict(os.environ, FUZZ_VERBOSE="1"))
        missing = []
        if os.path.exists(expect):
            with open(expect) as f:
                missing = [w for w in f.read().splitlines() if w and w not in r.stdout]
        n += 1
        if r.returncode != 0 or missing:
            failed.append(f"{rel(case)}: exit {r.returncode}" +
                          "".join(f"\n    missing: {w}" for w in missing) +
                          "\n" + "\n".join("    | " + l for l in r.stdout.splitlines()[-15:]))
    return n


def cmd_replay(args):
    names = args.targets or list(TARGETS)
    if not build(names, quiet=True):
        return 1
    failed = []
    total = 0
    for name in names:
        files = list(inputs(os.path.join(FUZZ, "corpus", name), os.path.join(FUZZ, "crashes", name)))
        # Batches keep the argument list short; libFuzzer runs each file once.
        for i in range(0, len(files), 200):
            batch = files[i:i + 200]
            r = subprocess.run([binary(name), "-timeout=20"] + batch, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, text=True, errors="replace")
            if r.returncode != 0:
                failed.append(f"{name}: a seed or past crash fails:\n" +
                              "\n".join("    | " + l for l in r.stdout.splitlines()[-25:]))
        n = replay_expectations(name, failed)
        print(f"fuzz replay: {name}: {len(files)} seeds and past crashes, {n} regression cases")
        total += len(files) + n
    for f in failed:
        print(f"fuzz replay: FAILED: {f}")
    print(f"{total - len(failed)} passed, {len(failed)} failed")
    return 1 if failed else 0


def cmd_merge(args):
    names = args.targets or list(TARGETS)
    if not build(names):
        return 1
    for name in names:
        seeds = os.path.join(FUZZ, "corpus", name)
        found = os.path.join(BUILD, "corpus", name)
        os.makedirs(seeds, exist_ok=True)
        before = len(os.listdir(seeds))
        subprocess.run([binary(name), "-merge=1", seeds, found], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        print(f"fuzz merge: {name}: {before} -> {len(os.listdir(seeds))} seeds")
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("targets", nargs="*", metavar="TARGET")
    r = sub.add_parser("run")
    r.add_argument("-t", "--seconds", type=int,
                   default=int(os.environ.get("FUZZ_SECONDS", "60") or 60))
    r.add_argument("--min-execs", type=int, default=0,
                   help="keep going after the time until this many inputs ran")
    r.add_argument("--calls", type=int,
                   default=int(os.environ.get("SYSFUZZ_CALLS", "1000000") or 1000000),
                   help="syscalls: system calls per architecture")
    r.add_argument("--seed", default=os.environ.get("SYSFUZZ_SEED", "0") or "0",
                   help="syscalls: the seed (0: drawn by the fuzzer, printed); several, "
                   "comma-separated, one boot each; 'ci': the fixed set CI runs")
    r.add_argument("--arches", default="x86_64 aarch64", help="syscalls: the architectures")
    r.add_argument("--host-only", action="store_true",
                   help="without targets: the host targets, not syscalls (CI runs it per architecture)")
    r.add_argument("targets", nargs="*", metavar="TARGET")
    for c in ("replay", "merge"):
        s = sub.add_parser(c)
        s.add_argument("targets", nargs="*", metavar="TARGET")
    args = p.parse_args()
    known = list(TARGETS) + (["syscalls"] if args.cmd == "run" else [])
    unknown = [t for t in getattr(args, "targets", []) if t not in known]
    if unknown:
        p.error(f"unknown target {unknown[0]!r} (known: {', '.join(known)})")
    if args.cmd == "build":
        return 0 if build(args.targets or list(TARGETS)) else 1
    return {"run": cmd_run, "replay": cmd_replay, "merge": cmd_merge}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
