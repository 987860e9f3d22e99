#!/usr/bin/env python3
"""Property tests of the trace parser (trace_parse.py) with hypothesis.

    python3 tools/tests/test_trace_props.py [-q]

A generated trace dump parses back to its events; damaged lines (garbage,
cut short, two CPUs' events interleaved) never raise, through parsing,
the model and the summary, and those that are not events are reported
with their line number.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from props import cut, garbage, interleave_two, noise, st  # noqa: E402
from hypothesis import assume, given  # noqa: E402
import trace_parse  # noqa: E402

EVENTS = sorted(trace_parse.EVENTS)
ARG_KEYS = ("tour", "gp", "ptr", "prev", "next", "cpu")


@st.composite
def events(draw):
    """(ns, cpu, pid, name, args, text) in time order."""
    n = draw(st.integers(0, 15))
    ns = sorted(draw(st.lists(st.integers(0, 10**12), min_size=n, max_size=n, unique=True)))
    out = []
    for t in ns:
        name = draw(st.sampled_from(EVENTS))
        args, text = {}, ""
        if name == "mark":
            text = draw(st.from_regex(r"[a-z]([a-z0-9 ]{0,15}[a-z0-9])?", fullmatch=True))
        else:
            args = draw(st.dictionaries(st.sampled_from(ARG_KEYS), st.integers(0, 2**40),
                                        max_size=3))
        out.append((t, draw(st.integers(0, 15)), draw(st.integers(0, 500)), name, args, text))
    return out


def render(ev):
    t, cpu, pid, name, args, text = ev
    rest = text if name == "mark" else " ".join(f"{k}={v}" for k, v in args.items())
    return f"T {t} {cpu} {pid} {name}" + (f" {rest}" if rest else "")


@st.composite
def dumps(draw):
    evs = draw(events())
    lines = ["# trace: begin cpus=4 events=%d lost=0" % len(evs)]
    for e in evs:
        lines += draw(st.lists(noise, max_size=1))
        lines.append(render(e))
    lines.append("# trace: end")
    return lines, evs


def run_all(lines):
    """Parse, model, summary: what tools/timeline.py does."""
    t = trace_parse.parse(lines)
    if t is not None:
        trace_parse.summary(trace_parse.build(t), "log")
    return t


class ValidDumps(unittest.TestCase):
    @given(dumps())
    def test_a_dump_parses_back(self, dump):
        lines, evs = dump
        t = run_all(lines)
        self.assertTrue(t.complete)
        self.assertEqual(t.malformed, [])
        got = [(e.ns, e.cpu, e.pid, e.name, e.args, e.text) for e in t.events]
        self.assertEqual(got, evs)


def refused(t):
    return [n for n, _, _ in t.malformed]


class DamagedLines(unittest.TestCase):
    @given(dumps(), st.lists(garbage, max_size=10), st.data())
    def test_garbage_inside_a_dump_never_raises(self, dump, junk, data):
        lines, _ = dump
        at = data.draw(st.integers(1, len(lines) - 1))
        run_all(lines[:at] + junk + lines[at:])

    @given(st.lists(garbage, max_size=30))
    def test_garbage_alone_never_raises(self, lines):
        run_all(["# trace: begin cpus=2 events=1 lost=0"] + lines)

    @given(dumps(), st.data())
    def test_an_event_cut_before_its_name_ends_is_reported(self, dump, data):
        lines, evs = dump
        assume(evs)
        i = data.draw(st.integers(1, len(lines) - 2))
        assume(lines[i].startswith("T "))
        name_end = len(render(evs[0])[:0]) + len(" ".join(lines[i].split()[:5]))
        at = data.draw(st.integers(1, name_end - 1))
        short = cut(lines[i], at)
        # A name cut down to a shorter event's whole name ("hop_queue" to
        # "hop") leaves a valid line, which the parser rightly accepts.
        assume(len(short.split()) < 5 or short.split()[4] not in trace_parse.EVENTS)
        damaged = lines[:i] + [short] + lines[i + 1:]
        self.assertIn(i + 1, refused(run_all(damaged)), damaged[i])

    @given(dumps(), st.data())
    def test_two_events_interleaved_are_reported(self, dump, data):
        lines, evs = dump
        idx = [i for i, l in enumerate(lines) if l.startswith("T ")]
        mixed, n = interleave_two(lines, idx, data, first=1)
        self.assertIn(n + 1, refused(run_all(mixed)), mixed[n])

    @given(dumps(), st.data())
    def test_a_cut_dump_never_raises(self, dump, data):
        lines, _ = dump
        i = data.draw(st.integers(0, len(lines) - 1))
        run_all(lines[:i] + [cut(lines[i], data.draw(st.integers(0, len(lines[i]))))])

    def test_the_summary_names_the_line(self):
        lines = ["# trace: begin cpus=1 events=2 lost=0", "T 1 0 5 qs gp=1T 2 0 5 hop",
                 "# trace: end"]
        t = trace_parse.parse(lines)
        text = trace_parse.summary(trace_parse.build(t), "log")
        self.assertIn("line 2: two events on one line", text)


if __name__ == "__main__":
    unittest.main()
