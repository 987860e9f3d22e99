#!/usr/bin/env python3
"""Property tests of the KTAP parser (ktap.py) with hypothesis.

    python3 tools/tests/test_ktap_props.py [-q]

A generated run parses back to what generated it; damaged lines (garbage,
cut short, two lines interleaved) never raise and are reported with their
line number.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from props import cut, garbage, interleave_two, names, noise, st  # noqa: E402
from hypothesis import assume, given  # noqa: E402
from ktap import KtapParser  # noqa: E402

ENDS = ("clean", "timeout", "panic", "crash")


@st.composite
def runs(draw):
    """(lines, tests): a KTAP run as the kernel prints it, with console
    noise between its lines, and the (ok, name, skip) of each test."""
    # Names are unique, as KTEST's C identifiers are: the cut-off property
    # finds test k's "running" line by its name.
    tests = draw(st.lists(st.tuples(st.booleans(), names, st.booleans()), min_size=1,
                          max_size=25, unique_by=lambda t: t[1]))
    lines = ["KTAP version 1", f"1..{len(tests)}"]
    for i, (ok, name, skip) in enumerate(tests, 1):
        lines.append(f"# ktest: running {name}")
        lines += draw(st.lists(noise, max_size=2))
        directive = " # SKIP not on this machine" if skip else ""
        lines.append(f"{'ok' if ok else 'not ok'} {i} {name}{directive}")
    return lines, tests


def parse(lines, end="clean"):
    p = KtapParser()
    for line in lines:
        p.feed(line + "\n")
    return p, p.finish(end)


class ValidRuns(unittest.TestCase):
    @given(runs())
    def test_a_run_parses_back(self, run):
        lines, tests = run
        p, (extra, c) = parse(lines)
        self.assertEqual(p.malformed, [])
        self.assertEqual(extra, [])
        self.assertTrue(c.complete)
        self.assertEqual(c.skipped, sum(skip for _, _, skip in tests))
        self.assertEqual(c.passed, sum(ok and not skip for ok, _, skip in tests))
        self.assertEqual(c.failed, sum(not ok and not skip for ok, _, skip in tests))
        for i, (ok, name, skip) in enumerate(tests, 1):
            self.assertEqual((p.results[i].ok, p.results[i].name, p.results[i].skipped),
                             (ok, name, skip))

    @given(runs(), st.data())
    def test_a_run_cut_off_names_the_test_it_was_in(self, run, data):
        lines, tests = run
        k = data.draw(st.integers(0, len(tests) - 1))
        # Up to and including test k's "running" line: it never reported.
        end = lines.index(f"# ktest: running {tests[k][1]}", 2 + 2 * k)
        p, (extra, c) = parse(lines[:end + 1], "timeout")
        self.assertFalse(c.complete)
        self.assertIn(f"not ok {k + 1} {tests[k][1]} # TIMEOUT", extra)
        self.assertEqual(c.passed + c.failed + c.skipped, len(tests))


class DamagedLines(unittest.TestCase):
    @given(st.lists(garbage, max_size=30), st.sampled_from(ENDS))
    def test_garbage_never_raises(self, lines, end):
        parse(lines, end)

    @given(runs(), st.data(), st.sampled_from(ENDS))
    def test_a_line_cut_inside_its_keyword_is_reported(self, run, data, end):
        lines, _ = run
        i = data.draw(st.integers(0, len(lines) - 1))
        keyword = next((k for k in ("not ok ", "ok ", "KTAP version ", "1..")
                        if lines[i].startswith(k)), None)
        assume(keyword)
        damaged = lines[:i] + [cut(lines[i], data.draw(st.integers(2, len(keyword) - 1)))] + \
            lines[i + 1:]
        p, _ = parse(damaged, end)
        self.assertIn(i + 1, [n for n, _, _ in p.malformed])

    @given(runs(), st.data(), st.sampled_from(ENDS))
    def test_a_line_cut_anywhere_never_raises(self, run, data, end):
        lines, _ = run
        i = data.draw(st.integers(0, len(lines) - 1))
        at = data.draw(st.integers(0, len(lines[i])))
        parse(lines[:i] + [cut(lines[i], at)] + lines[i + 1:], end)

    @given(runs(), st.data())
    def test_two_results_interleaved_are_reported(self, run, data):
        lines, _ = run
        results = [i for i, l in enumerate(lines) if l.startswith(("ok ", "not ok "))]
        mixed, n = interleave_two(lines, results, data)
        p, _ = parse(mixed)
        self.assertIn(n + 1, [k for k, _, _ in p.malformed], mixed[n])

    @given(runs(), st.data())
    def test_a_line_glued_to_the_next_is_reported(self, run, data):
        lines, _ = run
        # The version, "running" and result lines (the plan comes once, first).
        ktap = [i for i, l in enumerate(lines)
                if i == 0 or l.startswith(("# ktest: running ", "ok ", "not ok "))]
        i = data.draw(st.sampled_from(ktap))
        j = data.draw(st.sampled_from([k for k in ktap if k != i]))
        glued = lines[i] + lines[j]
        p, _ = parse([glued])
        self.assertEqual([n for n, _, _ in p.malformed], [1], glued)

    def test_a_huge_plan_is_refused_not_allocated(self):
        p, (extra, c) = parse(["KTAP version 1", "1..99999999999999999999", "ok 1 a"])
        self.assertEqual([n for n, _, _ in p.malformed], [2])
        self.assertIsNone(c.planned)

    def test_the_report_names_the_line(self):
        p, (extra, _) = parse(["KTAP version 1", "1..1", "ok 1 aok 2 b"])
        self.assertTrue(any(l.startswith("# ktap: line 3: ") for l in extra), extra)


if __name__ == "__main__":
    unittest.main()
