#!/usr/bin/env python3
"""Tests of tools/timeline.py and tools/lib/{trace_parse,timeline_svg}.py on
small synthetic traces: python3 tools/host_tests.py (or run this file)."""
import io
import os
import sys
import tempfile
import unittest
import xml.etree.ElementTree as ET
from contextlib import redirect_stderr, redirect_stdout

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
import timeline  # noqa: E402
import timeline_svg  # noqa: E402
import trace_parse  # noqa: E402

MS = 1_000_000


def dump(*lines, cpus=4, lost=0, noise=True):
    """A console log around a trace dump; times in the lines are in ms."""
    out = ["Quiescent 0.1: a classic-RCU teaching kernel", "KTAP version 1"]
    out.append(f"# trace: begin cpus={cpus} events={len(lines)} lost={lost}")
    for i, line in enumerate(lines):
        t, rest = line.split(" ", 1)
        out.append(f"T {int(float(t) * MS)} {rest}")
        if noise and i == 1:
            out.append("smp: something printed meanwhile")
    out.append("# trace: end")
    out.append("ok 1 trace_scenario_grace_period_waits_for_readers")
    return [s + "\n" for s in out]


# One synchronize_rcu() tour from 10 to 30 ms on CPU0 (pid 5), readers on
# CPU1 (pid 7) and CPU2 (pid 8):
#   CPU1: 5..12 pre-existing (ends before 30), 15..40 later (beyond the end)
#   CPU2: 8..25 pre-existing, 26..28 later (within), 50..55 after
GOOD = [
    "1 0 5 mark list_del_rcu",
    "5 1 7 read_lock",
    "8 2 8 read_lock",
    "9 0 5 unpublish ptr=0x1000",
    "10 0 5 sync_begin tour=1",
    "10.1 0 5 hop",
    "12 1 7 read_unlock",
    "12.5 1 7 switch prev=7 next=5",
    "12.6 1 5 hop",
    "13 1 5 switch prev=5 next=7",
    "15 1 7 read_lock",
    "25 2 8 read_unlock",
    "25.5 2 8 switch prev=8 next=5",
    "25.6 2 5 hop",
    "26 2 8 read_lock",
    "28 2 8 read_unlock",
    "29 0 5 hop",
    "30 0 5 sync_end tour=1",
    "30.5 0 5 mark kfree",
    "40 1 7 read_unlock",
    "50 2 8 read_lock",
    "55 2 8 read_unlock",
]


def model_of(lines, **kw):
    return trace_parse.build(trace_parse.parse(dump(*lines, **kw)))


class Parse(unittest.TestCase):
    def test_lines_and_fields(self):
        t = trace_parse.parse(dump(*GOOD))
        self.assertEqual(t.cpus, 4)
        self.assertEqual(t.lost, 0)
        self.assertTrue(t.complete)
        self.assertEqual(len(t.events), len(GOOD))	# the noise line is ignored
        e = t.events[0]
        self.assertEqual((e.ns, e.cpu, e.pid, e.name, e.text), (1 * MS, 0, 5, "mark", "list_del_rcu"))
        sw = [e for e in t.events if e.name == "switch"][0]
        self.assertEqual(sw.args, {"prev": 7, "next": 5})
        up = [e for e in t.events if e.name == "unpublish"][0]
        self.assertEqual(up.args, {"ptr": 0x1000})
        sb = [e for e in t.events if e.name == "sync_begin"][0]
        self.assertEqual(sb.args, {"tour": 1})

    def test_marks_keep_spaces_and_unknown_events_are_counted(self):
        t = trace_parse.parse(dump("1 0 5 mark list_del_rcu(5,6,7) done", "2 1 0 frobnicate x=1"))
        self.assertEqual(t.events[0].text, "list_del_rcu(5,6,7) done")
        self.assertEqual(len(t.events), 1)
        self.assertEqual(t.unknown, 1)

    def test_the_last_dump_wins_and_outside_lines_are_ignored(self):
        lines = dump("1 0 5 mark first") + ["T 99 0 0 hop\n"] + dump("2 0 5 mark second", cpus=2)
        t = trace_parse.parse(lines)
        self.assertEqual([e.text for e in t.events], ["second"])
        self.assertEqual(t.cpus, 2)

    def test_no_dump(self):
        self.assertIsNone(trace_parse.parse(["hello\n", "T 1 0 0 hop\n"]))

    def test_incomplete_dump_and_carriage_returns(self):
        lines = [s.replace("\n", "\r\n") for s in dump(*GOOD)]
        lines = [s for s in lines if "trace: end" not in s]
        t = trace_parse.parse(lines)
        self.assertFalse(t.complete)
        self.assertEqual(len(t.events), len(GOOD))


