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
    "srcu": "SRCU", "rcu_list": "RCU, a 64-element list walk inside",
    "srcu_list": "SRCU, a 64-element list walk inside",
}
# The empty read-side table also shows SRCU (tests/bench/srcu.c), and a list
# walk inside each of RCU and SRCU: what its price is beside a real reader.
READSIDE_METHODS = METHODS + ["srcu", "rcu_list", "srcu_list"]
STRUCT_TITLES = {
    "list": "64-element list",
    "hash": "1024-bucket hash table (1024 elements)",
}
UPDATE_OPS = ["run_on_hop", "context_switch", "ipi_round_trip", "ipi_round_trip_halted",
              "synchronize_rcu", "synchronize_rcu_expedited", "call_rcu_gp"]
UPDATE_TITLES = {
    "run_on_hop": "one run_on() hop",
    "context_switch": "one context switch",
    "ipi_round_trip": "one IPI round trip",
    "ipi_round_trip_halted": "one IPI round trip to a halted CPU",
    "synchronize_rcu": "synchronize_rcu()",
    "synchronize_rcu_expedited": "synchronize_rcu_expedited()",
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


def fmt_cell(row, scale=1.0, decimals=None):
    """median [min–max]; decimals: that many after the point instead of 3
    significant figures (ICOUNT=1's round trips resolve to an instruction)."""
    if row is None:
        return "-"
    f = fmt_num if decimals is None else (lambda x: f"{x:.{decimals}f}")
    return f"{f(row['median'] * scale)} [{f(row['min'] * scale)}–{f(row['max'] * scale)}]"


def fmt_ratio(x):
    return "-" if x is None else f"{x:.2f}×"


CSV_FIELDS = ["arch", "accel", "host_cpu", "bench", "struct", "method", "writers", "op",
              "load", "between", "cpus_apart", "timed", "derived", "cpus", "metric", "unit", "n",
              "median", "min", "max", "q1", "q3", "vs_floor", "rcu_ratio"]


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


def cpus_title(n):
    """A table column's title: '1 CPU', '2 CPUs'."""
    return f"{n} CPU{'s' if n > 1 else ''}"


def table_row(cells):
    """A Markdown table's row."""
    return "| " + " | ".join(cells) + " |"


def section(title, *text, level=2):
    """A section's first lines: its title, then its text (if any) as one paragraph."""
    head = ["#" * level + " " + title, ""]
    return head + ([" ".join(text), ""] if text else [])


def table_head(cols):
    """A Markdown table's title row and the rule under it."""
    return [table_row(cols), "|" + " --- |" * len(cols)]


def cpus_head(cols, cpus):
    """table_head() of cols, then a column per CPU count."""
    return table_head(cols + [cpus_title(n) for n in cpus])


def cpus_cells(rows, cpus, scale=1.0, decimals=None, **want):
    """A row's cells, one per CPU count: fmt_cell() of the row matching
    want at that count ('-' where no row does)."""
    return [fmt_cell(find_row(rows, cpus=n, **want), scale, decimals) for n in cpus]


def save_figure(fig, path, dpi):
    """Lays fig out, writes it to path as a PNG and frees it; returns path."""
    import matplotlib.pyplot as plt
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


FASTEST_BEGIN = "<!-- fastest readers: generated by tools/lib/bench_report.py fastest_lines() -->"
FASTEST_END = "<!-- end of generated lines -->"


def fastest_lines(rows):
    """One line per read table and CPU count: the methods by median
    lookups per CPU, fastest first (the no-lock floor left out), so that a
    summary's claims about who reads fastest follow from the tables."""
    out = []
    rd = [r for r in rows if r.get("bench") == "read" and r.get("metric") == "lookups_per_cpu"]
    for st in ("list", "hash"):
        for w in ("0", "1"):
            for n in cpu_counts(rd):
                cands = [(find_row(rd, struct=st, writers=w, method=m, cpus=n), m)
                         for m in METHODS if m != "none"]
                cands = sorted(((r["median"], m) for r, m in cands if r), reverse=True)
                if not cands:
                    continue
                order = ", ".join(f"{METHOD_TITLES[m]} {fmt_num(v)}" for v, m in cands)
                what = "readers only" if w == "0" else "with a writer"
                out.append(f"- {STRUCT_TITLES[st]}, {what}, {cpus_title(n)}: "
                           f"**{METHOD_TITLES[cands[0][1]]}** fastest ({order})")
    return out


def rows_from_markdown(text):
    """The read-throughput medians back from results.md's tables (the
    format markdown() writes), as rows fastest_lines() takes: for checking
    a copy of the tables, like docs/benchmarks.md's, against its prose."""
    units = {"k": 1e3, "M": 1e6, "G": 1e9}
    titles = {v: k for k, v in METHOD_TITLES.items()}
    structs = {v: k for k, v in STRUCT_TITLES.items()}
    rows, st, w, cpus = [], None, None, []
    for line in text.splitlines():
        if line.startswith("#"):
            st = w = None
            for title, key in structs.items():
                if title in line:
                    st, w = key, "0" if "readers only" in line else "1"
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if st and cells and cells[0] == "method":
            cpus = [int(c.split()[0]) for c in cells[1::3]]
        elif st and cells and cells[0] in titles and cpus:
            for n, cell in zip(cpus, cells[1::3]):
                num = cell.split(" ")[0]
                if num and num != "-":
                    scale = units.get(num[-1], 1)
                    v = float(num[:-1] if num[-1] in units else num) * scale
                    rows.append({"bench": "read", "metric": "lookups_per_cpu", "struct": st,
                                 "writers": w, "method": titles[cells[0]], "cpus": n,
                                 "median": v})
    return rows


def markdown(rows, ctx, check=None):
    """The whole results.md text."""
    cpus = cpu_counts(rows)
    L = []
    L.append("# make bench results")
    L.append("")
    L.append(f"- Machine: host CPU **{ctx['host_cpu']}**, {ctx.get('host_cores', '?')} host "
             f"cores; guest {ctx['arch']}, accelerator **{ctx['accel']}**"
             + (f" with `-icount shift={ctx['icount']}` (one vCPU at a time)"
                if ctx.get("icount") else "")
             + (f" ({ctx['qemu']})" if ctx.get("qemu") else ""))
    if ctx.get("command"):
        L.append(f"- Command: `{ctx['command']}`" + (f", {ctx['date']}" if ctx.get("date") else ""))
    L.append(f"- Every cell: the median of {ctx.get('reps', 'the')} runs, [min–max] of the runs.")
    L.append("")
    if ctx["accel"].startswith("tcg"):
        cores = ctx.get("host_cores")
        over = [n for n in cpus if isinstance(cores, int) and n > cores]
        crowded = (f", more vCPUs than host cores at {over[0]} CPUs and up here"
                   if over else "")
        L.append("> **Under TCG absolute numbers are those of an emulator** (QEMU translating "
                 f"guest code, vCPUs as host threads{crowded}): compare the ratios, and "
                 "the no-lock floor beside them, not the times.")
    else:
        L.append("> Absolute numbers depend on the machine; the ratios are what carries over.")
    L.append("")

    if check:
        checks = check if isinstance(check, list) else [check]
        first = checks[0]
        L += section("Zero-instruction read side",
                     "Each pair: the same code with and without `rcu_read_lock()`/"
                     "`rcu_read_unlock()`, counted by `tools/bench.py` from `objdump -d` of the "
                     "production ELF (alignment padding inside the function included).")
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
        L += section("Cost of an empty read-side critical section",
                     "Cycles (TSC ticks on x86-64, generic-timer ticks on AArch64) per "
                     "lock + unlock pair on CPU 0, the other CPUs idle; `none` is the empty "
                     "loop.")
        L.extend(cpus_head(["read side"], cpus))
        for m in READSIDE_METHODS:
            L.append(table_row([METHOD_TITLES[m]] + cpus_cells(rs, cpus, method=m)))
        L.append("")

    rd = [r for r in rows if r.get("bench") == "read"]
    if rd:
        L += section("Read throughput: lookups per second per CPU",
                     "Every CPU looks up random keys for a fixed window. ×floor: the median "
                     "over the no-lock floor's (readers only). RCU÷: RCU's median over this "
                     "one's (above 1: RCU reads faster).")
        for st in ("list", "hash"):
            for w in ("0", "1"):
                sub = [r for r in rd if r.get("struct") == st and r.get("writers") == w]
                if not sub:
                    continue
                title = STRUCT_TITLES.get(st, st)
                L.append(f"### {title}, " + ("readers only" if w == "0" else
                                             "one writer replacing elements continuously"))
                L.append("")
                L.extend(table_head(["method"] + [col for n in cpus
                                                  for col in (cpus_title(n), "×floor", "RCU÷")]))
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

    if rd:
        L += section("Who reads fastest",
                     "From the tables above, by median (the no-lock floor left out):", level=3)
        L.append(FASTEST_BEGIN)
        L.extend(fastest_lines(rows))
        L.append(FASTEST_END)
        L.append("")

    up = [r for r in rows if r.get("bench") == "update"]
    if up:
        L += section("Update side: latency in microseconds",
                     "idle: the other CPUs idle (halted). busy: each other CPU runs RCU "
                     "readers that call `cond_resched()` every 64 lookups.")
        L.extend(cpus_head(["operation", "load"], cpus))
        for op in UPDATE_OPS:
            for load in ("idle", "busy"):
                cells = cpus_cells(up, cpus, 1e-3, op=op, load=load)
                if all(c == "-" for c in cells):
                    continue
                L.append(table_row([UPDATE_TITLES[op], load] + cells))
        L.append("")

    us = [r for r in rows if r.get("bench") == "user"]
    if us:
        L += section("Into the kernel and back",
                     "A plain function call in the kernel; a null system call's round trip "
                     "from user mode (syscall/sysret or svc/eret, and the kernel's entry and "
                     "exit), timed by the program around its loop and by the kernel from spawn "
                     "to exit (a run of N calls minus a run of none); copy_from_user() of 8 "
                     "bytes; and 64 KiB copied from user memory beside memcpy() between kernel "
                     "buffers (MB/s).")
        L.extend(cpus_head(["operation"], cpus))
        exact = 1 if ctx.get("icount") else None
        for want, metric, title, scale in (
                ({"op": "call"}, "ns", "kernel function call (ns)", 1),
                ({"op": "syscall", "timed": "loop"}, "ns",
                 "null system call round trip, the program's clock (ns)", 1),
                ({"op": "syscall", "timed": "spawn"}, "ns",
                 "null system call round trip, spawn to exit (ns)", 1),
                ({"op": "get_user"}, "ns", "copy_from_user(), 8 bytes (ns)", 1),
                ({"op": "copy_from_user"}, "bytes_per_s", "copy_from_user(), 64 KiB (MB/s)", 1e-6),
                ({"op": "memcpy"}, "bytes_per_s", "memcpy(), 64 KiB, kernel to kernel (MB/s)",
                 1e-6)):
            decimals = exact if want["op"] == "syscall" else None
            L.append(table_row([title] + cpus_cells(us, cpus, scale, decimals,
                                                    metric=metric, **want)))
        L.append("")

    ip = [r for r in rows if r.get("bench") == "ipc"]
    if ip:
        L.extend(ipc_markdown(ip, us, cpus, 1 if ctx.get("icount") else None))

    ur = [r for r in rows if r.get("bench") == "urcu"]
    if ur:
        L.extend(urcu_markdown(ur, cpus, ctx))

    cr = [r for r in rows if r.get("bench") == "call_rcu"]
    if cr:
        L += section("call_rcu() with two updaters per CPU")
        L.extend(cpus_head(["metric"], cpus))
        for metric, title in (("calls_per_s", "call_rcu() calls per second (all updaters)"),
                              ("gps_per_s", "grace periods per second"),
                              ("cbs_per_gp", "callbacks per grace period")):
            L.append(table_row([title] + cpus_cells(cr, cpus, metric=metric)))
        L.append("")
    return "\n".join(L)


URCU_METHODS = (("none", "no synchronization (the floor)"), ("mutex", "sleeping mutex"),
                ("rwlock", "sleeping reader-writer lock"), ("memb", "RCU, memb flavor"),
                ("qsbr", "RCU, QSBR flavor"))


def urcu_markdown(ur, cpus, ctx):
    """The servers on user-space RCU (tests/bench/urcu.c): the key-value
    server's lookup under each method, alone and on every CPU, and
    SYS_membarrier against the threads of the task running."""
    L = section("Servers on RCU: the key-value server's lookups",
                "`user/kvserver --bench`: its own lookup on its own table (128 keys), a "
                "reader pinned to every CPU; no writer.")
    L.extend(cpus_head(["lookups per second per CPU"], cpus))
    for m, title in URCU_METHODS:
        L.append(table_row([title] + cpus_cells(ur, cpus, method=m, metric="lookups_per_cpu")))
    L.append("")
    unit = "instructions" if ctx.get("icount") else "ns"
    L.extend(cpus_head([f"one reader alone: {unit} per lookup"], cpus))
    for m, title in URCU_METHODS:
        L.append(table_row([title] + cpus_cells(ur, cpus, method=m, metric="ns_per_lookup")))
    L.append("")
    running = sorted({int(r["running"]) for r in ur if "running" in r})
    if running:
        L.extend(cpus_head(["SYS_membarrier, us per call"], cpus))
        for k in running:
            L.append(table_row([f"{k} other thread{'s' if k != 1 else ''} running"] +
                               cpus_cells(ur, cpus, op="membarrier", running=str(k))))
        L.append("")
    return L


def ipc_markdown(ip, us, cpus, decimals=None):
    """The microkernel's rows (tests/bench/ipc.c): IPC round trips beside
    the null system call, capability lookups by method, revoke latency.
    decimals: the round trips' figures to that many places (ICOUNT=1)."""
    L = section("IPC and capabilities",
                "A call and its reply from user mode (ns), and a system call whose work is a "
                "capability lookup, beside the null system call's round trip; in brackets the "
                "ratio to it.  Timed by the program around its loop, then (spawn to exit) by "
                "the kernel: a run of N rounds minus a run of none.")
    L.extend(cpus_head(["round trip"], cpus))
    for timed, how in (("loop", ""), ("spawn", ", spawn to exit")):
        sys_rows = {n: find_row(us, op="syscall", timed=timed, metric="ns", cpus=n)
                    for n in cpus}
        L.append(table_row([f"null system call{how}"] +
                           [fmt_cell(sys_rows[n], 1, decimals) for n in cpus]))
        kinds = [(f"IPC call between {between}, {where}{how}",
                  dict(op="ipc", between=between, cpus_apart=apart, timed=timed))
                 for between in ("threads", "tasks")
                 for apart, where in (("0", "one CPU"), ("1", "two CPUs"))]
        if timed == "loop":
            kinds.append(("capability lookup (SYS_ntf_poll)", dict(op="cap_call", timed=timed)))
        for title, want in kinds:
            cells = []
            for n in cpus:
                r = find_row(ip, cpus=n, **want)
                cell = fmt_cell(r, 1, decimals)
                if r and sys_rows[n] and float(sys_rows[n]["median"]):
                    cell += " (%s)" % fmt_ratio(float(r["median"]) /
                                                float(sys_rows[n]["median"]))
                cells.append(cell)
            if any(c != "-" for c in cells):
                L.append(table_row([title] + cells))
    L += ["", "Capability lookups per CPU per second, every CPU looking up at once in one "
          "space.", ""]
    L.extend(cpus_head(["lookup"], cpus))
    for m, title in (("syscall", "the system call's (RCU, reference-free)"),
                     ("rcu_ref", "RCU, with a reference"),
                     ("rcu", "RCU, no reference"), ("rwlock", "reader-writer lock"),
                     ("spinlock", "spinlock")):
        L.append(table_row([title] + cpus_cells(ip, cpus, op="lookup", method=m,
                                                metric="lookups_per_cpu")))
    L += ["", "cap_revoke() against the capabilities derived from the one revoked (us).", ""]
    L.extend(cpus_head(["derived"], cpus))
    for d in sorted({int(r["derived"]) for r in ip if r.get("op") == "revoke"}):
        L.append(table_row([str(d)] + cpus_cells(ip, cpus, 1e-3, op="revoke", derived=str(d))))
    L.append("")
    return L


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
        written.append(save_figure(fig, os.path.join(outdir, name), dpi=80))

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
                  "synchronize_rcu_expedited": ("tab:cyan", "P"),
                  "run_on_hop": ("tab:blue", "^"), "ipi_round_trip": ("tab:green", "v"),
                  "ipi_round_trip_halted": ("tab:olive", "<"),
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
    if len(cpus) > 1:	# every cost against the CPU count, log-log (bench_scale.py)
        from bench_scale import plot_scale
        written += plot_scale(rows, outdir, ctx)
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

