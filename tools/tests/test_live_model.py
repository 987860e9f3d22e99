#!/usr/bin/env python3
"""make web's live model against make trace's, on the same recorded trace
(tools/lib/trace_stream.py, trace_parse.Builder): python3
tools/host_tests.py (or run this file).

tools/tests/data/ holds two real runs of the trace scenario, one per
architecture, each recorded twice by the same boot: the kernel's stream
(stream-ARCH.txt, the text of its stream ring, read from the guest's RAM
after the run) and its dump on the console (dump-ARCH.log).  Recorded with

    qemu-system-... -smp 4 -m 128M <kernel> -append 'ktest.filter=trace_scenario* trace.stream=1'
        -object memory-backend-file,id=ram,size=128M,mem-path=F,share=on -machine memory-backend=ram

(tools/mkiso.sh makes the x86-64 ISO with those words), then the ring's
bytes copied out of F at the address the boot line gives.
"""
import os
import random
import struct
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.join(TOOLS, "lib"), os.path.dirname(os.path.abspath(__file__))]
import timeline_svg  # noqa: E402
import trace_parse  # noqa: E402
import trace_stream  # noqa: E402
import test_timeline  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
ARCHES = ("x86_64", "aarch64")


def recorded(arch):
    with open(os.path.join(DATA, f"dump-{arch}.log")) as f:
        dump = f.readlines()
    with open(os.path.join(DATA, f"stream-{arch}.txt")) as f:
        stream = f.read().splitlines()
    return dump, stream


def window_of(trace):
    return trace.events[0].ns, trace.events[-1].ns


def in_window(stream, t0, t1):
    """The stream's records, its events only those of the dump's window
    (the stream began at boot, the dump at the scenario's trace_clear())."""
    out = []
    for line in stream:
        if line.startswith("T "):
            ns = int(line.split()[1])
            if not t0 <= ns <= t1:
                continue
        out.append(line)
    return out


def live_model(lines, chunk=37):
    """The model as make web builds it: the records fed a few at a time,
    the page's updates taken between (as the server does every poll)."""
    live = trace_stream.LiveTrace()
    for i in range(0, len(lines), chunk):
        for line in lines[i:i + chunk]:
            live.feed_line(line)
        live.updates()
    live.finish()
    live.updates()
    model = live.builder.finish()
    return live, model


def describe(model):
    """What the picture and the check say about a model, comparable."""
    def rkey(r):
        return (r.cpu, r.pid, r.start, r.end, r.floor if r.start is None else None)

    return {
        "readers": [(rkey(r), [w.uid for w in r.pre], [w.uid for w in r.later],
                     [w.uid for w in r.violated]) for r in model.readers],
        "waits": [(w.kind, w.number, w.start, w.end, w.cpu, w.end_cpu, w.hops, w.qs,
                   [rkey(r) for r in w.pre], [rkey(r) for r in w.later],
                   [rkey(r) for r in w.beyond], [rkey(r) for r in w.violators],
                   [(ns, cpu, rkey(r)) for ns, cpu, r in w.late_hops]) for w in model.waits],
        "switches": [(e.ns, e.cpu, e.direct) for e in model.switches],
        "marks": [(e.ns, e.cpu, e.text) for e in model.marks],
    }


def oracle(model):
    """Each ended wait's classes and late hops, computed again from scratch
    over every reader of the finished model (the rule of tools/timeline.py's
    docstring), as sets of reader keys; the Builder computed them when the
    wait ended, from the readers it still looked at then."""
    out = []
    for w in model.waits:
        if w.end is None:
            continue
        pre, later, beyond, bad = set(), set(), set(), set()
        for r in model.readers:
            if r.start is None and r.floor > w.start:
                continue
            k = id(r)
            if (r.start < w.start if r.start is not None else r.floor <= w.start) and \
                    (r.end is None or r.end > w.start):
                pre.add(k)
                if r.end is None or r.end >= w.end:
                    bad.add(k)
            elif r.start is not None and w.start <= r.start < w.end:
                later.add(k)
                if r.end is None or r.end > w.end:
                    beyond.add(k)
        late = set()
        for i, (ns, cpu) in enumerate(w.hops):
            q = w.queued.get(i)
            hit = [r for r in model.readers if q is not None and r.cpu == cpu and
                   r.start is not None and w.start < r.start < ns and (r.end is None or r.end > q)]
            if hit:
                late.add((ns, cpu))
        out.append((w.kind, w.start, pre, later, beyond, bad, late))
    return out


