"""Running make for the grader: the build, with progress a person can
follow, and a test boot that stops at its first failure.

A first build compiles newlib (tools/build-newlib.sh prints its own
progress) and then the kernel; make prints one "  CC file" line per file,
which build() turns into a count every PROGRESS_S seconds.  A test boot
(boot()) streams the console through console.Watch: once the first
failure has been read whole, the rest of the run can only repeat the
verdict, so the boot is stopped there (a wrong solution often hangs the
kernel right after: a lost callback leaves the runner's rcu_barrier()
waiting for ever).
"""
import glob
import os
import queue
import signal
import subprocess
import sys
import threading
import time

import console

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "lib"))
from procgroup import kill_group, start_owned  # noqa: E402

PROGRESS_S = 15		# seconds between two progress lines of a long build
QUIET_S = 2		# a failure with no line after it for this long is complete


def _start(cmd, cwd):
    return start_owned(cmd, cwd=cwd, text=True, stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, errors="replace")


def _lines(proc, tick):
    """proc's output lines as they come, and "" every tick seconds without
    one (so that the caller can look at the clock); ends with the output."""
    q = queue.Queue()

    def pump():
        for line in proc.stdout:
            q.put(line.rstrip("\n"))
        q.put(None)
    threading.Thread(target=pump, daemon=True).start()
    while True:
        try:
            line = q.get(timeout=tick)
        except queue.Empty:
            line = ""
        if line is None:
            return
        yield line


def stop(proc):
    """Ends make and what it started.  SIGINT first: tools/run.py stops its
    QEMU (a process group of its own) on KeyboardInterrupt."""
    kill_group(proc, signal.SIGINT, 15)


def source_count(root, arch):
    """How many files a full kernel build compiles: the Makefile's SRCS."""
    pats = [f"boot/{arch}/*.S", f"arch/{arch}/*.S", f"arch/{arch}/*.c", "kernel/*.c",
            "kernel/rcu/*.c", "kernel/demo/*.c", "tests/*.c", "tests/bench/*.c"]
    return sum(len(glob.glob(os.path.join(root, p))) for p in pats)


def build(root, cmd, say, total):
    """Runs the build command; passes newlib's and make's own messages
    through, and says every PROGRESS_S seconds how many of the kernel's
    total files are compiled.  Returns (exit status, output lines)."""
    proc = _start(cmd, root)
    out, compiled, said, t0 = [], 0, 0, time.monotonic()
    last = t0
    for line in _lines(proc, 1):
        if line:
            out.append(line)
            if line.startswith("  CC ") or line.startswith("  AS "):
                compiled += 1
            elif line.startswith(("newlib:", "deps:", "build-newlib:")):
                say("  " + line)
        now = time.monotonic()
        # Only while the kernel compiles (newlib says how far it is itself).
        if compiled > said and now - last >= PROGRESS_S:
            say(f"  grade: compiled {compiled} of the kernel's {total} files "
                f"({int(now - t0)} s so far)")
            last, said = now, compiled
    return proc.wait(), out


def boot(root, cmd, limit, stop_at_failure=True):
    """Runs a make test command.  Returns (status, lines, how): how is
    "ended", "stopped" (at its first failure) or "killed" (after limit
    seconds)."""
    proc = _start(cmd, root)
    lines = _lines(proc, 0.5)
    watch = console.Watch()
    t0 = time.monotonic()
    quiet_since = None
    how = "ended"
    for line in lines:
        if line:
            watch.feed(line)
            quiet_since = None
        elif watch.pending and quiet_since is None:
            quiet_since = time.monotonic()
        if stop_at_failure and (watch.done or (
                quiet_since is not None and time.monotonic() - quiet_since > QUIET_S)):
            how = "stopped"
            break
        if time.monotonic() - t0 > limit:
            how = "killed"
            break
    if how != "ended":
        stop(proc)
    status = proc.wait()
    deadline = time.monotonic() + 5		# what came before the end, if anything
    for line in lines:
        if line:
            watch.lines.append(line)
        elif time.monotonic() > deadline:
            break
    return status, watch.lines, how