class Model(unittest.TestCase):
    def test_readers_are_paired_per_cpu(self):
        m = model_of(GOOD)
        got = sorted((r.cpu, r.pid, r.start // MS, r.end // MS) for r in m.readers)
        self.assertEqual(got, [(1, 7, 5, 12), (1, 7, 15, 40), (2, 8, 8, 25),
                               (2, 8, 26, 28), (2, 8, 50, 55)])

    def test_tour_with_hops(self):
        m = model_of(GOOD)
        tour = [w for w in m.waits if w.kind == "tour"]
        self.assertEqual(len(tour), 1)
        w = tour[0]
        self.assertEqual((w.start, w.end, w.number, w.pid), (10 * MS, 30 * MS, 1, 5))
        self.assertEqual([c for _, c in w.hops], [0, 1, 2, 0])

    def test_classification(self):
        m = model_of(GOOD)
        w = [w for w in m.waits if w.kind == "tour"][0]
        self.assertEqual(sorted(r.start // MS for r in w.pre), [5, 8])
        self.assertEqual(sorted(r.start // MS for r in w.later), [15, 26])
        self.assertEqual([r.start // MS for r in w.beyond], [15])	# can and will extend beyond
        self.assertEqual(w.violators, [])
        self.assertEqual(m.violations, [])

    def test_the_updater_side_window(self):
        m = model_of(GOOD)
        rem = [w for w in m.waits if w.kind == "removal"]
        self.assertEqual(len(rem), 1)
        self.assertEqual((rem[0].start, rem[0].end), (9 * MS, int(30.5 * MS)))
        self.assertEqual(sorted(r.start // MS for r in rem[0].pre), [5, 8])
        self.assertEqual(rem[0].violators, [])

    def test_violation_pre_existing_reader_ends_after_the_end(self):
        # CPU2's pre-existing reader now ends at 35 ms, after sync_end at 30.
        bad = [l for l in GOOD if l not in ("25 2 8 read_unlock", "26 2 8 read_lock",
                                             "28 2 8 read_unlock")] + ["35 2 8 read_unlock"]
        bad.sort(key=lambda l: float(l.split()[0]))
        m = model_of(bad)
        kinds = sorted(w.kind for w, _ in m.violations)
        self.assertEqual(kinds, ["removal", "tour"])	# seen by both checks
        for _, r in m.violations:
            self.assertEqual((r.cpu, r.start // MS, r.end // MS), (2, 8, 35))
        self.assertIn("VIOLATIONS: 2", trace_parse.summary(m, "log"))

    def test_violation_reader_still_running_at_the_end_of_the_trace(self):
        # CPU2's reader from 8 ms never ends (its CPU's other events go too).
        bad = [l for l in GOOD if not l.split(" ", 1)[1].startswith("2 8")]
        bad.insert(2, "8 2 8 read_lock")
        m = model_of(bad)
        self.assertEqual(len(m.violations), 2)
        self.assertTrue(all(r.end is None for _, r in m.violations))

    def test_a_reader_whose_unlock_was_lost_is_no_evidence(self):
        # CPU2's reader from 8 ms is still open when the tour ends (a
        # violator, so far), then CPU2 locks again without an unlock: the
        # unlock was lost, the first reader is dropped, and no wait may
        # still name it (once a KeyError in build(), found by a property).
        bad = [l for l in GOOD if not l.split(" ", 1)[1].startswith("2 8")]
        bad.insert(2, "8 2 8 read_lock")
        bad.append("60 2 8 read_lock")
        m = model_of(bad)
        self.assertEqual(m.dropped, 1)
        self.assertNotIn(8 * MS, [r.start for r in m.readers])
        for w in m.waits:
            for r in w.pre + w.later + w.beyond + w.violators:
                self.assertIn(r, m.readers)
        self.assertEqual(m.violations, [])

    def test_expedited_grace_period_and_its_violation(self):
        # synchronize_rcu_expedited() from 10 to 20 ms on CPU0: CPU1's reader
        # 5..12 is pre-existing and ends in time; one ending at 25 violates.
        ok = ["5 1 7 read_lock", "10 0 5 exp_begin exp=4", "10.1 0 5 exp_qs cpu=0",
              "12 1 7 read_unlock", "12.5 1 7 exp_qs cpu=1", "15 1 7 read_lock",
              "20 0 5 exp_end exp=4", "22 1 7 read_unlock"]
        m = model_of(ok)
        exp = [w for w in m.waits if w.kind == "exp"]
        self.assertEqual(len(exp), 1)
        w = exp[0]
        self.assertEqual((w.number, w.start, w.end), (4, 10 * MS, 20 * MS))
        self.assertEqual(w.qs, [(int(10.1 * MS), 0), (int(12.5 * MS), 1)])
        self.assertEqual([r.start // MS for r in w.pre], [5])
        self.assertEqual(m.violations, [])
        self.assertIn("1 expedited", trace_parse.summary(m, "log"))
        bad = [l.replace("12 1 7 read_unlock", "25 1 7 read_unlock") for l in ok
               if l not in ("15 1 7 read_lock", "22 1 7 read_unlock")]
        bad.sort(key=lambda l: float(l.split()[0]))
        m = model_of(bad)
        self.assertEqual([w.kind for w, _ in m.violations], ["exp"])

    def test_no_wait_fault_injection(self):
        # rcu.inject=no_wait: no tour, kfree right after the removal, and a
        # callback invoked at once, while readers run on CPU1 and CPU2.
        lines = ["1 1 7 read_lock", "2 2 8 read_lock", "3 0 5 mark list_del_rcu",
                 "3.1 0 5 unpublish ptr=0x40", "3.2 0 5 mark kfree",
                 "4 0 5 cb_queue ptr=0x50", "4.1 0 5 cb_invoke ptr=0x50",
                 "9 1 7 read_unlock", "12 2 8 read_unlock"]
        m = model_of(lines)
        self.assertEqual(m.gps, [])
        self.assertEqual(len(m.violations), 4)	# 2 readers x (removal, callback)

    def test_async_grace_period_and_its_quiescent_states(self):
        lines = ["1 1 7 read_lock", "2 0 5 cb_queue ptr=0x50", "2.1 0 5 gp_start gp=7",
                 "2.2 0 5 qs gp=7", "3 2 0 qs gp=7", "5 1 7 read_unlock",
                 "5.5 1 7 qs gp=7", "5.6 1 7 gp_end gp=8", "6 3 2 cb_invoke ptr=0x50",
                 "5.8 2 8 read_lock", "7 2 8 read_unlock"]
        lines.sort(key=lambda l: float(l.split()[0]))
        m = model_of(lines)
        gp = m.gps[0]
        self.assertEqual((gp.kind, gp.number, gp.start, gp.end),
                         ("async", 7, int(2.1 * MS), int(5.6 * MS)))
        self.assertEqual([c for _, c in gp.qs], [0, 2, 1])
        self.assertEqual([r.start // MS for r in gp.pre], [1])
        self.assertEqual(m.violations, [])
        cb = [w for w in m.waits if w.kind == "callback"][0]
        self.assertEqual(cb.end, 6 * MS)
        self.assertEqual(len(cb.pre), 1)

    def test_hop_that_waited_for_a_later_reader(self):
        # Tour from 10 ms.  CPU1's reader 5..12 is pre-existing: the hop
        # there (queued at 10.2) waits for it, as it must.  CPU2's reader
        # began at 11, after the tour started, and was running when the
        # tour was queued on CPU2 (12.7): that hop waited for a later reader.
        m = model_of([
            "5 1 7 read_lock",
            "10 0 5 sync_begin tour=1",
            "10.1 0 5 hop",
            "10.2 0 0 hop_queue cpu=1 pid=5",
            "11 2 8 read_lock",
            "12 1 7 read_unlock",
            "12.6 1 5 hop",
            "12.7 1 7 hop_queue cpu=2 pid=5",
            "20 2 8 read_unlock",
            "20.5 2 5 hop",
            "20.6 2 8 hop_queue cpu=0 pid=5",
            "21 0 5 hop",
            "21.5 0 5 sync_end tour=1",
        ])
        tour = m.gps[0]
        self.assertEqual([(ns // MS, cpu) for ns, cpu, _ in tour.late_hops], [(20, 2)])
        self.assertEqual(tour.late_hops[0][2].pid, 8)
        self.assertIn("CPU2*", timeline.summary(m, "log"))
        self.assertIn("tour hops that waited for a later reader: 1", timeline.summary(m, "log"))
        svg = timeline.draw(m, "log", timeline.choose_window(m, "all", 5)).svg()
        self.assertIn("waited for a later reader", svg)

    def test_no_hop_queue_events_no_late_hops(self):
        m = model_of(GOOD)
        self.assertEqual(m.gps[0].late_hops, [])

    def test_reader_from_before_the_recording(self):
        # CPU1's first event is a read_unlock: its reader began earlier.
        lines = ["1 0 5 sync_begin tour=3", "2 1 7 read_unlock", "3 1 5 hop",
                 "4 0 5 sync_end tour=3"]
        m = model_of(lines)
        r = m.readers[0]
        self.assertIsNone(r.start)
        # CPU1's recording began at 2 ms, after the tour started: unknown, not a violation.
        self.assertEqual(m.gps[0].pre, [])
        lines = ["0.5 1 7 switch prev=0 next=7", "1 0 5 sync_begin tour=3",
                 "5 1 7 read_unlock", "6 1 5 hop", "7 0 5 sync_end tour=3"]
        m = model_of(lines, noise=False)
        self.assertEqual(len(m.gps[0].pre), 1)		# running at 0.5 ms already
        self.assertEqual(m.violations, [])


class Picture(unittest.TestCase):
    def run_main(self, lines, *extra):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "console.log")
            with open(log, "w") as f:
                f.writelines(lines)
            svg = os.path.join(d, "t.svg")
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                rc = timeline.main([log, "-o", svg, *extra])
            text = ""
            if os.path.exists(svg):
                with open(svg) as f:
                    text = f.read()
            return rc, out.getvalue() + err.getvalue(), text

    def test_svg_is_well_formed_and_has_the_parts(self):
        rc, out, svg = self.run_main(dump(*GOOD))
        self.assertEqual(rc, 0)
        self.assertIn("VIOLATIONS: 0", out)
        root = ET.fromstring(svg)
        self.assertTrue(root.tag.endswith("svg"))
        for s in ("CPU0", "CPU3", "synchronize_rcu() #1", "kfree", "pre-existing reader",
                  "synchronize_rcu_expedited()",
                  "later reader", "time (ms since boot)", timeline_svg.C_PRE, timeline_svg.C_LATER):
            self.assertIn(s, svg)

    def test_exit_status_on_violation(self):
        bad = [l for l in GOOD if l != "12 1 7 read_unlock"]
        bad.append("31 1 7 read_unlock")
        bad = [l for l in bad if l not in ("15 1 7 read_lock", "40 1 7 read_unlock")]
        bad.sort(key=lambda l: float(l.split()[0]))
        rc, out, svg = self.run_main(dump(*bad))
        self.assertEqual(rc, 1)
        self.assertIn("VIOLATION: reader pid 7 on CPU1", out)
        self.assertIn("VIOLATION", svg)
        self.assertIn(timeline_svg.C_BAD, svg)

    def test_no_trace(self):
        rc, out, _ = self.run_main(["nothing here\n"])
        self.assertEqual(rc, 2)
        self.assertIn("no trace dump", out)

    def test_windows(self):
        m = model_of(GOOD)
        self.assertEqual(timeline_svg.choose_window(m, "all", 3), (1 * MS, 55 * MS))
        self.assertEqual(timeline_svg.choose_window(m, "20:30", 3), (20 * MS, 30 * MS))
        t0, t1 = timeline_svg.choose_window(m, "auto", 3)
        self.assertLessEqual(t0, 5 * MS)		# the pre-existing readers, whole
        self.assertGreaterEqual(t1, 40 * MS)		# and the later one beyond the end
        with self.assertRaises(ValueError):
            timeline_svg.choose_window(m, "30:20", 3)
        rc, _, svg = self.run_main(dump(*GOOD), "--window", "11:20")
        self.assertEqual(rc, 0)
        ET.fromstring(svg)

    def test_auto_window_of_a_long_trace_keeps_the_first_grace_periods(self):
        lines = []
        for k in range(10):		# a 20 ms tour every 100 ms
            t = 100 * k
            lines += [f"{t + 10} 0 5 sync_begin tour={k + 1}", f"{t + 30} 0 5 sync_end tour={k + 1}"]
        m = model_of(lines)
        t0, t1 = timeline_svg.choose_window(m, "auto", 5)
        self.assertLess(t1 - t0, 400 * MS)
        self.assertLess(t0, 10 * MS + 1)


if __name__ == "__main__":
    unittest.main()
