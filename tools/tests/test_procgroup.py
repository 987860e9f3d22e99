#!/usr/bin/env python3
"""A QEMU that tools/run.py starts never outlives it (tools/lib/procgroup.py):
python3 tools/tests/test_procgroup.py.

CI once found a QEMU from the labs' grader spinning for half an hour after
its step had ended: .ci/run ran as a background job, so SIGINT was ignored
all the way down; the grader's SIGINT reached nobody, its SIGKILL ended
make and run.py, and QEMU, in a session of its own, went on.  Each case
here starts a parent the way CI does (SIGINT ignored), with `sleep` in
place of QEMU."""
import os
import signal
import subprocess
import sys
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# The parent: starts the child as run.py starts QEMU, prints its pid, waits
# (the print inside the try: a signal may come as soon as it is read).
PARENT = r"""
import subprocess, sys, time
sys.path.insert(0, %r)
from procgroup import interrupt_on_signals, kill_group, start_owned
interrupt_on_signals()
child = start_owned(["sleep", "60"])
try:
    print(child.pid, flush=True)
    time.sleep(60)
except KeyboardInterrupt:
    kill_group(child)
    print("cleaned up", flush=True)
""" % os.path.join(ROOT, "tools", "lib")


def alive(pid):
    """True while pid runs (a zombie waiting for init counts as ended)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def ignore_sigint():
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class ChildDiesWithParent(unittest.TestCase):
    def start_parent(self):
        parent = subprocess.Popen([sys.executable, "-c", PARENT], stdout=subprocess.PIPE,
                                  text=True, preexec_fn=ignore_sigint)
        self.addCleanup(parent.kill)
        child = int(parent.stdout.readline())
        self.addCleanup(lambda: alive(child) and os.kill(child, signal.SIGKILL))
        return parent, child

    def wait_gone(self, pid, limit=20):
        deadline = time.monotonic() + limit
        while alive(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return not alive(pid)

    def test_sigkill_of_the_parent_ends_the_child(self):
        parent, child = self.start_parent()
        self.assertTrue(alive(child))
        parent.kill()
        parent.wait()
        self.assertTrue(self.wait_gone(child), f"child {child} outlived its parent")

    def test_sigint_ignored_at_start_still_cleans_up(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            with self.subTest(signal=sig.name):
                parent, child = self.start_parent()
                parent.send_signal(sig)
                self.assertEqual(parent.stdout.readline().strip(), "cleaned up")
                parent.wait()
                self.assertTrue(self.wait_gone(child))


if __name__ == "__main__":
    unittest.main()
