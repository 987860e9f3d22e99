#!/usr/bin/env python3
"""make bench: boot the production kernel at each CPU count, run the in-kernel
benchmarks (kernel/bench/), and turn their result lines into a CSV file, a
Markdown table and PNG plots.

    tools/bench.py run --arch ARCH --kernel ELF --out DIR [--smp "1 2 4"]
                       [--accel tcg|kvm] [--objdump OBJDUMP] [--nm NM]
                       [--cmdline "words"] [--reps 5] [--window-ms 100]
    tools/bench.py report --arch ARCH --kernel ELF --out DIR [...]
                       (the tables and plots again from DIR/smpN.log)
    tools/bench.py plot --csv DIR/results.csv --out DIR

The kernel prints one line per measurement and repetition:

    # BENCH bench=read struct=list method=rcu writers=1 cpus=4 rep=2 \
        metric=lookups_per_cpu value=123456.000 unit=1/s

This tool adds what the guest cannot know (the accelerator, the host CPU
model), takes the median and the spread over the repetitions, and checks
the claim that rcu_read_lock()/rcu_read_unlock() cost no instruction: it
disassembles bench_reader_rcu() and bench_reader_plain(), the same lookup
with and without them, and counts.  It asserts no speed.
"""

import argparse
import csv
import datetime
import os
import platform
import re
import shlex
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
RESULT_PREFIX = "# BENCH "
META_PREFIX = "# BENCH-META "
READER_WITH = "bench_reader_rcu"
READER_WITHOUT = "bench_reader_plain"
# Pairs compared instruction by instruction: the designated reader (which
# must match), then the benchmark's own lookup functions, RCU against the
# floor (reported: a compiler barrier may still move a register copy).
READER_PAIRS = [(READER_WITH, READER_WITHOUT),
                ("lookup_BM_RCU_BENCH_LIST", "lookup_BM_NONE_BENCH_LIST"),
                ("lookup_BM_RCU_BENCH_HASH", "lookup_BM_NONE_BENCH_HASH")]
SYSTEM_PYTHON = "/usr/bin/python3"	# Debian's, which python3-matplotlib serves

METHODS = ["none", "rcu", "rwlock", "spinlock", "seqlock", "refcount"]
METHOD_TITLES = {
    "none": "no lock (floor)", "rcu": "RCU", "rwlock": "reader-writer lock",
    "spinlock": "spinlock", "seqlock": "seqlock", "refcount": "reference counts",
}
STRUCT_TITLES = {
    "list": "64-element list",
    "hash": "1024-bucket hash table (1024 elements)",
}
UPDATE_OPS = ["run_on_hop", "context_switch", "ipi_round_trip", "synchronize_rcu",
              "call_rcu_gp"]
UPDATE_TITLES = {
    "run_on_hop": "one run_on() hop",
    "context_switch": "one context switch",
    "ipi_round_trip": "one IPI round trip",
    "synchronize_rcu": "synchronize_rcu()",
    "call_rcu_gp": "call_rcu() grace period (wait for the callback)",
}
# Columns of a sample that are not part of what was measured.
NOT_KEY = ("rep", "value")


# ---------------------------------------------------------------- parsing

def parse_line(line):
    """One '# BENCH k=v ...' line as a dict (value: float, cpus and rep: int);
    None for any other line or a malformed one."""
    line = line.strip()
    if not line.startswith(RESULT_PREFIX):
        return None
    fields = {}
    for word in line[len(RESULT_PREFIX):].split():
        if "=" not in word:
            return None
        k, v = word.split("=", 1)
        fields[k] = v
    for k in ("bench", "metric", "value", "cpus", "rep"):
        if k not in fields:
            return None
    try:
        fields["value"] = float(fields["value"])
        fields["cpus"] = int(fields["cpus"])
        fields["rep"] = int(fields["rep"])
    except ValueError:
        return None
    return fields


def parse_meta(line):
    """'# BENCH-META checking=0 cpus=2 ...' as a dict of strings, else None."""
    line = line.strip()
    if not line.startswith(META_PREFIX):
        return None
    return dict(w.split("=", 1) for w in line[len(META_PREFIX):].split() if "=" in w)


