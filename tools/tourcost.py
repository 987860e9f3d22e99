#!/usr/bin/env python3
"""Where a synchronize_rcu() tour's time goes, hop by hop, from a trace dump.

    python3 tools/tourcost.py LOG [LOG...]

LOG is a console log holding a trace dump with the scheduler's events
(kick, irq, halt, unhalt: docs/trace.md), such as the one the test
tour_cost_idle_tours_kick_each_cpu prints:

    make test CHECKING=0 SMP=4 TESTS='tour_cost*' > tour.log
    python3 tools/tourcost.py tour.log

Each hop of each tour (run_on(B) from CPU A) is cut at its events, all
timed by the kernel's one clock (ktime_get_ns()), none by the host's:

  leave     previous hop's arrival (or sync_begin) -> switch away on A
            (run_on(), __schedule(): the quiescent-state report, the lock)
  queue     -> hop_queue on A (the switch to A's idle task, finish_task_switch())
  kick      -> kick on A (enqueue under B's run-queue lock, the IPI sent)
  deliver   -> irq kind=resched on B (the IPI reaching B: a halted vCPU woken)
  handler   -> unhalt on B (the interrupt handler, back from hlt / wfi)
  idle      -> switch on B to the hopping task (B's idle loop looks at
               its queue, __schedule())
  arrive    -> hop on B (the switch itself, finish_task_switch())

A hop whose target was running (no kick, "busy"), or was kicked but woken
first by another interrupt (a tick), is counted apart and its time is given
whole.  Prints the
median and the sum over the tours of each part, and the two IPI round trips
the test timed in the same run: back to back, and to a CPU that had halted
first (as each hop's target has).  Exits 1 if any hop to a halted CPU got no
kick (a lost wake-up: only a tick would end its wait).
"""
import re
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "lib"))
import trace_parse  # noqa: E402

PARTS = ["leave", "queue", "kick", "deliver", "handler", "idle", "arrive"]
INFO_RE = re.compile(r"(\d+) CPUs: \d+ tours, (\d+) ns per tour, (\d+) ns per hop; "
                     r"(\d+) kicks; IPI round trip (\d+) ns(?:, to a halted CPU (\d+) ns)?")


def first(events, i, pred):
    """Index of the first event at or after i satisfying pred, or None."""
    for j in range(i, len(events)):
        if pred(events[j]):
            return j
    return None


def halted_at(ev, i, cpu):
    """Was cpu halted (its last halt/unhalt before ev[i] a halt)?"""
    for e in reversed(ev[:i]):
        if e.cpu == cpu and e.name in ("halt", "unhalt"):
            return e.name == "halt"
    return False


def cut_hop(ev, start_i, start_ns, pid):
    """The parts of the hop that begins after ev[start_i]: (parts, kind, end index)."""
    q = first(ev, start_i, lambda e: e.name == "hop_queue" and e.args.get("pid") == pid
              or e.name == "hop" and e.pid == pid)
    if q is None:
        return None
    if ev[q].name == "hop":		# run_on() our own CPU: no switch
        return {"local": ev[q].ns - start_ns}, "local", q
    src, dst = ev[q].cpu, ev[q].args.get("cpu")
    out = first(ev, start_i, lambda e: e.name == "switch" and e.cpu == src
                and e.args.get("prev") == pid)
    hop = first(ev, q, lambda e: e.name == "hop" and e.pid == pid)
    if out is None or hop is None or out > q:
        return None
    sw_in = first(ev, q, lambda e: e.name == "switch" and e.cpu == dst
                  and e.args.get("next") == pid)
    kick = first(ev, q, lambda e: e.name == "kick" and e.cpu == src
                 and e.args.get("cpu") == dst)
    if kick is not None and kick > hop:
        kick = None
    whole = ev[hop].ns - start_ns
    if kick is None:
        # No kick: fine if dst was running something; halted, it waited for a tick.
        return {"whole": whole}, "lost_kick" if halted_at(ev, q, dst) else "busy", hop
    irq = first(ev, kick, lambda e: e.name == "irq" and e.cpu == dst
                and e.args.get("kind") == "resched")
    if irq is None or sw_in is None or irq > sw_in:
        # Kicked, but another interrupt (a tick) woke it first: no wait lost.
        return {"whole": whole}, "woken_first_by_other", hop
    parts = {"leave": ev[out].ns - start_ns, "queue": ev[q].ns - ev[out].ns,
             "kick": ev[kick].ns - ev[q].ns, "deliver": ev[irq].ns - ev[kick].ns,
             "arrive": ev[hop].ns - ev[sw_in].ns}
    un = first(ev, irq, lambda e: e.name == "unhalt" and e.cpu == dst)
    mid = ev[un].ns if un is not None and un < sw_in else ev[irq].ns
    parts["handler"], parts["idle"] = mid - ev[irq].ns, ev[sw_in].ns - mid
    halted = halted_at(ev, kick, dst)
    # When did the CPU we left halt, against the target's interrupt?
    h = first(ev, kick, lambda e: e.name == "halt" and e.cpu == src)
    if h is not None:
        parts["_src_halt"] = ev[h].ns - ev[kick].ns
        parts["_irq_after_src_halt"] = ev[irq].ns - ev[h].ns
    return parts, "kicked_halted" if halted else "kicked_awake", hop


