"""make bench's scaling run (BENCH_RUNS=R): every cost against the CPU
count, each point the median and interquartile range of R boots.

The rows are those of bench_parse.aggregate() over the samples of every
boot (each boot is one repetition, bench.reps=1).  This file picks the
quantities the scaling run is about, fits each one's slope on log-log axes
(1: it grows linearly with the CPU count, 0: it stays flat), writes the
table and draws the plots with the linear and constant references.
"""

import math
import os

from bench_parse import find_row
from bench_report import cpus_title, save_figure, table_head

# The kernel's benchmarks the scaling run boots with (the others are not
# about the CPU count, or take too long at 64 CPUs under TCG).
SCALE_FILTER = "bench_readside,bench_update_latency,bench_read_hash,bench_call_rcu"

UPDATE_SERIES = [
    ("synchronize_rcu", "synchronize_rcu() (the tour)"),
    ("synchronize_rcu_expedited", "synchronize_rcu_expedited()"),
    ("call_rcu_gp", "a call_rcu() grace period"),
    ("run_on_hop", "one run_on() hop"),
    ("ipi_round_trip", "one IPI round trip"),
    ("ipi_round_trip_halted", "one IPI round trip to a halted CPU"),
]
LOCK_LOAD = "call_rcu() updaters on every CPU"
READ_METHODS = ["none", "rcu", "rwlock", "spinlock", "seqlock", "refcount"]
READ_TITLES = {"none": "no lock (floor)", "rcu": "RCU", "rwlock": "reader-writer lock",
               "spinlock": "spinlock", "seqlock": "seqlock", "refcount": "reference counts"}
LOCK_SERIES = [	# (metric, title, unit)
    ("qs_lock_wait_ns", "rcu_state.lock: wait per report", "ns"),
    ("qs_lock_contended_pct", "rcu_state.lock: reports that found it taken", "%"),
    ("qs_reports_per_gp", "quiescent-state reports per grace period", "count"),
    ("gp_requests_per_call", "rcu_state.lock: grace-period requests per call_rcu()", "count"),
]


def scale_series(rows):
    """Every quantity of the scaling run as (title, load, unit, {cpus: stats}),
    stats holding median, q1 and q3 in the unit shown.  Read throughput is
    the total over all CPUs (lookups per CPU times the CPU count): what
    perfect scaling makes linear."""
    out = []

    def pick(unit, scale, title, group, **want):
        pts = {}
        for r in rows:
            if all(r.get(k) == v for k, v in want.items()):
                f = scale(r["cpus"])
                pts[r["cpus"]] = {k: r[k] * f for k in ("median", "q1", "q3")}
                pts[r["cpus"]]["n"] = r["n"]
        if pts:
            out.append((title, group, unit, pts))

    for load in ("idle", "busy"):
        for op, title in UPDATE_SERIES:
            pick("µs", lambda n: 1e-3, title, load, bench="update", op=op, load=load)
    for w, load in (("0", "readers only"), ("1", "one writer")):
        for m in READ_METHODS:
            if m == "none" and w == "1":
                continue
            pick("lookups/s, all CPUs", lambda n: float(n), f"read side: {READ_TITLES[m]}",
                 load, bench="read", struct="hash", method=m, writers=w,
                 metric="lookups_per_cpu")
    for metric, title, unit in LOCK_SERIES:
        pick(unit, lambda n: 1.0, title, LOCK_LOAD, bench="call_rcu", metric=metric)
    return out


def loglog_slope(points, min_cpus=2):
    """The least-squares slope of log(median) against log(CPUs), over the
    points with at least min_cpus CPUs (one CPU has no hop and no IPI);
    None with fewer than two usable points."""
    xs, ys = [], []
    for n, p in sorted(points.items()):
        if n >= min_cpus and p["median"] > 0:
            xs.append(math.log(n))
            ys.append(math.log(p["median"]))
    if len(xs) < 2:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        return None
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx


def shape(slope):
    """A word for a log-log slope."""
    if slope is None:
        return "-"
    if slope >= 0.7:
        return "grows ~linearly" if slope <= 1.3 else "grows faster than linearly"
    if slope <= -0.7:
        return "falls ~as 1/N"
    if abs(slope) <= 0.3:
        return "~flat"
    return "grows slowly" if slope > 0 else "falls slowly"


def fmt(x):
    for div, suf in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(x) >= div:
            return f"{x / div:.3g}{suf}"
    return f"{x:.0f}" if abs(x) >= 100 or x == 0 else f"{x:.3g}"


def scale_markdown(rows, runs=None):
    """The scaling run's table: one line per quantity and load, one column
    per CPU count (median [q1–q3]), then the log-log slope over 2 CPUs
    and more and what it says."""
    series = scale_series(rows)
    if not series:
        return ""
    cpus = sorted({n for _, _, _, pts in series for n in pts})
    L = ["## Scaling: every cost against the CPU count", ""]
    L.append("Each cell: the median over the boots at that CPU count "
             f"({'%d' % runs if runs else 'R'} runs unless the column says so), "
             "[first quartile–third quartile]. slope: least-squares slope on log-log "
             "axes from 2 CPUs up (1: linear in N; 0: flat).")
    L.append("")
    L.extend(table_head(["quantity", "load", "unit"] + [cpus_title(n) for n in cpus]
                        + ["slope", "shape"]))
    for title, load, unit, pts in series:
        cells = []
        for n in cpus:
            p = pts.get(n)
            if p is None:
                cells.append("-")
                continue
            extra = (f" ({p['n']} run{'s' if p['n'] != 1 else ''})"
                     if runs and p["n"] != runs else "")
            cells.append(f"{fmt(p['median'])} [{fmt(p['q1'])}–{fmt(p['q3'])}]{extra}")
        s = loglog_slope(pts)
        L.append(f"| {title} | {load} | {unit} | " + " | ".join(cells) +
                 f" | {'-' if s is None else f'{s:.2f}'} | {shape(s)} |")
    L.append("")
    return "\n".join(L)


