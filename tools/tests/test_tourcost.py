"""tools/tourcost.py: one tour's hops cut at their events, both round trips
reported, and a hop to a halted CPU without a kick failing the run."""
import contextlib
import io
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import tourcost  # noqa: E402

INFO = ("# 2 CPUs: 1 tours, 410356 ns per tour, 136785 ns per hop; 2 kicks; "
        "IPI round trip 7903 ns, to a halted CPU 59400 ns")
# One tour of a real x86-64 SMP=2 dump (tour_cost_idle_tours_kick_each_cpu),
# with CPU1's halt before it added: a local hop, out to CPU1, home to CPU0.
EVENTS = """\
T 212164346 0 5 mark idle tours
T 212200000 1 0 halt
T 212328162 0 5 sync_begin tour=-297
T 212378881 0 5 hop
T 212436848 0 5 switch prev=5 next=0
T 212469719 0 0 hop_queue cpu=1 pid=5
T 212495422 0 0 kick cpu=1
T 212565783 1 0 irq kind=resched
T 212591993 1 0 unhalt
T 212599420 1 0 switch prev=0 next=5
T 212603690 1 5 hop
T 212614949 1 5 switch prev=5 next=0
T 212617756 1 0 hop_queue cpu=0 pid=5
T 212619299 1 0 kick cpu=0
T 212649691 1 0 halt
T 212671841 0 0 irq kind=resched
T 212678670 0 0 switch prev=0 next=5
T 212682453 0 5 hop
T 212738518 0 5 sync_end tour=-297"""


def log(info, events):
    n = len(events.splitlines())
    return "\n".join([info, f"# trace: begin cpus=2 events={n} lost=0", events,
                      "# trace: end", ""])


class TourCostTests(unittest.TestCase):
    def report(self, text):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "tour.log")
            with open(path, "w") as f:
                f.write(text)
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                rc = tourcost.report(path)
        return rc, out.getvalue()

    def test_parts_and_both_round_trips(self):
        rc, out = self.report(log(INFO, EVENTS))
        self.assertEqual(rc, 0, out)
        self.assertIn("1 tours, median tour 410.4 us", out)
        self.assertIn("7.9 us; median tour = 51.9 round trips, 2 x N = 4", out)
        self.assertIn("to a halted CPU (same run): 59.4 us; median tour = 6.9 such "
                      "round trips, N = 2", out)
        self.assertIn("kicked_halted 1, kicked_awake 1", out)
        self.assertIn("local 1", out)
        # Kick to irq: 70.4 us out to CPU1, 52.5 us home; the median of the two.
        self.assertIn("deliver      61.5", out)

    def test_a_log_without_the_halted_round_trip(self):
        old = INFO.split(", to a halted CPU")[0]
        rc, out = self.report(log(old, EVENTS))
        self.assertEqual(rc, 0, out)
        self.assertIn("sender spinning", out)
        self.assertNotIn("halted CPU (same run)", out)

    def test_a_hop_to_a_halted_cpu_without_a_kick_fails(self):
        events = EVENTS.replace("T 212200000 1 0 halt",
                                "T 212200000 1 0 halt\nT 212210000 0 0 halt")
        events = events.replace("T 212619299 1 0 kick cpu=0\n", "")
        # CPU0 is halted when the hop home is queued, and nothing kicks it.
        events = events.replace("T 212436848 0 5 switch prev=5 next=0",
                                "T 212436848 0 5 switch prev=5 next=0\nT 212440000 0 0 unhalt")
        events = events.replace("T 212495422 0 0 kick cpu=1",
                                "T 212495422 0 0 kick cpu=1\nT 212500000 0 0 halt")
        rc, out = self.report(log(INFO, events))
        self.assertEqual(rc, 1, out)
        self.assertIn("lost_kick 1", out)
        self.assertIn("1 hop(s) to a halted CPU that got no kick", out)


if __name__ == "__main__":
    unittest.main()
