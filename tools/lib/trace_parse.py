"""The RCU trace as tools/timeline.py reads it: parsing, the model, the check.

parse() reads the last trace dump of a console log (docs/trace.md);
build() pairs the events into readers (read-side critical sections) and
waits (synchronize_rcu() tours, asynchronous grace periods, and the
updater-side windows unpublish..kfree and cb_queue..cb_invoke), and
classifies each reader against each wait as pre-existing or later;
summary() reports the waits and any violation: a pre-existing reader that
did not end before its wait ended.  tools/timeline.py's docstring says
what each of these means.
"""
import re
from dataclasses import dataclass, field

BEGIN_RE = re.compile(r"# trace: begin cpus=(\d+) events=(\d+) lost=(\d+)")
END_RE = re.compile(r"# trace: end")
EVENT_RE = re.compile(r"T (\d+) (\d+) (\d+) ([a-z_]+)(?: (.*))?$")
KEY_RE = re.compile(r"([a-z]+)=(\S+)$")
# An event's start inside another line: two CPUs' lines interleaved.
INTERLEAVED_RE = re.compile(r"T \d+ \d+ \d+ [a-z_]")

EVENTS = {"read_lock", "read_unlock", "switch", "qs", "hop", "sync_begin", "sync_end",
          "gp_start", "gp_end", "cb_queue", "cb_invoke", "publish", "unpublish", "mark",
          "hop_queue", "exp_begin", "exp_end", "exp_qs", "kick", "irq", "halt", "unhalt"}


# --------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------

@dataclass
class Event:
    ns: int
    cpu: int
    pid: int
    name: str
    args: dict = field(default_factory=dict)
    text: str = ""		# a mark's label


@dataclass
class Trace:
    cpus: int
    declared: int		# events=N of the begin line
    lost: int
    events: list = field(default_factory=list)
    complete: bool = False	# the end line was seen
    unknown: int = 0		# T lines with an event name this tool does not know
    # (line number, line, why): T lines that cannot be read (cut short, or two
    # CPUs' lines interleaved) and events this tool does not know
    malformed: list = field(default_factory=list)


def parse_args_field(name, rest):
    """'prev=1 next=2' -> {'prev': 1, 'next': 2}; a mark keeps its text."""
    if name == "mark":
        return {}, rest or ""
    args = {}
    for word in (rest or "").split():
        m = KEY_RE.match(word)
        if m:
            try:
                args[m.group(1)] = int(m.group(2), 0)
            except ValueError:
                args[m.group(1)] = m.group(2)
    return args, ""


def parse(lines):
    """The last trace dump in an iterable of console lines, or None."""
    dumps = []
    cur = None
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\r\n")
        m = BEGIN_RE.search(line)
        if m:
            cur = Trace(int(m.group(1)), int(m.group(2)), int(m.group(3)))
            dumps.append(cur)
            continue
        if cur is None or cur.complete:
            continue
        if END_RE.search(line):
            cur.complete = True
            continue
        m = EVENT_RE.match(line.strip())
        if not m:
            # Console output from elsewhere may come between the events; a
            # line that starts as an event but is not one is reported.
            s = line.strip()
            if s == "T" or s.startswith("T ") or INTERLEAVED_RE.search(s):
                cur.malformed.append((lineno, line, "not a trace event: cut short or interleaved?"))
            continue
        ns, cpu, pid, name, rest = m.groups()
        if rest and INTERLEAVED_RE.search(rest):
            cur.malformed.append((lineno, line, "two events on one line: interleaved?"))
            continue
        if name not in EVENTS:
            cur.unknown += 1
            cur.malformed.append((lineno, line, f"unknown event {name!r}"))
            continue
        args, text = parse_args_field(name, rest)
        cur.events.append(Event(int(ns), int(cpu), int(pid), name, args, text))
    if not dumps:
        return None
    trace = dumps[-1]
    trace.events.sort(key=lambda e: e.ns)	# already merged by time; be sure
    if trace.events:
        trace.cpus = max(trace.cpus, 1 + max(e.cpu for e in trace.events))
    return trace


