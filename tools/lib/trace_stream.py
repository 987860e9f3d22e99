"""The kernel's trace stream, read live (make web; docs/web.md).

With trace.stream=1 the kernel writes its RCU events, as the lines of a
trace dump (docs/trace.md), into a ring of text in its own memory, with
each CPU's state and RCU's counts (kernel/trace_stream.c says what each
record is).  QEMU runs with the guest's RAM in a file; StreamRing maps
that file and reads the ring: the kernel's boot line

    trace: streaming RCU events into memory at 0x769000, 262104 bytes

says where.  LiveTrace turns the records into the model tools/timeline.py
draws (trace_parse.Builder, fed one event at a time in time order) and
into the messages the page (tools/web/) draws it from.
"""
import heapq
import mmap
import re
import struct

from timeline_svg import reader_kind, updater_window_drawn
from trace_parse import Builder, Reader, Trace, parse_event

# Where QEMU's machines put RAM: the RAM file's offset 0 is this physical address.
RAM_BASE = {"x86_64": 0, "aarch64": 0x40000000}
STREAM_RE = re.compile(r"trace: streaming RCU events into memory at (0x[0-9a-f]+), (\d+) bytes")
MAGIC = b"quiescent-trace\0"
HEADER = struct.Struct("<16sQQQ")	# magic, size, claimed, head (kernel/trace_stream.c)


class StreamRing:
    """The kernel's stream ring in the guest's RAM file; lines() gives the
    whole records written since the last call."""

    def __init__(self, ram_file, phys, arch):
        self.map = mmap.mmap(ram_file.fileno(), 0, prot=mmap.PROT_READ)
        self.off = phys - RAM_BASE[arch]
        if not 0 <= self.off <= len(self.map) - HEADER.size:
            raise ValueError(f"stream ring at {phys:#x}: outside the guest's RAM")
        magic, self.size, _, _ = HEADER.unpack_from(self.map, self.off)
        if magic != MAGIC or not 0 < self.size <= len(self.map) - self.off - HEADER.size:
            raise ValueError(f"no stream ring at {phys:#x} (its magic is {magic!r})")
        self.pos = 0			# bytes of the stream read so far
        self.partial = b""
        self.lost_bytes = 0

    def _copy(self, start, end):
        base = self.off + HEADER.size
        a, b = start % self.size, end % self.size
        if end - start == 0:
            return b""
        if a < b:
            return self.map[base + a:base + b]
        return self.map[base + a:base + self.size] + self.map[base:base + b]

    def lines(self):
        # [stream_host_read] (kernel/trace_stream.c): head, the bytes, then claimed.
        _, _, _, head = HEADER.unpack_from(self.map, self.off)
        if head < self.pos:
            raise ValueError("the stream ring went backwards: the kernel rebooted?")
        lapped = head - self.pos > self.size
        if lapped:				# those bytes are gone
            self.lost_bytes += head - self.size - self.pos
            self.pos = head - self.size
        data = self._copy(self.pos, head)
        _, _, claimed, _ = HEADER.unpack_from(self.map, self.off)
        overwritten = max(claimed - self.size - self.pos, 0)
        if lapped or overwritten:		# resume at the next whole record
            self.lost_bytes += overwritten
            data, self.partial = data[overwritten:], b""
            cut = data.find(b"\n")
            self.lost_bytes += cut + 1 if cut >= 0 else len(data)
            data = data[cut + 1:] if cut >= 0 else b""
        self.pos = head
        data = self.partial + data
        *whole, self.partial = data.split(b"\n")
        return [w.decode("utf-8", "replace") for w in whole]

    def close(self):
        self.map.close()


def parse_fields(words):
    """['gp=-300', 'running=0'] -> {'gp': '-300', 'running': '0'}"""
    return dict(w.split("=", 1) for w in words if "=" in w)


