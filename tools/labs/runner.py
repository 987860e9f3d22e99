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
import threading
import time

import console

PROGRESS_S = 15		# seconds between two progress lines of a long build
QUIET_S = 2		# a failure with no line after it for this long is complete


def _start(cmd, cwd):
    return subprocess.Popen(cmd, cwd=cwd, text=True, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True, errors="replace")


def _lines(proc):
    """A queue that receives proc's output lines, then None at its end."""
    q = queue.Queue()

    def pump():
        for line in proc.stdout:
            q.put(line.rstrip("\n"))
        q.put(None)
    threading.Thread(target=pump, daemon=True).start()
    return q


def stop(proc):
    """Ends make and what it started.  SIGINT first: tools/run.py stops its
    QEMU (a process group of its own) on KeyboardInterrupt."""
    for sig, wait in ((signal.SIGINT, 15), (signal.SIGKILL, 5)):
        if proc.poll() is not None:
            return
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(wait)
            return
        except subprocess.TimeoutExpired:
            pass


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
    q = _lines(proc)
    out, compiled, t0 = [], 0, time.monotonic()
    last = t0
    while True:
        try:
            line = q.get(timeout=1)
        except queue.Empty:
            line = ""
        if line is None:
            break
        if line:
            out.append(line)
            if line.startswith("  CC ") or line.startswith("  AS "):
                compiled += 1
            elif line.startswith(("newlib:", "deps:", "build-newlib:")):
                say("  " + line)
        now = time.monotonic()
        if compiled and now - last >= PROGRESS_S:
            say(f"  grade: compiled {compiled} of the kernel's {total} files "
                f"({int(now - t0)} s so far)")
            last = now
    return proc.wait(), out


def boot(root, cmd, limit, stop_at_failure=True):
    """Runs a make test command.  Returns (status, lines, how): how is
    "ended", "stopped" (at its first failure) or "killed" (after limit
    seconds)."""
    proc = _start(cmd, root)
    q = _lines(proc)
    watch = console.Watch()
    t0 = time.monotonic()
    quiet_since = None
    how = "ended"
    while True:
        try:
            line = q.get(timeout=0.5)
        except queue.Empty:
            line = ""
        if line is None:
            break
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
    # What the pump read before the end.
    while True:
        try:
            line = q.get_nowait()
        except queue.Empty:
            break
        if line is None:
            break
        watch.lines.append(line)
    return status, watch.lines, how