# --------------------------------------------------------------------------
# The model: readers, grace periods and the check
# --------------------------------------------------------------------------

@dataclass
class Reader:
    cpu: int
    pid: int
    start: int = None		# None: began before this CPU's recording
    end: int = None		# None: still running when the recording stopped
    floor: int = 0		# with start None: known to run at this time
    pre: list = field(default_factory=list)	# waits it is pre-existing for
    later: list = field(default_factory=list)	# waits it began during
    violated: list = field(default_factory=list)

    def began_before(self, t):
        return self.start < t if self.start is not None else self.floor <= t

    def running_at(self, t):
        return self.began_before(t) and (self.end is None or self.end > t)

    def describe(self):
        s = "before" if self.start is None else ms(self.start)
        e = "after" if self.end is None else ms(self.end)
        return f"reader pid {self.pid} on CPU{self.cpu} ({s}..{e} ms)"


@dataclass
class Wait:
    """Something that must outlast its pre-existing readers."""
    kind: str			# tour | exp | async | removal | callback
    number: int
    start: int
    end: int = None		# None: had not ended when the recording stopped
    cpu: int = 0
    pid: int = 0
    end_cpu: int = 0
    ptr: int = 0
    hops: list = field(default_factory=list)	# (ns, cpu)
    queued: dict = field(default_factory=dict)	# hop index -> ns its run_on() was queued
    late_hops: list = field(default_factory=list)	# (ns, cpu, reader): waited for a later reader
    qs: list = field(default_factory=list)	# (ns, cpu)
    pre: list = field(default_factory=list)
    later: list = field(default_factory=list)
    beyond: list = field(default_factory=list)
    violators: list = field(default_factory=list)
    row: int = 0

    @property
    def is_gp(self):
        return self.kind in ("tour", "exp", "async")

    @property
    def label(self):
        return {"tour": f"synchronize_rcu() tour {self.number}",
                "exp": f"synchronize_rcu_expedited() {self.number}",
                "async": f"call_rcu() grace period {self.number}",
                "removal": f"removal {self.number} (unpublish..kfree)",
                "callback": f"callback {self.number} (cb_queue..cb_invoke)"}[self.kind]

    @property
    def short(self):
        return {"tour": f"synchronize_rcu() #{self.number}",
                "exp": f"expedited #{self.number}",
                "async": f"grace period gp={self.number}",
                "removal": f"list_del_rcu..kfree #{self.number}",
                "callback": f"call_rcu..callback #{self.number}"}[self.kind]


@dataclass
class Model:
    trace: Trace
    readers: list
    waits: list
    switches: list		# events
    marks: list			# events
    cpu_first: dict		# cpu -> ns of its oldest event in the dump
    dropped: int = 0		# read_lock without its read_unlock before another one

    @property
    def gps(self):
        return [w for w in self.waits if w.is_gp]

    @property
    def violations(self):
        return [(w, r) for w in self.waits for r in w.violators]