def parse_record(line):
    """One line of the stream -> (kind, value): ("T", Event), ("C", cpu
    state dict), ("R", counts dict), ("L", (cpu, n)), ("W", ns), ("B",
    dict); None for a line that is none of them (it is counted, not
    trusted: a line cut short by a lost stretch)."""
    kind = line[:1]
    if kind == "T":
        e, _ = parse_event(line)
        return ("T", e) if e else None
    words = line.split()
    try:
        if kind == "C" and len(words) >= 4:
            st = {"ns": int(words[1]), "cpu": int(words[2]), "state": words[3]}
            if words[3] != "offline":
                st.update(pid=int(words[4]), queued=int(words[5]),
                          comm=" ".join(words[6:]))
            return ("C", st)
        if kind == "R":
            return ("R", dict(parse_fields(words[2:]), ns=int(words[1])))
        if kind == "L" and len(words) == 4:
            return ("L", (int(words[2]), int(words[3])))
        if kind == "W" and len(words) == 2:
            return ("W", int(words[1]))
        if kind == "B":
            return ("B", dict({k: int(v) for k, v in parse_fields(words[2:]).items()},
                              ns=int(words[1])))
    except (ValueError, IndexError):
        pass
    return None


class Reorder:
    """The kernel's drain merges the rings by time within one visit, but an
    event recorded just before a visit may come in the next one, behind
    later events of other CPUs.  Events wait here until the watermark of
    the visit after the one that might still bring an earlier event (the
    W record: every event recorded before it was out), then leave in time
    order."""

    # A drain that never catches up sends no watermark: events this much
    # older than the newest one leave all the same.
    SLACK_NS = 100 * 10**6

    def __init__(self):
        self.heap = []
        self.seq = 0
        self.marks = []		# the last two watermarks
        self.newest = 0
        self.last_out = 0
        self.late = 0		# events that came after a later one had left

    def push(self, e):
        self.seq += 1
        self.newest = max(self.newest, e.ns)
        heapq.heappush(self.heap, (e.ns, self.seq, e))

    def watermark(self, ns):
        self.marks = (self.marks + [ns])[-2:]

    def ready(self, flush=False):
        """The events that may leave now (all of them: flush)."""
        limit = max(self.marks[0] if len(self.marks) == 2 else 0, self.newest - self.SLACK_NS)
        out = []
        while self.heap and (flush or self.heap[0][0] < limit):
            ns, _, e = heapq.heappop(self.heap)
            self.late += ns < self.last_out
            self.last_out = max(self.last_out, ns)
            out.append(e)
        return out