def reference_lines(points, xs, min_cpus=2):
    """(xs, linear ys, constant ys) through the first point with at least
    min_cpus CPUs, over the CPU counts xs: the two shapes every curve is
    compared with."""
    ns = sorted(n for n in points if n >= min_cpus and points[n]["median"] > 0)
    if not ns:
        return None
    n0, y0 = ns[0], points[ns[0]]["median"]
    xs = sorted(xs)
    return xs, [y0 * n / n0 for n in xs], [y0 for _ in xs]


# One colour per curve, the same in every plot (RCU and the tour red).
COLORS = {
    "synchronize_rcu() (the tour)": "tab:red", "synchronize_rcu_expedited()": "tab:cyan",
    "a call_rcu() grace period": "tab:orange", "one run_on() hop": "tab:blue",
    "one IPI round trip": "tab:green", "one IPI round trip to a halted CPU": "tab:olive",
    "read side: no lock (floor)": "black",
    "read side: RCU": "tab:red", "read side: reader-writer lock": "tab:blue",
    "read side: spinlock": "tab:gray", "read side: seqlock": "tab:green",
    "read side: reference counts": "tab:purple",
}


def plot_scale(rows, outdir, ctx):
    """scale_update.png, scale_read.png and scale_lock.png; returns the paths."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    series = scale_series(rows)
    where = f"{ctx['arch']}, {ctx['accel']}, host {ctx['host_cpu']}"
    written = []

    def draw(ax, group, refs):
        """The group's curves, then each reference (kind, the curve it goes
        through, the first CPU count it starts from, label)."""
        cpus = sorted({n for _, _, _, pts in group for n in pts})
        for title, _, _, pts in group:
            xs = sorted(pts)
            ys = [pts[n]["median"] for n in xs]
            err = [[pts[n]["median"] - pts[n]["q1"] for n in xs],
                   [pts[n]["q3"] - pts[n]["median"] for n in xs]]
            ax.errorbar(xs, ys, yerr=err, capsize=3, marker="o", markersize=4,
                        color=COLORS.get(title, "tab:brown"), label=title)
        for kind, through, min_cpus, label in refs:
            match = [pts for title, _, _, pts in group if title == through]
            ref = reference_lines(match[0], cpus, min_cpus) if match else None
            if ref:
                ys = ref[1] if kind == "linear" else ref[2]
                ax.plot(ref[0], ys, "--" if kind == "linear" else ":", color="black",
                        linewidth=1, label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(cpus)
        ax.set_xticklabels([str(n) for n in cpus])
        ax.grid(True, which="both", alpha=0.3)
        ax.set_xlabel("CPUs (log)")

    def save(fig, name):
        written.append(save_figure(fig, os.path.join(outdir, name), dpi=72))

    def by_load(side, chosen, loads, refs, title, ylabel, legend_at, name):
        """Two panels side by side on one y scale, the chosen series of each
        load with the references; title is the panel's, given its load."""
        fig, axes = plt.subplots(1, 2, figsize=(11, 5), sharey=True)
        for ax, load in zip(axes, loads):
            draw(ax, [s for s in chosen if s[1] == load], refs)
            ax.set_title(title(load), fontsize=10)
        axes[0].set_ylabel(ylabel)
        axes[0].legend(fontsize=7, loc=legend_at)
        fig.suptitle(f"{side} against the CPU count: median, bars the quartiles "
                     f"({where})", fontsize=9)
        save(fig, name)

    up = [s for s in series if s[0] in dict(UPDATE_SERIES).values()]
    if up:
        by_load("Update side", up, ("idle", "busy"), [
                ("linear", "synchronize_rcu() (the tour)", 2,
                 "slope 1: linear in N (through the tour at 2)"),
                ("constant", "one IPI round trip", 2, "constant (through the IPI at 2)")],
                lambda load: f"other CPUs {load}", "µs per operation (log)", "upper left",
                "scale_update.png")

    rd = [s for s in series if s[0].startswith("read side")]
    if rd:
        by_load("Read side", rd, ("readers only", "one writer"), [
                ("linear", "read side: RCU", 1, "slope 1: perfect scaling (RCU at 1 CPU)"),
                ("constant", "read side: RCU", 2, "constant: 2 host cores (RCU at 2)")],
                lambda load: f"1024-bucket hash table, {load}",
                "lookups/s, all CPUs together (log)", "lower left", "scale_read.png")

    lk = [s for s in series if s[1] == LOCK_LOAD]
    if lk:
        fig, axes = plt.subplots(1, len(lk), figsize=(4 * len(lk), 4))
        axes = axes if len(lk) > 1 else [axes]
        for ax, s in zip(axes, lk):
            draw(ax, [s], [("linear", s[0], 2, "slope 1: linear in N"),
                           ("constant", s[0], 2, "constant")])
            ax.set_title(s[0], fontsize=9)
            ax.set_ylabel(s[2])
        axes[0].legend(fontsize=7, loc="upper left")
        fig.suptitle(f"The global lock under call_rcu() load ({where})", fontsize=9)
        save(fig, "scale_lock.png")
    return written

