"""make profile, the output: per operation, the instructions of each function
and the costly classes among them (a Markdown table), where each costly
instruction is, and one summary line a script can read:

    PROFILE arch=x86_64 op=syscall n=1000 insns=399.00 user=6.00 kernel=393.00 \
        atomic_rmw=0.00 full_fence=0.00 ... timed_ns=399.51

Every figure is per operation (the window's count over n).  The JSON file
(json_doc()) holds the same, with the window's exact counts.
"""

from profile_classes import CLASSES, CLASS_NAMES

JSON_VERSION = 1
# What each operation is, for the titles.
OP_TITLES = {
    "syscall": "a null system call (SYS_task_id)",
    "ipc_threads": "an IPC call and its reply between two threads of one task, one CPU",
    "ipc_tasks": "an IPC call and its reply between two tasks, one CPU",
    "cap_lookup": "a system call whose work is a capability lookup (SYS_ntf_poll, empty)",
}


def per_op(count, n):
    return count / n if n else 0.0


def fmt(x):
    """A per-operation figure: two decimals, blank for none."""
    return f"{x:.2f}" if x else ""


def summary_line(arch, op):
    """The one line per operation a script greps for ('PROFILE ...')."""
    user = sum(f["insns"] for f in op.functions.values() if f["user"])
    words = [f"arch={arch}", f"op={op.op}", f"n={op.n}",
             f"insns={per_op(op.total, op.n):.2f}", f"user={per_op(user, op.n):.2f}",
             f"kernel={per_op(op.total - user, op.n):.2f}"]
    words += [f"{c}={per_op(op.classes[c], op.n):.2f}" for c in CLASS_NAMES]
    if op.timed_ns is not None:
        words.append(f"timed_ns={op.timed_ns:.2f}")
    return "PROFILE " + " ".join(words)


def function_rows(op):
    """(name, per-op insns, per-op class counts) for each function, most first."""
    rows = []
    for name, f in sorted(op.functions.items(), key=lambda kv: (-kv[1]["insns"], kv[0])):
        rows.append((name, per_op(f["insns"], op.n),
                     [per_op(f.get(c, 0), op.n) for c in CLASS_NAMES]))
    return rows


def markdown(arch, op, min_insns=0.0):
    """One operation's tables.  min_insns: functions below it (per op) are
    summed into one row, so that a window's rare visitors (a tick) do not
    crowd the table."""
    title = OP_TITLES.get(op.op, op.op)
    L = [f"## {arch}: {title}", "",
         f"{op.n} rounds in the window: **{per_op(op.total, op.n):.2f} instructions** per "
         "round" + (f"; the program's own clock said {op.timed_ns:.2f} ns per round "
                    "(under -icount shift=0 one ns is one instruction; its reading also "
                    "holds a system call's way out and back per window)"
                    if op.timed_ns is not None else "") + ".", ""]
    if op.unknown or op.mismatched:
        L += [f"**{per_op(op.unknown, op.n):.2f} instructions per round ran at addresses no "
              f"ELF holds, {per_op(op.mismatched, op.n):.2f} where the ELF holds other "
              "bytes: those are not classified.**", ""]
    heads = [c[1] for c in CLASSES]
    L.append("| function | instructions | " + " | ".join(heads) + " |")
    L.append("| --- | ---: |" + " ---: |" * len(heads))
    rest, rest_classes, rest_n = 0.0, [0.0] * len(CLASSES), 0
    for name, insns, classes in function_rows(op):
        if insns < min_insns and not any(classes):
            rest += insns
            rest_classes = [a + b for a, b in zip(rest_classes, classes)]
            rest_n += 1
            continue
        user = op.functions[name]["user"]
        L.append(f"| `{name}`{' (user)' if user else ''} | {insns:.2f} | "
                 + " | ".join(fmt(c) for c in classes) + " |")
    if rest_n:
        L.append(f"| {rest_n} functions under {min_insns:g} each | {rest:.2f} | "
                 + " | ".join(fmt(c) for c in rest_classes) + " |")
    L.append(f"| **total** | **{per_op(op.total, op.n):.2f}** | "
             + " | ".join(f"**{per_op(op.classes[c], op.n):.2f}**" for c in CLASS_NAMES) + " |")
    L += ["", "Where the costly instructions are (per round):", ""]
    for cls, func, addr, text, count in sorted(op.sites, key=lambda s: (CLASS_NAMES.index(s[0]),
                                                                       -s[4], s[2])):
        L.append(f"- {cls}: `{func}` {addr:#x} `{text}`: {per_op(count, op.n):.2f}")
    if not op.sites:
        L.append("- none")
    L.append("")
    return "\n".join(L)


def json_doc(arch, context, ops):
    """Everything, for scripts: per operation its exact window counts."""
    return {
        "version": JSON_VERSION, "arch": arch, **context,
        "classes": {c[0]: c[2] for c in CLASSES},
        "ops": [{
            "op": op.op, "n": op.n, "program": op.program, "timed_ns": op.timed_ns,
            "insns": op.total, "unknown": op.unknown, "mismatched": op.mismatched,
            "classes": op.classes,
            "functions": [dict(name=name, **f) for name, f in
                          sorted(op.functions.items(), key=lambda kv: -kv[1]["insns"])],
            "sites": [{"class": c, "function": f, "address": a, "text": t, "count": n}
                      for c, f, a, t, n in op.sites],
        } for op in ops],
    }