class LiveTrace:
    """The live model: records in, Builder fed in time order, the page's
    messages out (updates(), state())."""

    KEEP_NS = 120 * 10**9	# what the page and its reconnects get: the last 2 minutes

    def __init__(self):
        self.builder = Builder(Trace(cpus=0, declared=0, lost=0))
        self.reorder = Reorder()
        self.cpus = {}		# cpu -> its last C record
        self.counts = {}	# the last R record
        self.lost = {}		# cpu -> events lost in all
        self.begin = None
        self.bad_lines = 0
        self.items = {}		# key -> the item the page has (what state() resends)
        self.status_changed = False
        self.pruned = 0
        self.kernel_now = 0	# the kernel's time, as its last record said

    def feed_line(self, line):
        rec = parse_record(line)
        if rec is None:
            self.bad_lines += bool(line.strip())
            return
        kind, v = rec
        self.kernel_now = max(self.kernel_now, v.ns if kind == "T" else
                              v if kind == "W" else v.get("ns", 0) if kind in "CRB" else 0)
        if kind == "T":
            self.reorder.push(v)
        elif kind == "W":
            self.reorder.watermark(v)
        elif kind == "C":
            self.cpus[v["cpu"]] = v
            self.status_changed = True
        elif kind == "R":
            self.counts = v
            self.status_changed = True
        elif kind == "L":
            self.lost[v[0]] = v[1]
            self.status_changed = True
        elif kind == "B":
            self.begin = v
            self.status_changed = True
        self._feed_ready()

    def _feed_ready(self, flush=False):
        for e in self.reorder.ready(flush):
            self.builder.feed(e)
            self.builder.trace.cpus = max(self.builder.trace.cpus, e.cpu + 1)

    def finish(self):
        """No more records (QEMU has ended): everything waiting goes in."""
        self._feed_ready(flush=True)

    @property
    def ncpus(self):
        return max([self.builder.trace.cpus, len(self.cpus)] +
                   [(self.begin or {}).get("possible", 0)])

    def status(self):
        return {"t": "status", "now": self.kernel_now,
                "cpus": [self.cpus[c] for c in sorted(self.cpus)],
                "ncpus": self.ncpus, "rcu": self.counts, "lost": sum(self.lost.values()),
                "late": self.reorder.late, "events": self.builder.nevents}

    def updates(self):
        """The items new or changed since the last call, as the page's
        messages (a list; empty when nothing changed)."""
        objs, switches, marks = self.builder.take_changed()
        drawn = Drawn(self.builder.gps())
        items = [item_of(o, drawn) for o in objs]
        items += [switch_item(e) for e in switches] + [mark_item(e) for e in marks]
        for it in items:
            self.items[it["key"]] = it
        self._prune()
        out = []
        if items:
            out.append({"t": "items", "items": items, "now": self.kernel_now})
        if self.status_changed:
            self.status_changed = False
            out.append(self.status())
        return out

    def state(self):
        """Everything the page has, for a viewer who (re)connects."""
        return [{"t": "items", "items": list(self.items.values()),
                 "now": self.kernel_now}, self.status()]

    def _prune(self):
        """Every 10 s of trace, what ended more than KEEP_NS ago goes, from
        the page's store and from the Builder: a long session would
        otherwise grow without end."""
        now = self.builder.last_ns
        if now - self.pruned < 10 * 10**9:
            return
        self.pruned = now
        before = now - self.KEEP_NS
        self.items = {k: it for k, it in self.items.items() if item_end(it) >= before}
        self.builder.prune(before)


def item_end(it):
    """When an item of the page ends (a reader or a wait still running: never)."""
    if it["k"] in ("s", "m"):
        return it["ns"]
    return it["e"] if it["e"] is not None else float("inf")


class Drawn:
    """Which waits the picture draws as spans: timeline_svg's rule, with the
    grace periods looked up once per batch of items."""

    def __init__(self, gps):
        self.gps = gps
        self.memo = {}

    def __call__(self, w):
        if w.is_gp:
            return True
        if w.uid not in self.memo:
            self.memo[w.uid] = updater_window_drawn(self, w)
        return self.memo[w.uid]


def item_of(o, drawn):
    """A reader or a wait as the page gets it."""
    if isinstance(o, Reader):
        kind = reader_kind(o, [w for w in o.pre if drawn(w)], [w for w in o.later if drawn(w)])
        return {"k": "r", "key": f"r{o.uid}", "cpu": o.cpu, "pid": o.pid,
                "s": o.start if o.start is not None else o.floor, "before": o.start is None,
                "e": o.end, "kind": kind, "tip": o.describe()}
    late = {(ns, cpu) for ns, cpu, _ in o.late_hops}
    return {"k": "w", "key": f"w{o.uid}", "kind": o.kind, "label": o.short,
            "s": o.start, "e": o.end, "cpu": o.cpu, "end_cpu": o.end_cpu,
            "hops": [[ns, cpu, (ns, cpu) in late] for ns, cpu in o.hops],
            "qs": [[ns, cpu] for ns, cpu in o.qs], "bad": bool(o.violators),
            "pre": len(o.pre), "later": len(o.later), "beyond": len(o.beyond),
            "drawn": drawn(o), "tip": o.label}


def switch_item(e):
    return {"k": "s", "key": f"s{e.cpu}.{e.ns}", "cpu": e.cpu, "ns": e.ns, "direct": e.direct}


def mark_item(e):
    return {"k": "m", "key": f"m{e.cpu}.{e.ns}", "cpu": e.cpu, "ns": e.ns, "text": e.text}
