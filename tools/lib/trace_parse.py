"""The RCU trace as tools/timeline.py reads it: parsing, the model, the check.

parse() reads the last trace dump of a console log (docs/trace.md), with
parse_event() for each line; build() pairs the events into readers
(read-side critical sections) and waits (synchronize_rcu() tours,
asynchronous grace periods, and the updater-side windows unpublish..kfree
and cb_queue..cb_invoke), and classifies each reader against each wait as
pre-existing or later; summary() reports the waits and any violation: a
pre-existing reader that did not end before its wait ended.
tools/timeline.py's docstring says what each of these means.

build() is a Builder fed the whole dump at once.  The live timeline of
make web (tools/web.py, tools/lib/trace_stream.py) feeds the same Builder
one event at a time as the kernel streams them, and draws its model as it
grows: a wait's readers are classified as soon as the events show that it
has ended, with what the whole trace would give them.
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
          "hop_queue", "exp_begin", "exp_end", "exp_qs", "kick", "irq", "halt", "unhalt",
          "direct"}


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
    direct: bool = False	# a switch: IPC's direct switch (a "direct" event came first)


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


def parse_event(line):
    """One event line ("T <ns> <cpu> <pid> <event> [args]") -> (Event, None),
    or (None, why) for a line that starts as an event and is not one, or
    (None, None) for any other line."""
    s = line.strip()
    m = EVENT_RE.match(s)
    if not m:
        # Console output from elsewhere may come between the events; a
        # line that starts as an event but is not one is reported.
        if s == "T" or s.startswith("T ") or INTERLEAVED_RE.search(s):
            return None, "not a trace event: cut short or interleaved?"
        return None, None
    ns, cpu, pid, name, rest = m.groups()
    if rest and INTERLEAVED_RE.search(rest):
        return None, "two events on one line: interleaved?"
    if name not in EVENTS:
        return None, f"unknown event {name!r}"
    args, text = parse_args_field(name, rest)
    return Event(int(ns), int(cpu), int(pid), name, args, text), None


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
        e, why = parse_event(line)
        if e:
            cur.events.append(e)
        elif why:
            cur.unknown += why.startswith("unknown event")
            cur.malformed.append((lineno, line, why))
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

@dataclass(eq=False)
class Reader:
    cpu: int
    pid: int
    start: int = None		# None: began before this CPU's recording
    end: int = None		# None: still running when the recording stopped
    floor: int = 0		# with start None: known to run at this time
    pre: list = field(default_factory=list)	# waits it is pre-existing for
    later: list = field(default_factory=list)	# waits it began during
    violated: list = field(default_factory=list)
    uid: int = 0		# its number in the order the Builder met it

    def began_before(self, t):
        return self.start < t if self.start is not None else self.floor <= t

    def running_at(self, t):
        return self.began_before(t) and (self.end is None or self.end > t)

    def describe(self):
        s = "before" if self.start is None else ms(self.start)
        e = "after" if self.end is None else ms(self.end)
        return f"reader pid {self.pid} on CPU{self.cpu} ({s}..{e} ms)"


# A wait's kind -> its label (a tooltip's, the text report's) and its short
# name (on the timeline), {} its number: one row a kind.
WAIT_NAMES = {
    "tour": ("synchronize_rcu() tour {}", "synchronize_rcu() #{}"),
    "exp": ("synchronize_rcu_expedited() {}", "expedited #{}"),
    "async": ("call_rcu() grace period {}", "grace period gp={}"),
    "removal": ("removal {} (unpublish..kfree)", "list_del_rcu..kfree #{}"),
    "callback": ("callback {} (cb_queue..cb_invoke)", "call_rcu..callback #{}"),
}


@dataclass(eq=False)
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
    uid: int = 0		# its number in the order the Builder met it

    @property
    def is_gp(self):
        return self.kind in ("tour", "exp", "async")

    @property
    def label(self):
        return WAIT_NAMES[self.kind][0].format(self.number)

    @property
    def short(self):
        return WAIT_NAMES[self.kind][1].format(self.number)


@dataclass
class Model:
    trace: Trace
    readers: list
    waits: list
    switches: list		# events
    marks: list			# events
    cpu_first: dict		# cpu -> ns of its oldest event in the dump
    dropped: int = 0		# read_lock without its read_unlock before another one
    nevents: int = 0		# events it was built from
    first_ns: int = 0		# the oldest one's time
    last_ns: int = 0		# the newest one's time

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


def reader_key(r):
    return r.start if r.start is not None else r.floor


class Builder:
    """The model, one event at a time, events in time order (feed()); the
    live timeline reads it as it grows, finish() completes it.

    A wait's readers are classified once an event later than its end has
    come (or at finish()): every reader that began before the end is then
    known, with whether it ended before, at or after it, which is all the
    classification asks.  What changed since the caller last looked
    (take_changed()) is what the live timeline sends on."""

    def __init__(self, trace):
        self.trace = trace
        self.readers, self.waits, self.switches, self.marks = [], [], [], []
        self.open_reader = {}		# cpu -> Reader
        self.cpu_first = {}
        self.open_tour = {}		# tour number -> Wait
        self.open_gp = None
        self.open_exp = None
        self.open_cb = {}		# ptr -> Wait
        self.hop_queued = {}		# (pid, target cpu) -> ns of its hop_queue
        self.removals_open = {}		# pid -> [Wait] waiting for a "mark kfree"
        self.direct = set()		# cpus whose next switch is a direct one
        self.counters = {"removal": 0, "callback": 0}
        self.dropped = 0
        self.ended = []			# waits ended, not classified yet
        self.nevents = 0
        self.first_ns = self.last_ns = 0
        self.uids = 0
        self.changed = {}		# uid -> Reader or Wait changed since take_changed()
        self.new_switches, self.new_marks = [], []

    def _new(self, obj):
        self.uids += 1
        obj.uid = self.uids
        self.changed[obj.uid] = obj
        return obj

    def _touch(self, obj):
        self.changed[obj.uid] = obj

    def gps(self):
        return [w for w in self.waits if w.is_gp]

    def prune(self, before):
        """Forgets what ended before `before` (the live timeline keeps the
        last minutes only): readers, waits, switches and marks; what is
        still running stays, and so does what a running wait may need."""
        open_since = min([w.start for w in self.waits if w.end is None] + [before])
        self.readers = [r for r in self.readers if r.end >= open_since]
        self.waits = [w for w in self.waits if w.end is None or w.end >= before]
        self.switches = [e for e in self.switches if e.ns >= before]
        self.marks = [e for e in self.marks if e.ns >= before]

    def take_changed(self):
        """(readers and waits, switches, marks) new or changed since the last call."""
        out = (list(self.changed.values()), self.new_switches, self.new_marks)
        self.changed, self.new_switches, self.new_marks = {}, [], []
        return out

    def _end(self, w, e):
        w.end, w.end_cpu = e.ns, e.cpu
        self.ended.append(w)
        self._touch(w)

    def feed(self, e):
        if self.ended and e.ns > min(w.end for w in self.ended):
            self._classify_ended(e.ns)
        if not self.nevents:
            self.first_ns = e.ns
        self.nevents += 1
        self.last_ns = max(self.last_ns, e.ns)
        self.cpu_first.setdefault(e.cpu, e.ns)
        handler = getattr(self, "_on_" + e.name, None)
        if handler:
            handler(e)

    def _on_read_lock(self, e):
        if e.cpu in self.open_reader:
            self.dropped += 1	# its read_unlock is missing: do not guess
        self.open_reader[e.cpu] = self._new(Reader(e.cpu, e.pid, start=e.ns))

    def _on_read_unlock(self, e):
        r = self.open_reader.pop(e.cpu, None)
        if r is None:	# began before this CPU's recording
            r = self._new(Reader(e.cpu, e.pid, start=None, floor=self.cpu_first[e.cpu]))
        r.end = e.ns
        self.readers.append(r)
        self._touch(r)

    def _on_direct(self, e):
        self.direct.add(e.cpu)

    def _on_switch(self, e):
        if e.cpu in self.direct:
            self.direct.discard(e.cpu)
            e.direct = True
        self.switches.append(e)
        self.new_switches.append(e)

    def _on_mark(self, e):
        self.marks.append(e)
        self.new_marks.append(e)
        if e.text.startswith("kfree"):
            for w in self.removals_open.pop(e.pid, []):
                self._end(w, e)

    def _wait(self, kind, number, e, **kw):
        """A wait that begins with event e."""
        w = self._new(Wait(kind, number, e.ns, cpu=e.cpu, pid=e.pid, **kw))
        self.waits.append(w)
        return w

    def _end_keyed(self, table, key, e):
        """Event e ends the wait table holds under key, if any."""
        w = table.pop(key, None)
        if w:
            self._end(w, e)

    def _on_sync_begin(self, e):
        w = self._wait("tour", e.args.get("tour", 0), e)
        self.open_tour[w.number] = w

    def _on_sync_end(self, e):
        self._end_keyed(self.open_tour, e.args.get("tour", 0), e)

    def _on_exp_begin(self, e):
        self.open_exp = self._wait("exp", e.args.get("exp", 0), e)

    def _on_exp_end(self, e):
        if self.open_exp:	# one at a time (a mutex): exp_end closes the open one
            self._end(self.open_exp, e)
            self.open_exp = None

    def _on_exp_qs(self, e):
        if self.open_exp:	# drawn on the lane of the CPU reported for
            self.open_exp.qs.append((e.ns, e.args.get("cpu", e.cpu)))
            self._touch(self.open_exp)

    def _on_hop_queue(self, e):
        self.hop_queued[(e.args.get("pid"), e.args.get("cpu"))] = e.ns

    def _on_hop(self, e):
        q = self.hop_queued.pop((e.pid, e.cpu), None)
        for w in self.open_tour.values():
            if w.pid == e.pid:
                if q is not None and q >= w.start:
                    w.queued[len(w.hops)] = q
                w.hops.append((e.ns, e.cpu))
                self._touch(w)

    def _on_gp_start(self, e):
        self.open_gp = self._wait("async", e.args.get("gp", 0), e)

    def _on_gp_end(self, e):
        if self.open_gp:	# grace periods run one at a time: gp_end gp=start+1
            self._end(self.open_gp, e)
            self.open_gp = None

    def _on_qs(self, e):
        if self.open_gp and e.args.get("gp") == self.open_gp.number:
            self.open_gp.qs.append((e.ns, e.cpu))
            self._touch(self.open_gp)

    def _on_cb_queue(self, e):
        self.counters["callback"] += 1
        w = self._wait("callback", self.counters["callback"], e, ptr=e.args.get("ptr", 0))
        self.open_cb[w.ptr] = w

    def _on_cb_invoke(self, e):
        self._end_keyed(self.open_cb, e.args.get("ptr", 0), e)

    def _on_unpublish(self, e):
        self.counters["removal"] += 1
        w = self._wait("removal", self.counters["removal"], e, ptr=e.args.get("ptr", 0))
        self.removals_open.setdefault(e.pid, []).append(w)

    def _candidates(self, since):
        """The readers that may concern a wait that started at since: those
        still running and those that ended at or after it (the ended ones
        are in the order they ended)."""
        out = list(self.open_reader.values())
        for r in reversed(self.readers):
            if r.end < since:
                break
            out.append(r)
        return sorted(out, key=reader_key)

    def _classify_ended(self, now=None):
        """Classifies the waits that ended before now (all: None)."""
        keep = []
        for w in self.ended:
            if now is not None and w.end >= now:
                keep.append(w)
                continue
            readers = self._candidates(w.start)
            if w.kind == "tour":
                late_hops(readers, w)
            classify_wait(w, readers)
            self._touch(w)
            for r in w.pre + w.later:
                self._touch(r)
        self.ended = keep

    def model(self):
        """The model as it stands: readers still running included, waits
        not ended yet unclassified."""
        readers = sorted(self.readers + list(self.open_reader.values()), key=reader_key)
        return Model(self.trace, readers, self.waits, self.switches, self.marks,
                     self.cpu_first, self.dropped, self.nevents, self.first_ns, self.last_ns)

    def finish(self):
        """The model of the whole trace: every ended wait classified, each
        list in the order of the readers and waits of the model."""
        self._classify_ended()
        model = self.model()
        for w in self.waits:
            if w.kind == "tour" and w.end is None:
                late_hops(model.readers, w)
        # A reader still open when a wait was classified may have been
        # dropped since (its CPU's next read_lock came first: its unlock was
        # lost): not in the model, so no evidence for or against any wait.
        order = {id(r): i for i, r in enumerate(model.readers)}
        for w in self.waits:
            for lst in (w.pre, w.later, w.beyond, w.violators):
                lst[:] = sorted((r for r in lst if id(r) in order), key=lambda r: order[id(r)])
        for r in model.readers:
            for lst in (r.pre, r.later, r.violated):
                lst.sort(key=lambda w: w.uid)
        return model


def build(trace):
    b = Builder(trace)
    for e in trace.events:
        b.feed(e)
    return b.finish()


def late_hops(readers, w):
    """The hops of tour w that waited for a later reader: one that ran on
    the target CPU between the moment run_on() queued the updater there
    (hop_queue) and the hop, and that began after the tour started.  The
    tour visits one CPU at a time and waits for whatever runs there when
    it arrives: correct (it waits for every pre-existing reader too) but
    conservative."""
    w.late_hops = []
    for i, (ns, cpu) in enumerate(w.hops):
        q = w.queued.get(i)
        if q is None:
            continue
        for r in readers:
            if (r.cpu == cpu and r.start is not None and r.start > w.start and
                    r.start < ns and (r.end is None or r.end > q)):
                w.late_hops.append((ns, cpu, r))
                break


def classify_wait(w, readers):
    """Pre-existing / later readers of an ended wait, and the check."""
    for r in readers:
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
    span = model.last_ns - model.first_ns
    out = [f"timeline: {log}: {count(model.nevents, 'event')} on {count(t.cpus, 'CPU')} over "
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
