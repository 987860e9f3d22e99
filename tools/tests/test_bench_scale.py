#!/usr/bin/env python3
"""Unit tests for make bench's scaling run: tools/lib/bench_scale.py (the
slopes, the table, the plots) and the boots and logs of tools/bench.py
--runs.

    python3 tools/host_tests.py (all host tests), or python3 tools/tests/test_bench_scale.py
"""

import argparse
import contextlib
import io
import os
import sys
import tempfile
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
import bench  # noqa: E402
import bench_parse  # noqa: E402
import bench_scale  # noqa: E402


def sample(cpus, rep, value, **labels):
    words = " ".join(f"{k}={v}" for k, v in labels.items())
    return bench_parse.parse_line(f"# BENCH {words} cpus={cpus} rep={rep} "
                                  f"value={value:.3f} unit=x")


def pts(**by_cpus):
    return {int(k[1:]): {"median": v, "q1": v, "q3": v, "n": 5} for k, v in by_cpus.items()}


class Slope(unittest.TestCase):
    def test_linear_is_one_and_flat_is_zero(self):
        self.assertAlmostEqual(bench_scale.loglog_slope(pts(n2=10, n4=20, n8=40, n64=320)), 1.0)
        self.assertAlmostEqual(bench_scale.loglog_slope(pts(n2=7, n4=7, n8=7)), 0.0)
        self.assertAlmostEqual(bench_scale.loglog_slope(pts(n2=8, n4=4, n8=2)), -1.0)

    def test_one_cpu_left_out_by_default(self):
        # At 1 CPU the tour makes no hop: that point must not bend the line.
        p = pts(n1=1000, n2=10, n4=20)
        self.assertAlmostEqual(bench_scale.loglog_slope(p), 1.0)
        self.assertNotAlmostEqual(bench_scale.loglog_slope(p, min_cpus=1), 1.0)

    def test_too_few_points(self):
        self.assertIsNone(bench_scale.loglog_slope(pts(n1=3, n2=5)))
        self.assertIsNone(bench_scale.loglog_slope({}))
        self.assertIsNone(bench_scale.loglog_slope(pts(n2=0, n4=0)))

    def test_shape_words(self):
        self.assertEqual(bench_scale.shape(1.02), "grows ~linearly")
        self.assertEqual(bench_scale.shape(0.05), "~flat")
        self.assertEqual(bench_scale.shape(2.0), "grows faster than linearly")
        self.assertEqual(bench_scale.shape(-1.0), "falls ~as 1/N")
        self.assertEqual(bench_scale.shape(None), "-")

    def test_reference_lines_go_through_the_first_point(self):
        xs, lin, const = bench_scale.reference_lines(pts(n1=1, n2=10, n8=99), [1, 2, 8])
        self.assertEqual(xs, [1, 2, 8])
        self.assertEqual(lin, [5.0, 10.0, 40.0])
        self.assertEqual(const, [10, 10, 10])
        self.assertIsNone(bench_scale.reference_lines(pts(n1=1), [1]))


def scaling_rows():
    """Three boots at 1, 2 and 4 CPUs: a tour linear in N, a flat expedited
    grace period, a read rate per CPU that stays put."""
    samples = []
    for n in (1, 2, 4):
        for run, jitter in enumerate((0.9, 1.0, 1.2)):
            samples.append(sample(n, run, 1000.0 * n * jitter, bench="update",
                                  op="synchronize_rcu", load="idle", metric="ns_per_op"))
            samples.append(sample(n, run, 500.0 * jitter, bench="update",
                                  op="synchronize_rcu_expedited", load="idle",
                                  metric="ns_per_op"))
            samples.append(sample(n, run, 1e6 * jitter, bench="read", struct="hash",
                                  method="rcu", writers="0", metric="lookups_per_cpu"))
            samples.append(sample(n, run, 1e6, bench="read", struct="list",
                                  method="rcu", writers="0", metric="lookups_per_cpu"))
            samples.append(sample(n, run, 50.0 * n, bench="call_rcu",
                                  metric="qs_lock_wait_ns"))
    return bench_parse.aggregate(samples)