def analyse(trace):
    ev = trace.events
    hops = {"kicked_halted": [], "kicked_awake": [], "busy": [], "woken_first_by_other": [],
            "lost_kick": [], "local": []}
    tours = []
    i = 0
    while True:
        b = first(ev, i, lambda e: e.name == "sync_begin")
        if b is None:
            break
        pid = ev[b].pid
        end = first(ev, b, lambda e: e.name == "sync_end" and e.pid == pid)
        if end is None:
            break
        tours.append(ev[end].ns - ev[b].ns)
        at_i, at_ns = b + 1, ev[b].ns
        while True:
            cut = cut_hop(ev[:end], at_i, at_ns, pid)
            if cut is None:
                break
            parts, kind, h = cut
            hops[kind].append(parts)
            at_i, at_ns = h + 1, ev[h].ns
        i = end + 1
    return tours, hops


def us(ns):
    return f"{ns / 1000:8.1f}"


def report(path):
    lines = Path(path).read_text(errors="replace").splitlines()
    trace = trace_parse.parse(lines)
    if trace is None:
        print(f"tourcost: {path}: no trace dump")
        return 2
    info = next((m for m in map(INFO_RE.search, lines) if m), None)
    tours, hops = analyse(trace)
    if not tours:
        print(f"tourcost: {path}: no complete synchronize_rcu() tour in the dump")
        return 2
    ncpu = trace.cpus
    print(f"tourcost: {path}: {ncpu} CPUs, {len(tours)} tours, "
          f"median tour {statistics.median(tours) / 1000:.1f} us (kernel clock)")
    if info:
        tour = statistics.median(tours)
        ipi = int(info.group(5))
        print(f"  IPI round trip (same run, sender spinning): {ipi / 1000:.1f} us; "
              f"median tour = {tour / ipi:.1f} round trips, 2 x N = {2 * ncpu}")
        if info.group(6):
            halted = int(info.group(6))
            print(f"  IPI round trip to a halted CPU (same run): {halted / 1000:.1f} us; "
                  f"median tour = {tour / halted:.1f} such round trips, N = {ncpu}")
    kh = hops["kicked_halted"] + hops["kicked_awake"]
    counts = ", ".join(f"{k} {len(v)}" for k, v in hops.items())
    print(f"  hops: {counts}")
    if kh:
        total = [sum(v for k, v in p.items() if not k.startswith("_")) for p in kh]
        print(f"  kicked hop, median {statistics.median(total) / 1000:.1f} us; "
              "parts (us): median, share of the kicked hops' sum")
        grand = sum(total)
        for name in PARTS:
            vals = [p[name] for p in kh]
            print(f"    {name:8} {us(statistics.median(vals))}  {100 * sum(vals) / grand:5.1f} %")
        sh = [p for p in kh if "_src_halt" in p]
        if sh:
            after = sum(1 for p in sh if p["_irq_after_src_halt"] > 0)
            print(f"  the CPU we left halted {statistics.median(p['_src_halt'] for p in sh) / 1000:.1f} us "
                  f"(median) after its kick; the target's interrupt came after that halt in "
                  f"{after} of {len(sh)} hops, {statistics.median(p['_irq_after_src_halt'] for p in sh) / 1000:.1f} us "
                  "after it (median)")
    for kind in ("busy", "woken_first_by_other", "lost_kick"):
        if hops[kind]:
            print(f"  {kind} hops: median {statistics.median(p['whole'] for p in hops[kind]) / 1000:.1f} us")
    if hops["local"]:
        print(f"  local hops: median {statistics.median(p['local'] for p in hops['local']) / 1000:.1f} us")
    ticks = sum(1 for e in trace.events if e.name == "irq" and e.args.get("kind") == "tick")
    print(f"  ticks taken during the dump: {ticks}")
    if hops["lost_kick"]:
        print(f"tourcost: {len(hops['lost_kick'])} hop(s) to a halted CPU that got no kick")
        return 1
    return 0


def main(argv):
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if argv else 2
    return max(report(p) for p in argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
