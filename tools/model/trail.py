"""Readable counterexamples: Spin's trail replayed, reduced to the lines
the models print (each starts with "@@"), numbered.

Hand-written models (.pml) print their steps themselves:
    @@ CPU1 rcu_idle_enter(): write rdp->idle = 1
Generated ARMv8 models (.wmm) print "@@ <cpu> <instruction> <event> <values>"
and the instruction table (the .json next to the .pml) turns that into the
same form, and says when a step was performed ahead of an earlier one of
its CPU: that is the reordering the missing barrier allowed.
"""

import json
import subprocess

CYCLE = "<<<<<START OF CYCLE>>>>>"


def replay(workdir, pml, trail, defines=()):
    """Runs spin -t (with the -D options the verifier was built with);
    returns the model's own lines, plus CYCLE markers."""
    p = subprocess.run(["spin", "-t", "-k", trail] + list(defines) + [pml], cwd=workdir,
                       capture_output=True, text=True)
    lines = []
    for raw in p.stdout.splitlines():
        s = raw.strip()
        if s.startswith("@@"):
            lines.append(s[2:].strip())
        elif CYCLE in s:
            lines.append(CYCLE)
        elif s.startswith("spin: ") and ("assertion violated" in s or "text of failed" in s):
            lines.append("!! " + s[len("spin: "):])
    return lines


def render_pml(lines):
    out, n = [], 0
    for k, s in enumerate(lines):
        if s == CYCLE and not any(x != CYCLE and not x.startswith("!! ") for x in lines[k + 1:]):
            out.append("    --- from here on nothing happens any more: every CPU waits for ever ---")
        elif s == CYCLE:
            out.append("    --- from here on the run repeats for ever (the steps below, then again) ---")
        elif s.startswith("!! "):
            out.append("    " + s[3:])
        else:
            n += 1
            out.append(f"{n:4d}. {s}")
    return out


def render_wmm(lines, meta_path):
    with open(meta_path) as f:
        meta = json.load(f)
    names = list(meta["threads"])
    done = {t: set() for t in names}
    out, n = [], 0
    for s in lines:
        if s.startswith("!! "):
            continue        # the outcome line below says it better
        if s.startswith("F "):
            out.append("      final memory: " + s[2:])
            continue
        if s.startswith("B "):
            src, says = meta["outcomes"][int(s[2:])]
            out.append(f"      the bad outcome: {says or src}")
            if says:
                out.append(f"        ({src})")
            continue
        parts = s.split()
        if len(parts) < 3 or not parts[0].isdigit():
            out.append("    " + s)
            continue
        t = names[int(parts[0]) - 1]
        idx, ev, vals = int(parts[1]), parts[2], parts[3:]
        insns = meta["threads"][t]
        i = insns[idx]
        done[t].add(idx)
        if ev == "skip":
            continue
        what = _describe(i, ev, vals, insns)
        pending = [k for k in range(idx) if k not in done[t]
                   and insns[k]["kind"] not in ("mb", "wmb", "rmb")]
        note = ""
        if pending:
            firsts = ", ".join(f"'{_short(insns[k])}'" for k in pending[:2])
            more = " ..." if len(pending) > 2 else ""
            note = f"   <-- ahead of {firsts}{more} (earlier in program order, not yet performed)"
        n += 1
        func = i["func"] or ""
        out.append(f"{n:4d}. {t:<5} {func:<26} {what}{note}")
    return out


def _short(i):
    text = i["text"]
    if i["func"] and text.startswith(i["func"]):
        text = text[len(i["func"]):].strip()
    return text.split("[")[0].strip()


def _describe(i, ev, vals, insns):
    loc = i["loc"]
    how = ""
    if i["acq"] and i["kind"] in ("ld", "xld"):
        how = " (acquire)"
    if i["rel"] and i["kind"] in ("st", "xst", "unlock"):
        how = " (release)"
    if ev == "read":
        spec = " (speculatively: before the `if` above it is decided)" if vals[1] == "1" else ""
        op = "exclusive read" if i["kind"] == "xld" else "read"
        return f"{op} {loc} -> {vals[0]}{how}{spec}"
    if ev == "fwd":
        return f"read {loc} -> {vals[0]} (its own store, not yet visible to the other CPUs)"
    if ev == "write":
        op = "exclusive write" if i["kind"] == "xst" else "write"
        if i["kind"] == "unlock":
            return f"unlock {loc}{how}"
        return f"{op} {loc} = {vals[0]}{how}"
    if ev == "lock":
        return f"lock {loc} (acquire)"
    if ev == "casfail":
        return f"compare-and-swap on {loc} fails: no store"
    return ev + " " + " ".join(vals)