def classes(model):
    return [(w.kind, w.start, {id(r) for r in w.pre}, {id(r) for r in w.later},
             {id(r) for r in w.beyond}, {id(r) for r in w.violators},
             {(ns, cpu) for ns, cpu, _ in w.late_hops}) for w in model.waits if w.end is not None]


class LiveAgreesWithMakeTrace(unittest.TestCase):
    def test_the_stream_carries_the_dumped_events(self):
        for arch in ARCHES:
            dump, stream = recorded(arch)
            trace = trace_parse.parse(dump)
            t0, t1 = window_of(trace)
            events = [line for line in in_window(stream, t0, t1) if line.startswith("T ")]
            dumped = [line.strip() for line in dump if line.startswith("T ")]
            self.assertEqual(len(dumped), trace.declared, arch)
            self.assertEqual(events, dumped, arch)

    def test_same_model_same_summary_same_picture(self):
        for arch in ARCHES:
            dump, stream = recorded(arch)
            batch = trace_parse.build(trace_parse.parse(dump))
            t0, t1 = batch.first_ns, batch.last_ns
            live, model = live_model(in_window(stream, t0, t1))
            self.assertGreater(len(batch.gps), 3, arch)
            self.assertGreater(sum(len(w.pre) for w in batch.gps), 0, arch)
            self.assertEqual(describe(model), describe(batch), arch)
            self.assertEqual(trace_parse.summary(model, "log").split("\n")[1:],
                             trace_parse.summary(batch, "log").split("\n")[1:], arch)
            a = timeline_svg.draw(batch, "log", (t0, t1)).svg()
            b = timeline_svg.draw(model, "log", (t0, t1)).svg()
            self.assertEqual(a, b, arch)
            self.assertEqual(live.reorder.late, 0, arch)
            self.assertEqual(live.bad_lines, 0, arch)
            self.assertEqual(classes(model), oracle(model), arch)
            self.assertTrue(any(w.late_hops for w in model.waits), arch)	# the data has some

    def test_what_the_page_got_is_the_model(self):
        """The page's items, once every update is taken, say what the model
        says: each reader's class and each grace period's counts."""
        for arch in ARCHES:
            dump, stream = recorded(arch)
            batch = trace_parse.build(trace_parse.parse(dump))
            live, model = live_model(in_window(stream, batch.first_ns, batch.last_ns))
            items = live.items
            gps = {(it["kind"], it["s"]): it for it in items.values() if it["k"] == "w"}
            for w in batch.gps:
                it = gps[(w.kind, w.start)]
                self.assertEqual((it["e"], it["pre"], it["later"], it["bad"]),
                                 (w.end, len(w.pre), len(w.later), bool(w.violators)), arch)
            kinds = sorted((it["cpu"], it["s"], it["kind"]) for it in items.values()
                           if it["k"] == "r")
            spans = set(w for w in batch.waits if w.is_gp or
                        timeline_svg.updater_window_drawn(batch, w))
            want = sorted((r.cpu, r.start if r.start is not None else r.floor,
                           timeline_svg.reader_kind(r, [w for w in r.pre if w in spans],
                                                    [w for w in r.later if w in spans]))
                          for r in batch.readers)
            self.assertEqual(kinds, want, arch)
            self.assertIn("pre", {k for _, _, k in kinds}, arch)

    def test_a_violation_is_found_live_too(self):
        # test_timeline's violation: CPU2's pre-existing reader ends after the tour.
        G = test_timeline.GOOD
        bad = [s for s in G if s not in ("25 2 8 read_unlock", "26 2 8 read_lock",
                                         "28 2 8 read_unlock")] + ["35 2 8 read_unlock"]
        bad.sort(key=lambda s: float(s.split()[0]))
        lines = test_timeline.dump(*bad)
        batch = trace_parse.build(trace_parse.parse(lines))
        self.assertEqual(len(batch.violations), 2)
        _, model = live_model([s.strip() for s in lines if s.startswith("T ")], chunk=3)
        self.assertEqual(describe(model), describe(batch))
        self.assertEqual(len(model.violations), 2)


