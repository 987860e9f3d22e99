"""Ending a process started in a session of its own, with all it started."""
import os
import signal
import subprocess


def kill_group(proc, first=signal.SIGTERM, grace=3):
    """Sends first to proc's process group, then SIGKILL if it has not
    ended within grace seconds."""
    for sig, wait in ((first, grace), (signal.SIGKILL, 5)):
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


def die_with_parent():
    """In the child, before exec: the kernel sends it SIGKILL when the
    process that started it ends, however that ends (PR_SET_PDEATHSIG).
    Strictly, when the *thread* that started it ends: start it from one
    that outlives it (the main thread, as run.py and the grader do)."""
    import ctypes
    PR_SET_PDEATHSIG = 1
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)


def start_owned(cmd, **kwargs):
    """Popen(cmd) in a session of its own (so that kill_group() reaches all
    it starts) that cannot outlive us.  A session of its own also leaves it
    out of a signal sent to our group: if we are killed with SIGKILL, or
    started with SIGINT ignored (a background job of a script) and given
    up on, nothing else would stop it, and a QEMU left behind spins for
    ever beside the next test."""
    return subprocess.Popen(cmd, start_new_session=True,
                            preexec_fn=die_with_parent, **kwargs)


def interrupt_on_signals():
    """SIGINT and SIGTERM both raise KeyboardInterrupt, even if SIGINT was
    ignored when we started (Python then leaves it ignored): a caller that
    stops us with either gets the clean-up KeyboardInterrupt runs."""
    def interrupt(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, interrupt)
