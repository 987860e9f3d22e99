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