class Reorder(unittest.TestCase):
    def test_late_events_leave_in_time_order(self):
        """An event recorded just before a drain may come with the next one."""
        r = trace_stream.Reorder()
        ev = lambda ns: trace_parse.Event(ns, 0, 0, "hop")	# noqa: E731
        out = []
        for drain in ([ev(5), ev(7)], [ev(6), ev(12)], [ev(11), ev(20)], []):
            for e in drain:
                r.push(e)
            r.watermark(max([e.ns for e in drain] + [r.marks[-1] if r.marks else 0]) + 1)
            out += [e.ns for e in r.ready()]
        out += [e.ns for e in r.ready(flush=True)]
        self.assertEqual(out, [5, 6, 7, 11, 12, 20])
        self.assertEqual(r.late, 0)

    def test_without_watermarks_old_events_leave_all_the_same(self):
        r = trace_stream.Reorder()
        for ns in (1, 3, 2):
            r.push(trace_parse.Event(ns * 10**6, 0, 0, "hop"))
        self.assertEqual(r.ready(), [])
        r.push(trace_parse.Event(500 * 10**6, 0, 0, "hop"))	# no drain ever caught up
        self.assertEqual([e.ns // 10**6 for e in r.ready()], [1, 2, 3])


class Ring(unittest.TestCase):
    """StreamRing on a RAM file written as the kernel writes its ring."""

    def opened(self, path):
        f = open(path, "rb")
        self.addCleanup(f.close)
        return f

    def ring_file(self, size, phys):
        f = tempfile.NamedTemporaryFile(delete=False)
        self.addCleanup(os.unlink, f.name)
        self.addCleanup(f.close)
        f.write(bytes(phys + trace_stream.HEADER.size + size + 64))
        f.flush()
        return f

    def write(self, f, phys, size, at, data):
        """The kernel's channel_write(): claim, bytes, head."""
        for i, byte in enumerate(data):
            f.seek(phys + trace_stream.HEADER.size + (at + i) % size)
            f.write(bytes([byte]))
        f.seek(phys)
        f.write(trace_stream.HEADER.pack(trace_stream.MAGIC, size, at + len(data),
                                         at + len(data)))
        f.flush()
        return at + len(data)

    def setup_ring(self, size, phys):
        """A ring the kernel has just made, its reader, and the recorded
        stream to write into it."""
        _, stream = recorded("x86_64")
        f = self.ring_file(size, phys)
        self.write(f, phys, size, 0, b"")
        ring = trace_stream.StreamRing(self.opened(f.name), phys, "x86_64")
        return f, ring, stream, ("\n".join(stream) + "\n").encode()

    def test_lines_come_whole_across_the_wrap(self):
        size, phys = 4096, 8192
        f, ring, stream, data = self.setup_ring(size, phys)
        got, at, rnd = [], 0, random.Random(47)
        while at < len(data):
            n = rnd.randint(1, 3000)
            at = self.write(f, phys, size, at, data[at:at + n])
            got += ring.lines()
        self.assertEqual(got, stream)
        self.assertEqual(ring.lost_bytes, 0)

    def test_a_lapped_reader_counts_the_loss_and_resumes_at_a_record(self):
        size, phys = 2048, 0
        f, ring, stream, data = self.setup_ring(size, phys)
        at = self.write(f, phys, size, 0, data[:5000])	# more than the ring holds
        got = ring.lines()
        self.assertGreater(ring.lost_bytes, 0)
        self.assertTrue(got and all(trace_stream.parse_record(line) for line in got))
        self.assertEqual(got[-1], data[:5000].decode().split("\n")[-2])
        self.assertEqual(self.write(f, phys, size, at, b""), at)

    def test_no_ring_at_the_address(self):
        f = self.ring_file(64, 0)
        with self.assertRaises(ValueError):
            trace_stream.StreamRing(self.opened(f.name), 0, "x86_64")
        with self.assertRaises(ValueError):
            trace_stream.StreamRing(self.opened(f.name), 1 << 40, "x86_64")


class Records(unittest.TestCase):
    def test_each_kind(self):
        P = trace_stream.parse_record
        self.assertEqual(P("C 5 1 busy 7 2 rcu torture")[1],
                         {"ns": 5, "cpu": 1, "state": "busy", "pid": 7, "queued": 2,
                          "comm": "rcu torture"})
        self.assertEqual(P("C 5 3 offline")[1], {"ns": 5, "cpu": 3, "state": "offline"})
        self.assertEqual(P("R 9 gp=-300 owe=0x3")[1], {"ns": 9, "gp": "-300", "owe": "0x3"})
        self.assertEqual(P("L 9 2 400"), ("L", (2, 400)))
        self.assertEqual(P("W 77"), ("W", 77))
        self.assertEqual(P("B 1 cpus=4 possible=4")[1], {"ns": 1, "cpus": 4, "possible": 4})
        self.assertEqual(P("T 5 0 3 hop")[1].name, "hop")
        for junk in ("", "C x", "W", "L 1 2", "T 5 0 3 frobnicate", "Q 1", "C 5 1 busy x 2 c",
                     "\x00\xff", "R x"):
            self.assertIsNone(P(junk), repr(junk))


if __name__ == "__main__":
    unittest.main()
