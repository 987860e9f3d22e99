#!/usr/bin/env python3
"""Property tests of the benchmark result parser (bench_parse.py) with hypothesis.

    python3 tools/tests/test_bench_props.py [-q]

Generated '# BENCH' lines parse back to their samples; damaged lines
(garbage, cut short, two CPUs' lines interleaved) never raise, through
parsing and aggregation, and those that cannot be read are reported with
their line number.
"""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from props import cut, garbage, interleave_two, noise, st  # noqa: E402
from hypothesis import assume, given  # noqa: E402
import bench_parse  # noqa: E402

word = st.from_regex(r"[a-z][a-z0-9_]{0,8}", fullmatch=True)


@st.composite
def samples(draw):
    s = {"bench": draw(word), "metric": draw(word),
         "value": draw(st.floats(allow_nan=False, allow_infinity=False, width=64)),
         "cpus": draw(st.integers(1, 64)), "rep": draw(st.integers(0, 50))}
    s.update(draw(st.dictionaries(st.sampled_from(("struct", "method", "writers")), word,
                                  max_size=3)))
    return s


def render(s):
    return bench_parse.RESULT_PREFIX + " ".join(f"{k}={v!r}" if k == "value" else f"{k}={v}"
                                                for k, v in s.items())


@st.composite
def logs(draw):
    ss = draw(st.lists(samples(), max_size=20))
    lines = ["# BENCH-META checking=0 cpus=2"]
    for s in ss:
        lines += draw(st.lists(noise, max_size=1))
        lines.append(render(s))
    return lines, ss


def parse(lines):
    bad = []
    samples, metas = bench_parse.parse_log(lines, bad)
    bench_parse.aggregate(samples)
    return samples, [n for n, _ in bad]


class ValidLogs(unittest.TestCase):
    @given(logs())
    def test_a_log_parses_back(self, log):
        lines, ss = log
        got, bad = parse(lines)
        self.assertEqual(bad, [])
        self.assertEqual(got, ss)


class DamagedLines(unittest.TestCase):
    @given(st.lists(garbage, max_size=30))
    def test_garbage_never_raises(self, lines):
        parse(lines)

    @given(logs(), st.data())
    def test_a_cut_line_is_read_or_reported(self, log, data):
        lines, _ = log
        assume(len(lines) > 1)
        i = data.draw(st.integers(1, len(lines) - 1))
        line = cut(lines[i], data.draw(st.integers(3, max(3, len(lines[i])))))
        damaged = lines[:i] + [line] + lines[i + 1:]
        got, bad = parse(damaged)
        readable = bench_parse.parse_line(line) is not None
        self.assertTrue(readable or (i + 1) in bad or not bench_parse.looks_like_result(line))
        if line.startswith(bench_parse.RESULT_PREFIX.strip()):
            self.assertTrue(readable or (i + 1) in bad, line)

    @given(logs(), st.data())
    def test_two_results_interleaved_are_reported(self, log, data):
        lines, ss = log
        idx = [i for i, l in enumerate(lines) if l.startswith(bench_parse.RESULT_PREFIX)]
        mixed, n = interleave_two(lines, idx, data)
        got, bad = parse(mixed)
        self.assertIn(n + 1, bad, mixed[n])
        self.assertEqual(len(got), len(ss) - 2)


if __name__ == "__main__":
    unittest.main()