def count(n, word):
    """'1 reader', '2 readers'."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def ms(ns):
    return f"{ns / 1e6:.3f}"


def build(trace):
    readers, waits, switches, marks = [], [], [], []
    open_reader = {}		# cpu -> Reader
    cpu_first = {}
    open_tour = {}		# tour number -> Wait
    open_gp = None
    open_exp = None
    open_cb = {}		# ptr -> Wait
    hop_queued = {}		# (pid, target cpu) -> ns of its hop_queue
    removals_open = {}		# pid -> [Wait] waiting for a "mark kfree"
    counters = {"removal": 0, "callback": 0}
    dropped = 0

    for e in trace.events:
        cpu_first.setdefault(e.cpu, e.ns)
        if e.name == "read_lock":
            if e.cpu in open_reader:
                dropped += 1	# its read_unlock is missing: do not guess
            open_reader[e.cpu] = Reader(e.cpu, e.pid, start=e.ns)
        elif e.name == "read_unlock":
            r = open_reader.pop(e.cpu, None)
            if r is None:	# began before this CPU's recording
                r = Reader(e.cpu, e.pid, start=None, floor=cpu_first[e.cpu])
            r.end = e.ns
            readers.append(r)
        elif e.name == "switch":
            switches.append(e)
        elif e.name == "mark":
            marks.append(e)
            if e.text.startswith("kfree"):
                for w in removals_open.pop(e.pid, []):
                    w.end, w.end_cpu = e.ns, e.cpu
        elif e.name == "sync_begin":
            w = Wait("tour", e.args.get("tour", 0), e.ns, cpu=e.cpu, pid=e.pid)
            open_tour[w.number] = w
            waits.append(w)
        elif e.name == "sync_end":
            w = open_tour.pop(e.args.get("tour", 0), None)
            if w:
                w.end, w.end_cpu = e.ns, e.cpu
        elif e.name == "exp_begin":
            open_exp = Wait("exp", e.args.get("exp", 0), e.ns, cpu=e.cpu, pid=e.pid)
            waits.append(open_exp)
        elif e.name == "exp_end":
            if open_exp:	# one at a time (a mutex): exp_end closes the open one
                open_exp.end, open_exp.end_cpu = e.ns, e.cpu
                open_exp = None
        elif e.name == "exp_qs":
            if open_exp:	# drawn on the lane of the CPU reported for
                open_exp.qs.append((e.ns, e.args.get("cpu", e.cpu)))
        elif e.name == "hop_queue":
            hop_queued[(e.args.get("pid"), e.args.get("cpu"))] = e.ns
        elif e.name == "hop":
            q = hop_queued.pop((e.pid, e.cpu), None)
            for w in open_tour.values():
                if w.pid == e.pid:
                    if q is not None and q >= w.start:
                        w.queued[len(w.hops)] = q
                    w.hops.append((e.ns, e.cpu))
        elif e.name == "gp_start":
            open_gp = Wait("async", e.args.get("gp", 0), e.ns, cpu=e.cpu, pid=e.pid)
            waits.append(open_gp)
        elif e.name == "gp_end":
            if open_gp:		# grace periods run one at a time: gp_end gp=start+1
                open_gp.end, open_gp.end_cpu = e.ns, e.cpu
                open_gp = None
        elif e.name == "qs":
            if open_gp and e.args.get("gp") == open_gp.number:
                open_gp.qs.append((e.ns, e.cpu))
        elif e.name == "cb_queue":
            counters["callback"] += 1
            w = Wait("callback", counters["callback"], e.ns, cpu=e.cpu, pid=e.pid,
                     ptr=e.args.get("ptr", 0))
            open_cb[w.ptr] = w
            waits.append(w)
        elif e.name == "cb_invoke":
            w = open_cb.pop(e.args.get("ptr", 0), None)
            if w:
                w.end, w.end_cpu = e.ns, e.cpu
        elif e.name == "unpublish":
            counters["removal"] += 1
            w = Wait("removal", counters["removal"], e.ns, cpu=e.cpu, pid=e.pid,
                     ptr=e.args.get("ptr", 0))
            removals_open.setdefault(e.pid, []).append(w)
            waits.append(w)
    readers.extend(open_reader.values())	# still running at the end
    readers.sort(key=lambda r: (r.start if r.start is not None else r.floor))
    model = Model(trace, readers, waits, switches, marks, cpu_first, dropped)
    classify(model)
    return model


def late_hops(model, w):
    """The hops of tour w that waited for a later reader: one that ran on
    the target CPU between the moment run_on() queued the updater there
    (hop_queue) and the hop, and that began after the tour started.  The
    tour visits one CPU at a time and waits for whatever runs there when
    it arrives: correct (it waits for every pre-existing reader too) but
    conservative."""
    for i, (ns, cpu) in enumerate(w.hops):
        q = w.queued.get(i)
        if q is None:
            continue
        for r in model.readers:
            if (r.cpu == cpu and r.start is not None and r.start > w.start and
                    r.start < ns and (r.end is None or r.end > q)):
                w.late_hops.append((ns, cpu, r))
                break


def classify(model):
    """Pre-existing / later readers of each wait, and the check."""
    for w in model.waits:
        if w.kind == "tour":
            late_hops(model, w)
        if w.end is None:
            continue		# unfinished: nothing to check
        for r in model.readers:
            if r.start is None and r.floor > w.start:
                continue	# its CPU's recording began after w started: unknown
            if r.running_at(w.start):
                w.pre.append(r)
                r.pre.append(w)
                if r.end is None or r.end >= w.end:
                    w.violators.append(r)
                    r.violated.append(w)
            elif r.start is not None and w.start <= r.start < w.end:
                w.later.append(r)
                r.later.append(w)
                if r.end is None or r.end > w.end:
                    w.beyond.append(r)


def summary(model, log):
    t = model.trace
    gps = [w for w in model.gps if w.end is not None]
    tours = [w for w in gps if w.kind == "tour"]
    exps = [w for w in gps if w.kind == "exp"]
    upd = [w for w in model.waits if not w.is_gp and w.end is not None]
    span = (t.events[-1].ns - t.events[0].ns) if t.events else 0
    out = [f"timeline: {log}: {count(len(t.events), 'event')} on {count(t.cpus, 'CPU')} over "
           f"{span / 1e6:.1f} ms (lost {t.lost}{'' if t.complete else ', dump incomplete'})"]
    if t.lost:
        out.append(f"  warning: {t.lost} events were overwritten: each CPU's lane starts at "
                   f"its oldest event kept")
    for n, line, why in t.malformed[:5]:
        out.append(f"  warning: line {n}: {why}: {line[:80]!r}")
    if len(t.malformed) > 5:
        out.append(f"  warning: and {len(t.malformed) - 5} more lines that are not events")
    out.append(f"  grace periods:                      {len(gps)} ({len(tours)} synchronize_rcu() "
               f"tours, {len(exps)} expedited, {len(gps) - len(tours) - len(exps)} asynchronous)")
    out.append(f"  readers (read-side critical sections): {len(model.readers)}")
    out.append(f"  pre-existing readers waited for:    "
               f"{sum(len(w.pre) - len(w.violators) for w in gps)}")
    out.append(f"  later readers extending beyond the end: {sum(len(w.beyond) for w in gps)}")
    out.append(f"  tour hops that waited for a later reader: "
               f"{sum(len(w.late_hops) for w in tours)} (marked * below: the tour visits "
               f"one CPU at a time and waits for whatever runs there)")
    if upd:
        out.append(f"  updater-side checks: {count(sum(w.kind == 'removal' for w in upd), 'removal')} "
                   f"(unpublish..kfree), {count(sum(w.kind == 'callback' for w in upd), 'callback')}"
                   f" (cb_queue..cb_invoke): "
                   f"{sum(len(w.pre) - len(w.violators) for w in upd)} pre-existing readers "
                   f"waited for")
    for w in gps:
        where = ""
        if w.kind == "tour":
            late = {(ns, c) for ns, c, _ in w.late_hops}
            where = "  hops " + " ".join(f"CPU{c}{'*' if (ns, c) in late else ''}"
                                         for ns, c in w.hops)
        else:
            where = "  " + count(len(w.qs), "quiescent state")
        out.append(f"    {w.short:24} {ms(w.start)}..{ms(w.end)} ms "
                   f"({(w.end - w.start) / 1e6:.2f} ms): pre-existing {len(w.pre)}, "
                   f"later {len(w.later)} ({len(w.beyond)} beyond the end){where}")
    for w, r in model.violations:
        out.append(f"  VIOLATION: {r.describe()} was running when {w.label} started "
                   f"({ms(w.start)} ms) and {'ended' if r.end is not None else 'was still running'}"
                   f" after it ended ({ms(w.end)} ms)")
    out.append(f"  VIOLATIONS: {len(model.violations)}")
    if not gps and not upd:
        out.append("  note: no grace period in this trace")
    return "\n".join(out)