class Series(unittest.TestCase):
    def test_units_and_totals(self):
        series = {(t, g): (u, p) for t, g, u, p in bench_scale.scale_series(scaling_rows())}
        unit, tour = series[("synchronize_rcu() (the tour)", "idle")]
        self.assertEqual(unit, "µs")
        self.assertAlmostEqual(tour[4]["median"], 4.0)		# ns -> µs
        self.assertAlmostEqual(tour[4]["q1"], 3.8)		# quartiles of 3.6, 4, 4.8
        self.assertAlmostEqual(tour[4]["q3"], 4.4)
        unit, rcu = series[("read side: RCU", "readers only")]
        self.assertAlmostEqual(rcu[4]["median"], 4e6)		# per CPU times 4 CPUs
        self.assertEqual(rcu[4]["n"], 3)
        self.assertIn(("rcu_state.lock: wait per report", bench_scale.LOCK_LOAD), series)
        # Only the hash table is in the scaling run.
        self.assertEqual(len([k for k in series if k[0] == "read side: RCU"]), 1)

    def test_table_has_slopes_and_shapes(self):
        md = bench_scale.scale_markdown(scaling_rows(), runs=3)
        lines = {ln.split(" | ")[0].lstrip("| "): ln for ln in md.splitlines()
                 if ln.startswith("| ") and "---" not in ln}
        tour = lines["synchronize_rcu() (the tour)"]
        self.assertIn("| 1.00 | grows ~linearly |", tour)
        self.assertIn("4 [3.8–4.4]", tour)
        self.assertIn("| 0.00 | ~flat |", lines["synchronize_rcu_expedited()"])
        self.assertIn("| 1.00 | grows ~linearly |", lines["read side: RCU"])
        header = [ln for ln in md.splitlines() if ln.startswith("| quantity")][0]
        for ln in md.splitlines():
            if ln.startswith("| "):
                self.assertEqual(ln.count("|"), header.count("|"), ln)

    def test_fewer_runs_are_said(self):
        rows = scaling_rows()
        md = bench_scale.scale_markdown(rows, runs=5)
        self.assertIn("(3 runs)", md)
        self.assertEqual(bench_scale.scale_markdown([]), "")

    def test_plots_are_drawn(self):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            self.skipTest("no matplotlib in this interpreter")
        with tempfile.TemporaryDirectory() as d:
            paths = bench_scale.plot_scale(scaling_rows(), d, {
                "arch": "x86_64", "accel": "tcg", "host_cpu": "Test"})
            names = sorted(os.path.basename(p) for p in paths)
            self.assertEqual(names, ["scale_lock.png", "scale_read.png", "scale_update.png"])
            for p in paths:
                self.assertGreater(os.path.getsize(p), 1000)


class Boots(unittest.TestCase):
    def args(self, **kw):
        a = argparse.Namespace(runs=0, reps=5, window_ms=100, cmdline="", icount=None)
        vars(a).update(kw)
        return a

    def test_log_names(self):
        self.assertEqual(bench.log_paths("/o", 4, 0), ["/o/smp4.log"])
        self.assertEqual(bench.log_paths("/o", 64, 2), ["/o/smp64-run1.log", "/o/smp64-run2.log"])

    def test_scaling_boots_run_the_scaling_benchmarks_once(self):
        w = bench.boot_words(self.args(runs=5, cmdline="bench.window_ms=50"))
        self.assertIn(f"ktest.filter={bench_scale.SCALE_FILTER}", w)
        self.assertIn("bench.reps=1", w)
        self.assertEqual(w[-1], "bench.window_ms=50")	# the user's word comes last, and wins
        w = bench.boot_words(self.args())
        self.assertIn("ktest.filter=bench_*", w)
        self.assertIn("bench.reps=5", w)

    def test_finished_log(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "smp2-run1.log")
            self.assertFalse(bench.finished(log))
            with open(log, "w") as f:
                f.write("ok 1 bench_readside\n# ktest: 4 passed, 1 failed\n")
            self.assertFalse(bench.finished(log))
            with open(log, "w") as f:
                f.write("ok 4 bench_call_rcu\n# ktest: 4 passed, 0 failed\n")
            self.assertTrue(bench.finished(log))

    def test_report_pools_the_boots(self):
        with tempfile.TemporaryDirectory() as d:
            for run, v in ((1, 100.0), (2, 300.0), (3, 200.0)):
                with open(os.path.join(d, f"smp2-run{run}.log"), "w") as f:
                    f.write(f"# BENCH bench=update op=ipi_round_trip load=idle cpus=2 rep=0 "
                            f"metric=ns_per_op value={v:.3f} unit=ns\n")
            a = self.args(runs=3, out=d, kernel="/nonexistent", objdump="objdump", nm="nm",
                          arch="x86_64", accel="tcg", smp="2", command="", preempt=False)
            with contextlib.redirect_stdout(io.StringIO()):
                bench.report(a, [2])
            with open(os.path.join(d, "results.md"), encoding="utf-8") as f:
                md = f.read()
            self.assertIn("| one IPI round trip | idle | µs | 0.2 [0.15–0.25] |", md)


if __name__ == "__main__":
    unittest.main()
