"""Checks a graded part runs on the console of a passing run, beyond the
tests' own verdicts.  Each takes the console text and the CPU count and
returns None when satisfied, else one line saying what is wrong.
A part names its check by function name (`"check": "tour_visits_every_cpu"`).
"""
import trace_parse


def tour_visits_every_cpu(out, smp):
    """Lab run_on: every synchronize_rcu() tour in the trace (trace=rcu) ran
    its task on every CPU, by context switches to it, between its
    sync_begin and sync_end.  A synchronize_rcu() built on call_rcu()
    passes the tests but stays on its CPU."""
    trace = trace_parse.parse(out.splitlines())
    if trace is None:
        return "no trace in the console (the part runs with trace=rcu)"
    model = trace_parse.build(trace)
    tours = [w for w in model.waits if w.kind == "tour" and w.end is not None]
    if not tours:
        return "the trace holds no complete synchronize_rcu() tour (sync_begin .. sync_end)"
    for w in tours:
        cpus = {w.cpu} | {e.cpu for e in model.switches
                          if e.args.get("next") == w.pid and w.start <= e.ns <= w.end}
        missing = sorted(set(range(smp)) - cpus)
        if missing:
            return (f"synchronize_rcu() tour {w.number} never ran on CPU" +
                    ",".join(str(c) for c in missing) + ": the article's tour visits "
                    "every CPU with run_on()")
    return None
