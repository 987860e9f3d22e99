"""How a QEMU boot ended: the kernel's exit code, or QEMU's own reason.

Kernel exit codes (QEMU's exit status): 33 all passed / clean end, 35
some test failed, 37 kernel panic.  QEMU's status 0 says only that QEMU
ended -- a person quit (Ctrl-A X) or the guest reset or powered off the
machine -- so ShutdownReason listens on QEMU's QMP socket (-qmp) for its
SHUTDOWN event, whose reason says which; classify() turns the two into
one verdict (tools/run.py, tools/web.py).
"""

import json
import os
import signal
import socket
import tempfile
import threading
import time

EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 33, 35, 37


class ShutdownReason:
    """QEMU's own reason for ending, from its QMP socket: the reason of
    its last SHUTDOWN event ("host-qmp-quit" when a person quit with
    Ctrl-A X; "guest-reset" for a reset, a triple fault's included, which
    -no-reboot turns into an exit; "guest-shutdown" for a power-off), or
    None if QEMU said nothing (it exited through isa-debug-exit or
    semihosting, which sends no event, or before we could listen)."""

    CONNECT_S = 30		# QEMU creates the socket as it starts

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="quiescent-qmp-")
        self.path = os.path.join(self.dir, "qmp.sock")
        self.reason = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._listen, daemon=True)

    def start(self, proc):
        self.proc = proc
        self.thread.start()

    def _connect(self):
        end = time.monotonic() + self.CONNECT_S
        while time.monotonic() < end and not self.done.is_set():
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                s.connect(self.path)
                return s
            except OSError:
                s.close()
                if self.proc.poll() is not None:
                    return None
                time.sleep(0.02)
        return None

    def _listen(self):
        s = self._connect()
        if s is None:
            return
        try:
            with s, s.makefile("rw", encoding="utf-8", errors="replace") as f:
                f.readline()				# the greeting
                f.write('{"execute": "qmp_capabilities"}\n')
                f.flush()
                for line in f:
                    try:
                        msg = json.loads(line)
                    except ValueError:
                        continue
                    if msg.get("event") == "SHUTDOWN":
                        self.reason = msg.get("data", {}).get("reason")
        except OSError:
            pass

    def finish(self, wait=5):
        """The reason, once QEMU has exited (its socket is closed)."""
        self.done.set()
        if self.thread.is_alive():
            self.thread.join(wait)
        try:
            os.unlink(self.path)
        except OSError:
            pass
        try:
            os.rmdir(self.dir)
        except OSError:
            pass
        return self.reason


def classify(arch, status, timed_out, timeout=None, reason=None):
    """Map QEMU's exit status (and its shutdown reason, from QMP) to (end, verdict).

    end is "clean", "quit" (a person quit QEMU: Ctrl-A X), "failed",
    "panic", "timeout" or "crash"; verdict is a one-line explanation (for
    "quit" the one calm line; None for a clean end)."""
    if timed_out:
        t = f"{timeout:g} s" if timeout is not None else "the time limit"
        return "timeout", f"run: TIMEOUT after {t}: QEMU killed"
    if status == EXIT_PASS:
        return "clean", None
    if status == EXIT_FAIL:
        return "failed", f"run: kernel reported test failures (exit {EXIT_FAIL})"
    if status == EXIT_PANIC:
        return "panic", f"run: kernel panic (exit {EXIT_PANIC})"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return "crash", f"run: QEMU was killed by {name}"
    if status == 0:
        return classify_status_0(arch, reason)
    if status == 1:
        extra = " (or the kernel wrote 0 to isa-debug-exit)" if arch == "x86_64" else ""
        return "crash", f"run: QEMU exited with status 1: QEMU error{extra}; see its message above"
    if arch == "x86_64" and status & 1:
        return "crash", (f"run: QEMU exited with status {status}: unknown kernel exit code "
                         f"(value {status >> 1:#x} written to isa-debug-exit)")
    return "crash", f"run: QEMU exited with status {status}: not a kernel exit code"


def classify_status_0(arch, reason):
    """QEMU's status 0 says only that QEMU ended: its SHUTDOWN reason says why."""
    if reason == "host-qmp-quit":
        return "quit", "run: you quit QEMU (Ctrl-A X); the kernel was stopped where it was"
    if reason == "guest-reset":
        how = ("a triple fault, or a reset through the keyboard controller or ACPI"
               if arch == "x86_64" else "PSCI SYSTEM_RESET")
        return "crash", (f"run: the machine reset itself (QEMU's reason: guest-reset; "
                         f"-no-reboot ends QEMU there) without the kernel's exit code: {how}")
    if reason == "guest-shutdown":
        how = "ACPI" if arch == "x86_64" else "PSCI SYSTEM_OFF"
        return "crash", (f"run: the machine powered itself off ({how}; QEMU's reason: "
                         "guest-shutdown) without the kernel's exit code")
    if reason:
        return "crash", (f"run: QEMU ended (its reason: {reason}) without the kernel's "
                         "exit code")
    why = ("triple fault or reset?" if arch == "x86_64"
           else "PSCI SYSTEM_OFF/SYSTEM_RESET or semihosting exit 0?")
    return "crash", (f"run: QEMU exited with status 0 without the kernel's exit code and "
                     f"without a reason on its QMP socket ({why})")