def parse_log(lines):
    """(samples, metas) from console lines."""
    samples, metas = [], []
    for line in lines:
        s = parse_line(line)
        if s is not None:
            samples.append(s)
            continue
        m = parse_meta(line)
        if m is not None:
            metas.append(m)
    return samples, metas


# ---------------------------------------------------------------- statistics

def quantile(xs, q):
    """The q-quantile of xs, linear between closest ranks (numpy's default)."""
    if not xs:
        raise ValueError("quantile of nothing")
    s = sorted(xs)
    pos = (len(s) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def median(xs):
    return quantile(xs, 0.5)


def summarize(xs):
    """n, median, min, max and the quartiles of xs."""
    return {"n": len(xs), "median": median(xs), "min": min(xs), "max": max(xs),
            "q1": quantile(xs, 0.25), "q3": quantile(xs, 0.75)}


def sample_key(s):
    return tuple(sorted((k, v) for k, v in s.items() if k not in NOT_KEY))


def aggregate(samples):
    """One row per measurement (everything but rep and value), with its
    statistics over the repetitions.  Rows keep the first-seen order."""
    groups, order = {}, []
    for s in samples:
        k = sample_key(s)
        if k not in groups:
            groups[k] = []
            order.append(k)
        groups[k].append(s["value"])
    rows = []
    for k in order:
        row = dict(k)
        row.update(summarize(groups[k]))
        rows.append(row)
    add_ratios(rows)
    return rows


def find_row(rows, **want):
    for r in rows:
        if all(r.get(k) == v for k, v in want.items()):
            return r
    return None


def add_ratios(rows):
    """Read throughput rows get 'vs_floor' (median / the no-lock floor's at
    the same structure and CPU count, readers only) and 'rcu_ratio' (RCU's
    median / this one's, same structure, writers and CPUs)."""
    for r in rows:
        if r.get("bench") != "read" or r.get("metric") != "lookups_per_cpu":
            continue
        floor = find_row(rows, bench="read", metric="lookups_per_cpu", struct=r.get("struct"),
                         method="none", writers="0", cpus=r["cpus"])
        rcu = find_row(rows, bench="read", metric="lookups_per_cpu", struct=r.get("struct"),
                       method="rcu", writers=r.get("writers"), cpus=r["cpus"])
        if floor and floor["median"] > 0:
            r["vs_floor"] = r["median"] / floor["median"]
        if rcu and r["median"] > 0:
            r["rcu_ratio"] = rcu["median"] / r["median"]


# ---------------------------------------------------------------- the read side in instructions

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:\s*$")
# "11174d <bench_reader_rcu+0x1d>": a branch target or an address in a comment
TARGET_RE = re.compile(r"\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")
RIP_RE = re.compile(r"-?0x[0-9a-f]+\(%rip\)")
PADDING_RE = re.compile(r"^(nop\w*|xchg %ax,%ax|data16\b|cs nop\w*|int3)\b")


def parse_nm(nm_text):
    """{symbol: (address, size)} from `nm -S` output (symbols with a size)."""
    syms = {}
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            try:
                syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
            except ValueError:
                pass
    return syms


def normalize_insn(text, func):
    """An instruction without what only its address makes different:
    absolute targets become <SELF+off> inside the function and <sym+off>
    outside it, and an x86 %rip displacement becomes the symbol its
    comment names.  Spacing is folded; AArch64 '//' comments dropped."""
    text = text.split("//")[0]
    code, _, comment = text.partition(" # ") if " # " in text else \
        text.partition("\t# ") if "\t# " in text else (text, "", "")
    if comment:
        m = TARGET_RE.search(comment)
        if m and RIP_RE.search(code):
            code = RIP_RE.sub("<" + m.group(1) + (m.group(2) or "") + ">(%rip)", code)

    def target(m):
        name = "SELF" if m.group(1) == func else m.group(1)
        return "<" + name + (m.group(2) or "") + ">"
    code = TARGET_RE.sub(target, code)
    return " ".join(code.split())


def instructions(objdump_text, start, size, func=""):
    """The normalised instructions at addresses [start, start + size)."""
    out = []
    for line in objdump_text.splitlines():
        m = INSN_RE.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if start <= addr < start + size:
            insn = normalize_insn(m.group(2), func)
            if insn and not insn.startswith("(bad)"):
                out.append(insn)
    return out


def compare_readers(objdump_text, nm_text, with_sym=READER_WITH, without_sym=READER_WITHOUT):
    """Counts the instructions of the two readers (their symbol sizes bound
    them, so the padding after each is not counted).  Returns a dict with
    the counts, their difference, the count without alignment padding and
    whether the two sequences are identical."""
    syms = parse_nm(nm_text)
    for s in (with_sym, without_sym):
        if s not in syms:
            raise ValueError(f"symbol {s} not found (is kernel/bench/read.c built in?)")
    a = instructions(objdump_text, *syms[with_sym], func=with_sym)
    b = instructions(objdump_text, *syms[without_sym], func=without_sym)
    real = lambda xs: [x for x in xs if not PADDING_RE.match(x)]  # noqa: E731
    return {
        "with": with_sym, "without": without_sym,
        "with_count": len(a), "without_count": len(b), "diff": len(a) - len(b),
        "with_real": len(real(a)), "without_real": len(real(b)),
        "identical": a == b, "with_insns": a, "without_insns": b,
    }


def objdump_check(elf, objdump="objdump", nm="nm", pairs=None):
    """compare_readers() for each (with, without) pair found in elf; the
    first pair must exist.  Returns the list of results."""
    nm_text = subprocess.run([nm, "-S", "--defined-only", elf], check=True,
                             capture_output=True, text=True).stdout
    syms = parse_nm(nm_text)
    results = []
    for i, (w, wo) in enumerate(pairs or READER_PAIRS):
        if w not in syms or wo not in syms:
            if i == 0:
                raise ValueError(f"symbol {w} or {wo} not found in {elf}")
            continue
        texts = []
        for sym in (w, wo):
            start, size = syms[sym]
            texts.append(subprocess.run(
                [objdump, "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                 f"--stop-address={start + size:#x}", elf],
                check=True, capture_output=True, text=True).stdout)
        results.append(compare_readers("\n".join(texts), nm_text, w, wo))
    return results


# ---------------------------------------------------------------- the machine

def host_cpu_model(cpuinfo="/proc/cpuinfo"):
    try:
        with open(cpuinfo, encoding="utf-8", errors="replace") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k.strip() in ("model name", "Model", "Hardware") and v.strip():
                    return v.strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def qemu_version(arch):
    try:
        out = subprocess.run([f"qemu-system-{arch}", "--version"], capture_output=True,
                             text=True, timeout=10).stdout
        return out.splitlines()[0].strip() if out else "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


# ---------------------------------------------------------------- output

def fmt_num(x):
    """3 significant figures with k/M/G."""
    if x is None:
        return "-"
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suf}"
    if abs(x) >= 100 or x == 0:
        return f"{x:.0f}"
    return f"{x:.3g}"


def fmt_cell(row, scale=1.0):
    if row is None:
        return "-"
    return (f"{fmt_num(row['median'] * scale)} "
            f"[{fmt_num(row['min'] * scale)}–{fmt_num(row['max'] * scale)}]")


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}×"


CSV_FIELDS = ["arch", "accel", "host_cpu", "bench", "struct", "method", "writers", "op",
              "load", "cpus", "metric", "unit", "n", "median", "min", "max", "q1", "q3",
              "vs_floor", "rcu_ratio"]


def write_csv(rows, path, ctx):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=CSV_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            out = dict(r)
            out.update(arch=ctx["arch"], accel=ctx["accel"], host_cpu=ctx["host_cpu"])
            for k in ("median", "min", "max", "q1", "q3", "vs_floor", "rcu_ratio"):
                if isinstance(out.get(k), float):
                    out[k] = f"{out[k]:.6g}"
            w.writerow(out)


def read_csv(path):
    rows = []
    with open(path, newline="", encoding="utf-8") as f:
        for r in csv.DictReader(f):
            r = {k: v for k, v in r.items() if v != ""}
            for k in ("median", "min", "max", "q1", "q3", "vs_floor", "rcu_ratio"):
                if k in r:
                    r[k] = float(r[k])
            r["cpus"] = int(r["cpus"])
            r["n"] = int(r["n"])
            rows.append(r)
    return rows


def cpu_counts(rows):
    return sorted({r["cpus"] for r in rows})


def markdown(rows, ctx, check=None):
    """The whole results.md text."""
    cpus = cpu_counts(rows)
    L = []
    L.append("# make bench results")
    L.append("")
    L.append(f"- Machine: host CPU **{ctx['host_cpu']}**, {ctx.get('host_cores', '?')} host "
             f"cores; guest {ctx['arch']}, accelerator **{ctx['accel']}**"
             + (f" ({ctx['qemu']})" if ctx.get("qemu") else ""))
    if ctx.get("command"):
        L.append(f"- Command: `{ctx['command']}`" + (f", {ctx['date']}" if ctx.get("date") else ""))
    L.append(f"- Every cell: the median of {ctx.get('reps', 'the')} runs, [min–max] of the runs.")
    L.append("")
    if ctx["accel"] == "tcg":
        L.append("> **Under TCG absolute numbers are those of an emulator** (QEMU translating "
                 "guest code, vCPUs as host threads, more vCPUs than host cores at 4 CPUs "
                 "here): compare the ratios, and the no-lock floor beside them, not the times.")
    else:
        L.append("> Absolute numbers depend on the machine; the ratios are what carries over.")
    L.append("")

    if check:
        checks = check if isinstance(check, list) else [check]
        first = checks[0]
        L.append("## Zero-instruction read side")
        L.append("")
        L.append("Each pair: the same code with and without `rcu_read_lock()`/"
                 "`rcu_read_unlock()`, counted by `tools/bench.py` from `objdump -d` of the "
                 "production ELF (alignment padding inside the function included).")
        L.append("")
        L.append("| with `rcu_read_lock()` | instructions | without | instructions | "
                 "difference | same instructions |")
        L.append("| --- | --- | --- | --- | --- | --- |")
        for c in checks:
            L.append(f"| `{c['with']}()` | {c['with_count']} | `{c['without']}()` | "
                     f"{c['without_count']} | {c['diff']} | "
                     f"{'yes' if c['identical'] else 'no'} |")
        L.append("")
        verdict = ("identical instruction sequences" if first["identical"]
                   else "the sequences differ")
        L.append(f"The reader `{first['with']}()`: difference **{first['diff']} instructions** "
                 f"({verdict}).")
        L.append("")

    rs = [r for r in rows if r.get("bench") == "readside" and r.get("metric") == "cycles_per_cs"]
    if rs:
        L.append("## Cost of an empty read-side critical section")
        L.append("")
        L.append("Cycles (TSC ticks on x86-64, generic-timer ticks on AArch64) per "
                 "lock + unlock pair on CPU 0, the other CPUs idle; `none` is the empty loop.")
        L.append("")
        L.append("| read side | " + " | ".join(f"{n} CPU{'s' if n > 1 else ''}" for n in cpus)
                 + " |")
        L.append("| --- |" + " --- |" * len(cpus))
        for m in METHODS:
            cells = [fmt_cell(find_row(rs, method=m, cpus=n)) for n in cpus]
            L.append(f"| {METHOD_TITLES[m]} | " + " | ".join(cells) + " |")
        L.append("")

    rd = [r for r in rows if r.get("bench") == "read"]
    if rd:
        L.append("## Read throughput: lookups per second per CPU")
        L.append("")
        L.append("Every CPU looks up random keys for a fixed window. ×floor: the median over "
                 "the no-lock floor's (readers only). RCU÷: RCU's median over this one's "
                 "(above 1: RCU reads faster).")
        L.append("")
        for st in ("list", "hash"):
            for w in ("0", "1"):
                sub = [r for r in rd if r.get("struct") == st and r.get("writers") == w]
                if not sub:
                    continue
                title = STRUCT_TITLES.get(st, st)
                L.append(f"### {title}, " + ("readers only" if w == "0" else
                                             "one writer replacing elements continuously"))
                L.append("")
                head = "| method |"
                sep = "| --- |"
                for n in cpus:
                    head += f" {n} CPU{'s' if n > 1 else ''} | ×floor | RCU÷ |"
                    sep += " --- | --- | --- |"
                L.append(head)
                L.append(sep)
                for m in METHODS:
                    if w == "1" and m == "none":
                        continue
                    line = f"| {METHOD_TITLES[m]} |"
                    for n in cpus:
                        r = find_row(sub, method=m, cpus=n, metric="lookups_per_cpu")
                        line += (f" {fmt_cell(r)} | {fmt_ratio(r and r.get('vs_floor'))} | "
                                 f"{fmt_ratio(r and r.get('rcu_ratio'))} |")
                    L.append(line)
                if w == "1":
                    line = "| *writer's updates/s* |"
                    for n in cpus:
                        cells = []
                        for m in METHODS[1:]:
                            r = find_row(sub, method=m, cpus=n, metric="updates")
                            cells.append(f"{m} {fmt_num(r['median']) if r else '-'}")
                        line += " " + ", ".join(cells) + " | | |"
                    L.append(line)
                L.append("")

    up = [r for r in rows if r.get("bench") == "update"]
    if up:
        L.append("## Update side: latency in microseconds")
        L.append("")
        L.append("idle: the other CPUs idle (halted). busy: each other CPU runs RCU readers "
                 "that call `cond_resched()` every 64 lookups.")
        L.append("")
        L.append("| operation | load | " + " | ".join(
            f"{n} CPU{'s' if n > 1 else ''}" for n in cpus) + " |")
        L.append("| --- | --- |" + " --- |" * len(cpus))
        for op in UPDATE_OPS:
            for load in ("idle", "busy"):
                cells = [fmt_cell(find_row(up, op=op, load=load, cpus=n), 1e-3) for n in cpus]
                if all(c == "-" for c in cells):
                    continue
                L.append(f"| {UPDATE_TITLES[op]} | {load} | " + " | ".join(cells) + " |")
        L.append("")

    cr = [r for r in rows if r.get("bench") == "call_rcu"]
    if cr:
        L.append("## call_rcu() with two updaters per CPU")
        L.append("")
        L.append("| metric | " + " | ".join(f"{n} CPU{'s' if n > 1 else ''}" for n in cpus)
                 + " |")
        L.append("| --- |" + " --- |" * len(cpus))
        for metric, title in (("calls_per_s", "call_rcu() calls per second (all updaters)"),
                              ("gps_per_s", "grace periods per second"),
                              ("cbs_per_gp", "callbacks per grace period")):
            cells = [fmt_cell(find_row(cr, metric=metric, cpus=n)) for n in cpus]
            L.append(f"| {title} | " + " | ".join(cells) + " |")
        L.append("")
    return "\n".join(L)


# ---------------------------------------------------------------- plots

PLOT_STYLE = {
    "none": dict(color="black", linestyle="--", marker="o"),
    "rcu": dict(color="tab:red", linestyle="-", marker="o", linewidth=2.5),
    "rwlock": dict(color="tab:blue", linestyle="-", marker="s"),
    "spinlock": dict(color="tab:gray", linestyle="-", marker="v"),
    "seqlock": dict(color="tab:green", linestyle="-", marker="^"),
    "refcount": dict(color="tab:purple", linestyle="-", marker="D"),
}


def plot(rows, outdir, ctx):
    """read_throughput.png and update_latency.png; returns the paths written."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    cpus = cpu_counts(rows)
    where = f"{ctx['arch']}, {ctx['accel']}, host {ctx['host_cpu']}"

    rd = [r for r in rows if r.get("bench") == "read" and r.get("metric") == "lookups_per_cpu"]
    if rd:
        fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True)
        for i, st in enumerate(("list", "hash")):
            for j, w in enumerate(("0", "1")):
                ax = axes[i][j]
                for m in METHODS:
                    pts = [find_row(rd, struct=st, writers=w, method=m, cpus=n) for n in cpus]
                    if m == "none":
                        pts = [find_row(rd, struct=st, writers="0", method=m, cpus=n)
                               for n in cpus]
                    xs = [n for n, p in zip(cpus, pts) if p]
                    ps = [p for p in pts if p]
                    if not ps:
                        continue
                    ys = [p["median"] for p in ps]
                    err = [[p["median"] - p["min"] for p in ps],
                           [p["max"] - p["median"] for p in ps]]
                    label = METHOD_TITLES[m] + (" (readers only)" if m == "none" and w == "1"
                                                else "")
                    ax.errorbar(xs, ys, yerr=err, capsize=3, label=label, **PLOT_STYLE[m])
                ax.set_yscale("log")
                ax.set_xticks(cpus)
                ax.grid(True, which="both", alpha=0.3)
                ax.set_title(f"{st}: " + ("readers only" if w == "0" else "one writer"),
                             fontsize=11)
                if j == 0:
                    ax.set_ylabel("lookups/s per CPU (log)")
                if i == 1:
                    ax.set_xlabel("CPUs")
        axes[0][0].legend(fontsize=8, loc="lower left")
        fig.suptitle(f"Read throughput, median and min–max of the runs ({where})\n"
                     "under TCG compare ratios, not absolute rates", fontsize=10)
        fig.tight_layout()
        p = os.path.join(outdir, "read_throughput.png")
        fig.savefig(p, dpi=80)
        plt.close(fig)
        written.append(p)

    if rd:
        fig, axes = plt.subplots(2, 2, figsize=(10, 7.5), sharex=True)
        for i, st in enumerate(("list", "hash")):
            for j, w in enumerate(("0", "1")):
                ax = axes[i][j]
                ax.axhline(1.0, color="tab:red", linewidth=2, label="RCU itself (1×)")
                for m in METHODS[2:]:
                    pts = [(n, find_row(rd, struct=st, writers=w, method=m, cpus=n))
                           for n in cpus]
                    pts = [(n, p) for n, p in pts if p and p.get("rcu_ratio")]
                    if not pts:
                        continue
                    ax.plot([n for n, _ in pts], [p["rcu_ratio"] for _, p in pts],
                            label=f"RCU ÷ {METHOD_TITLES[m]}", **PLOT_STYLE[m])
                floor = [(n, find_row(rd, struct=st, writers=w, method="rcu", cpus=n))
                         for n in cpus]
                floor = [(n, p) for n, p in floor if p and p.get("vs_floor")]
                if floor:
                    ax.plot([n for n, _ in floor], [p["vs_floor"] for _, p in floor],
                            label="RCU ÷ no lock (floor)", **PLOT_STYLE["none"])
                ax.set_yscale("log")
                ax.set_xticks(cpus)
                ax.grid(True, which="both", alpha=0.3)
                ax.set_title(f"{st}: " + ("readers only" if w == "0" else "one writer"),
                             fontsize=11)
                if j == 0:
                    ax.set_ylabel("RCU's lookups/s ÷ the method's (log)")
                if i == 1:
                    ax.set_xlabel("CPUs")
        axes[0][0].legend(fontsize=8, loc="upper left")
        fig.suptitle(f"How many times faster RCU readers are, medians ({where})\n"
                     "above 1: RCU reads faster; the floor line is below 1 when RCU "
                     "costs anything", fontsize=10)
        fig.tight_layout()
        p = os.path.join(outdir, "read_ratio.png")
        fig.savefig(p, dpi=80)
        plt.close(fig)
        written.append(p)

    up = [r for r in rows if r.get("bench") == "update"]
    if up:
        fig, ax = plt.subplots(figsize=(8, 5.5))
        styles = {"synchronize_rcu": ("tab:red", "o"), "call_rcu_gp": ("tab:orange", "s"),
                  "run_on_hop": ("tab:blue", "^"), "ipi_round_trip": ("tab:green", "v"),
                  "context_switch": ("tab:gray", "D")}
        for op in UPDATE_OPS:
            for load in ("idle", "busy"):
                pts = [(n, find_row(up, op=op, load=load, cpus=n)) for n in cpus]
                pts = [(n, p) for n, p in pts if p]
                if not pts:
                    continue
                color, marker = styles[op]
                ys = [p["median"] / 1e3 for _, p in pts]
                err = [[(p["median"] - p["min"]) / 1e3 for _, p in pts],
                       [(p["max"] - p["median"]) / 1e3 for _, p in pts]]
                ax.errorbar([n for n, _ in pts], ys, yerr=err, capsize=3, color=color,
                            marker=marker, linestyle="-" if load == "idle" else ":",
                            label=f"{UPDATE_TITLES[op].split(' (')[0]}, {load}")
        ax.set_yscale("log")
        ax.set_xticks(cpus)
        ax.set_xlabel("CPUs")
        ax.set_ylabel("microseconds (log)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(f"Update side latency ({where})\nsolid: other CPUs idle, "
                     "dotted: busy", fontsize=10)
        fig.tight_layout()
        p = os.path.join(outdir, "update_latency.png")
        fig.savefig(p, dpi=80)
        plt.close(fig)
        written.append(p)
    return written


def plot_any_python(csv_path, outdir, ctx):
    """Plots with this interpreter's matplotlib, else with Debian's
    /usr/bin/python3 (a pyenv python3 cannot import Debian's packages)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
                os.path.exists(SYSTEM_PYTHON):
            cmd = [SYSTEM_PYTHON, os.path.abspath(__file__), "plot", "--csv", csv_path,
                   "--out", outdir, "--arch", ctx["arch"], "--accel", ctx["accel"],
                   "--host-cpu", ctx["host_cpu"]]
            r = subprocess.run(cmd)
            return r.returncode == 0
        print("bench: matplotlib missing (bash tools/deps.sh bench installs "
              "python3-matplotlib): no plots")
        return False
    for p in plot(read_csv(csv_path), outdir, ctx):
        print(f"bench: wrote {p}")
    return True


# ---------------------------------------------------------------- driver

def boot_one(args, n, log):
    """Boots the kernel at -smp n with the benchmarks on; returns run.py's status."""
    words = ["ktest.filter=bench_*", "bench.run=1", f"bench.reps={args.reps}",
             f"bench.window_ms={args.window_ms}"] + shlex.split(args.cmdline or "")
    cmd = [sys.executable, os.path.join(TOOLS, "run.py"), "--arch", args.arch,
           "--kernel", args.kernel, "--smp", str(n), "--mem", args.mem,
           "--accel", args.accel, "--mode", "test", "--log", log,
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
        "arch": args.arch, "accel": args.accel, "host_cpu": host_cpu_model(),
        "host_cores": os.cpu_count(), "qemu": qemu_version(args.arch),
        "reps": args.reps, "date": datetime.date.today().isoformat(),
        "command": args.command or f"make bench ARCH={args.arch} BENCH_SMP=\"{args.smp}\"",
    }


def report(args, smps):
    """Reads DIR/smpN.log, writes results.csv, results.md and the plots."""
    samples, metas = [], []
    for n in smps:
        log = os.path.join(args.out, f"smp{n}.log")
        if not os.path.exists(log):
            print(f"bench: {log} missing")
            continue
        with open(log, encoding="utf-8", errors="replace") as f:
            s, m = parse_log(f)
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
        if i == 0 and (check["diff"] != 0 or not check["identical"]):
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
    p.add_argument("--accel", default="tcg", choices=["tcg", "kvm"])
    p.add_argument("--mem", default="128M")
    p.add_argument("--objdump", default="objdump")
    p.add_argument("--nm", default="nm")
    p.add_argument("--cmdline", default="", help="extra kernel command-line words")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--window-ms", type=int, default=100)
    p.add_argument("--timeout", type=int, default=240, help="seconds per boot (+60 per CPU)")
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
    if args.reps < 5:
        print(f"bench: note: {args.reps} repetitions (the issue asks for at least 5)")
    smps = [int(x) for x in args.smp.split()]
    failed = []
    if args.action == "run":
        for n in smps:
            t0 = time.monotonic()
            print(f"bench: SMP={n}: booting {args.kernel} ({args.accel})", flush=True)
            if boot_one(args, n, os.path.join(args.out, f"smp{n}.log")) != 0:
                failed.append(n)
            print(f"bench: SMP={n}: {time.monotonic() - t0:.0f} s", flush=True)
    ok = report(args, smps)
    if failed:
        print(f"bench: FAILED: the run at SMP={' '.join(map(str, failed))} did not complete")
    return 0 if ok and not failed else 1


if __name__ == "__main__":
    sys.exit(main())
