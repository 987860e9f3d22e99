"""Checks a graded part runs on the console of a passing run, beyond the
tests' own verdicts.  Each takes the console text and the CPU count and
returns None when satisfied, else one line saying what is wrong.
A part names its check by function name (`"check": "tour_visits_every_cpu"`).
"""
import trace_parse


def complete_waits(out, kind, what):
    """The console's trace, its model and its complete waits of kind (both
    ends traced), or a line saying which is missing: (problem, trace,
    model, waits), problem None when all are there."""
    trace = trace_parse.parse(out.splitlines())
    if trace is None:
        return "no trace in the console (the part runs with trace=rcu)", None, None, []
    model = trace_parse.build(trace)
    waits = [w for w in model.waits if w.kind == kind and w.end is not None]
    if not waits:
        return f"the trace holds no complete {what}", trace, model, []
    return None, trace, model, waits


def tour_visits_every_cpu(out, smp):
    """Lab run_on: every synchronize_rcu() tour in the trace (trace=rcu) ran
    its task on every CPU, by context switches to it, between its
    sync_begin and sync_end, and made no more hops than the article's
    tour: one per CPU and one home.  A synchronize_rcu() built on
    call_rcu() passes the tests but stays on its CPU; one that visits the
    CPUs twice, or goes home after each, passes them too but is not the
    article's loop.  Hops are counted twice over, both counts events, never
    times: the hop events run_on() records on arrival (TR_HOP), and the
    context switches to the tour's task (recorded by __schedule(), which
    the lab leaves alone).  A lost event can only lower the counts."""
    problem, _, model, tours = complete_waits(
        out, "tour", "synchronize_rcu() tour (sync_begin .. sync_end)")
    if problem:
        return problem
    allowed = smp + 1
    for w in tours:
        arrivals = [e.cpu for e in model.switches
                    if e.args.get("next") == w.pid and w.start <= e.ns <= w.end]
        missing = sorted(set(range(smp)) - {w.cpu} - set(arrivals))
        if missing:
            return (f"synchronize_rcu() tour {w.number} never ran on CPU" +
                    ",".join(str(c) for c in missing) + ": the article's tour visits "
                    "every CPU with run_on()")
        if not w.hops:
            return (f"synchronize_rcu() tour {w.number} recorded no hop: run_on() records "
                    "trace_record(TR_HOP, cpu, 0) once it runs on cpu (the grade counts them)")
        hops = max(len(w.hops), len(arrivals))
        if hops > allowed:
            return (f"synchronize_rcu() tour {w.number} made {hops} hops on {smp} CPUs "
                    f"({len(w.hops)} hop events, {len(arrivals)} switches to its task): "
                    f"the article's tour makes at most {allowed}, one to each CPU and one home")
    return None


def expedited_asks_every_cpu_at_once(out, smp):
    """Lab expedited: every synchronize_rcu_expedited() in the trace
    (trace=rcu) heard one quiescent-state report (exp_qs) for each CPU,
    no more, and its caller never left its CPU.  A tour from inside it
    passes the trace's other checks but hops.  (Asking one CPU at a time
    is caught by the held-readers test, which holds every reader until
    every CPU has been asked.)  Counts of events, never times."""
    problem, trace, model, exps = complete_waits(
        out, "exp", "synchronize_rcu_expedited() (exp_begin .. exp_end)")
    if problem:
        return problem
    for w in exps:
        name = f"synchronize_rcu_expedited() {w.number}"
        reports = [cpu for _, cpu in w.qs]
        missing = sorted(set(range(smp)) - set(reports))
        if missing:
            return (f"{name}: no exp_qs for CPU" + ",".join(str(c) for c in missing) +
                    ": rcu_exp_report() records trace_record(TR_EXP_QS, cpu, 0) once per CPU")
        twice = sorted({c for c in reports if reports.count(c) > 1})
        if twice:
            return (f"{name}: CPU" + ",".join(str(c) for c in twice) + " reported more "
                    "than once: each CPU owes one quiescent state (its bit in exp_mask)")
        hops = [e for e in trace.events
                if e.name == "hop" and e.pid == w.pid and w.start <= e.ns <= w.end]
        away = {e.cpu for e in model.switches
                if e.args.get("next") == w.pid and w.start <= e.ns <= w.end and e.cpu != w.cpu}
        if hops or away:
            cpus = sorted(away | {e.cpu for e in hops})
            return (f"{name}: its caller made {trace_parse.count(len(hops), 'run_on() hop')} "
                    "and ran on CPU" +
                    ",".join(str(c) for c in cpus) + ": it asks every CPU from its own "
                    "CPU, it does not visit them")
    return None
