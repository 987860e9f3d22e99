"""make bench, the output: the aggregated rows (tools/lib/bench_parse.py) as
results.csv (written and read back), the results.md Markdown tables, and
the PNG plots with matplotlib, re-running `tools/bench.py plot` under
Debian's /usr/bin/python3 when this interpreter has no matplotlib.
"""

import csv
import os
import subprocess
import sys

from bench_parse import find_row

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench.py")
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

    def log_axes(ax):
        ax.set_yscale("log")
        ax.set_xticks(cpus)
        ax.grid(True, which="both", alpha=0.3)

    def panel(ax, i, j, st, w, ylabel):
        """One of the 2x2 read panels: list/hash by readers only/one writer."""
        log_axes(ax)
        ax.set_title(f"{st}: " + ("readers only" if w == "0" else "one writer"),
                     fontsize=11)
        if j == 0:
            ax.set_ylabel(ylabel)
        if i == 1:
            ax.set_xlabel("CPUs")

    def save(fig, name):
        fig.tight_layout()
        path = os.path.join(outdir, name)
        fig.savefig(path, dpi=80)
        plt.close(fig)
        written.append(path)

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
                panel(ax, i, j, st, w, "lookups/s per CPU (log)")
        axes[0][0].legend(fontsize=8, loc="lower left")
        fig.suptitle(f"Read throughput, median and min–max of the runs ({where})\n"
                     "under TCG compare ratios, not absolute rates", fontsize=10)
        save(fig, "read_throughput.png")

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
                panel(ax, i, j, st, w, "RCU's lookups/s ÷ the method's (log)")
        axes[0][0].legend(fontsize=8, loc="upper left")
        fig.suptitle(f"How many times faster RCU readers are, medians ({where})\n"
                     "above 1: RCU reads faster; the floor line is below 1 when RCU "
                     "costs anything", fontsize=10)
        save(fig, "read_ratio.png")

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
        log_axes(ax)
        ax.set_xlabel("CPUs")
        ax.set_ylabel("microseconds (log)")
        ax.legend(fontsize=7, ncol=2)
        ax.set_title(f"Update side latency ({where})\nsolid: other CPUs idle, "
                     "dotted: busy", fontsize=10)
        save(fig, "update_latency.png")
    return written


def plot_any_python(csv_path, outdir, ctx):
    """Plots with this interpreter's matplotlib, else with Debian's
    /usr/bin/python3 running `tools/bench.py plot` (a pyenv python3 cannot
    import Debian's packages)."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath(SYSTEM_PYTHON) and \
                os.path.exists(SYSTEM_PYTHON):
            cmd = [SYSTEM_PYTHON, BENCH, "plot", "--csv", csv_path,
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

