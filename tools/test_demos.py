#!/usr/bin/env python3
"""The demos as a person plays them: slowly, and at a terminal.

    tools/test_demos.py [--arch x86_64|aarch64] [--only pace|pty] [--kernel-console] [-q]

tests/demo.c plays every demo without pauses; a person reads each step
before pressing Enter, and a demo whose point depends on the pace (a reader
that must still hold an element when the grace period starts) loses it
there.  Two boots, each checked line by line:

  pace  every demo in one boot without a terminal, with demo.pace=PACE_MS,
        a pause longer than any reader holds anything (MAX_HOLD_MS in
        kernel/demo/20_versions.c): each demo must end "done" and say what
        it claims, and in Examples 1 and 2 the grace period must visibly
        wait for the reader holding 5,6,7 (its rcu_read_unlock() line comes
        before the end of the grace period).
  pty   `make run DEMO=replacement TIMEOUT=5` on a pseudo-terminal (Python's
        pty module): the runner sees a terminal, so the demo waits for
        Enter; the test presses it PACE_MS after each prompt, waits 10 s at
        the monitor (twice TIMEOUT: an interactive run never times out),
        runs `rcu`, `caps` of the key-value server the root task left up
        (its endpoint and the name server's must be listed), and a nested
        `test`, whose '#' lines must be indented like its results, then
        `halt`, which must end QEMU cleanly.
        The console server (user/console_server.c) starts at boot and reads
        every key in user mode, handing it to the kernel while no program
        holds the console (docs/drivers.md).  With --kernel-console, the
        same boot with console.server=0: the kernel reads the keys itself.

Exit status 0 when every check passed.
"""
import argparse
import os
import pty
import re
import select
import signal
import subprocess
import sys
import time

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
PACE_MS = 2500			# > MAX_HOLD_MS (2000), the longest any demo reader holds
BOOT_BUDGET_S = 600		# only runs out when something hangs
ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")

# What each demo must say, in this order, within its own section.
NARRATION = {
    "publish": ["then it saw 1,2,3: the whole foo", "saw 1,2,3, and 0 saw a",
                "a plain gp = p would print the same 0"],
    "list_publish": [", 0 incomplete elements"],
    "deletion": [
        "found 5,6,7 and keeps it",
        "list_del_rcu() done",
        "5,6,7 is intact and its ->next still leads back into the list",
        "reader on CPU1: rcu_read_unlock(): it no longer holds 5,6,7",
        "on CPU1: it switched, so its pre-existing readers are done (it waited",
        "the grace period ended after the reader on CPU1 left: it waited for it",
        "still found 5,6,7: 0.",
    ],
    "replacement": [
        "found 5,6,7 and keeps it",
        "5,6,7 is intact and its ->next still leads back into the list",
        "* Line 6: synchronize_rcu()",
        "the reader on CPU1 still holds 5,6,7; the real synchronize_rcu() must wait for it",
        "reader on CPU1: rcu_read_unlock(): it no longer holds 5,6,7",
        "synchronize_rcu() returned after",
        "it waited for the reader on CPU1",
        "still found 5,6,7: 0.",
    ],
    "qq1_seqlock": ["0 inconsistent"],
    "qq2_add_race": ["0 incomplete elements; 0 faults"],
    "qq3_hlist": [" 0 misses of keys nobody removed"],
    "qq45_versions": ["at most 2 versions", "now up to "],
    "qq6_cost": [" ns a cond_resched() that reported one, ", "Measured above: "],
    "srcu": ["fell asleep holding 1,2,3",
             "synchronize_srcu() returned after the reader left"],
    "api_table": [
        "Hlists   | hlist_add_after_rcu() hlist_add_before_rcu()",
        "Each one, and the demos that run it",
        "it holds 1,2,3 inside two nested critical sections",
        "inner rcu_read_unlock(): nesting now 1, still a reader",
        "synchronize_rcu() must wait for the outer rcu_read_unlock()",
        "outer rcu_read_unlock(): now it no longer holds 1,2,3",
        "synchronize_rcu() returned after",
        "it waited for the outermost rcu_read_unlock(), not the inner one",
        "in an interrupt handler (in_interrupt() true): rcu_read_lock();",
        "synchronize_rcu() returned after",
    ],
}
USES_RE = re.compile(r"^    (\S+\(.*?\)(?: [a-z ]+?)?)\s{2,}(.*): ((?:\S+\.c ?)+)$")


def check_api_uses(out, problems):
    """Each primitive of the kernel's API table is called in every file
    the table names for it."""
    part = sections(out).get("api_table", "")
    rows = [m.groups() for line in part.splitlines() if (m := USES_RE.match(line))]
    if len(rows) < 16:
        problems.append(f"api_table: {len(rows)} primitives listed with their files, not 16")
    for prim, demos, files in rows:
        alias = re.search(r"as (\w+)\(\)", demos)
        name = alias.group(1) if alias else prim.split("(")[0]
        for f in files.split():
            with open(os.path.join(ROOT, "kernel", "demo", f), encoding="utf-8") as src:
                text = src.read()
            if not re.search(r"\b" + name + r"\(" + (r"[^;]*NULL\)" if "NULL" in prim else ""),
                             text):
                problems.append(f"api_table: {prim} is listed for {f}, which does not call it")


def clean(text):
    return ANSI_RE.sub("", text).replace("\r", "")


def sections(out):
    """{demo name: its part of the console}, from each '==== Demo' banner
    to its 'demo NAME: done|FAILED' line."""
    found = {}
    for m in re.finditer(r"==== Demo \d+/\d+: (\w+) -- ", out):
        name = m.group(1)
        end = re.compile(r"demo " + name + r": (done|FAILED)").search(out, m.end())
        found[name] = out[m.start():end.end() if end else len(out)]
    return found


def check_narration(out, names, problems):
    """Each named demo played, ended 'done' and said its lines in order."""
    parts = sections(out)
    for name in names:
        part = parts.get(name)
        if part is None:
            problems.append(f"{name}: the demo did not play")
            continue
        if f"demo {name}: done" not in part:
            problems.append(f"{name}: did not end 'done':\n" +
                            "\n".join(l for l in part.splitlines() if "FAILED" in l))
        pos = 0
        for want in NARRATION.get(name, []):
            i = part.find(want, pos)
            if i < 0:
                where = "at all" if want not in part else "after the line before it"
                problems.append(f"{name}: did not say {want!r} {where}")
                break
            pos = i + len(want)


def kernel_elf(arch):
    return os.path.join(ROOT, "build", arch, "kernel.elf")


def test_pace(arch, problems, quiet):
    """Every demo, without a terminal, pausing PACE_MS at each step."""
    log = os.path.join(ROOT, "build", arch, "demos-pace.log")
    cmd = [sys.executable, os.path.join(ROOT, "tools", "run.py"), "--arch", arch,
           "--kernel", kernel_elf(arch), "--smp", "4", "--mode", "run",
           "--timeout", str(BOOT_BUDGET_S), "--log", log,
           "--cmdline", f"demo.pace={PACE_MS}"]
    t0 = time.monotonic()
    r = subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True, errors="replace")
    out = clean(r.stdout)
    if not quiet:
        print(f"test_demos: pace: every demo at {PACE_MS} ms a step: "
              f"{time.monotonic() - t0:.0f} s, exit {r.returncode}")
    if r.returncode != 0:
        problems.append(f"pace: the run failed (exit {r.returncode}); console in {log}")
    if f"The demo pauses {PACE_MS} ms at each step" not in out:
        problems.append("pace: the kernel did not say it pauses at each step")
    check_narration(out, list(NARRATION), problems)
    check_api_uses(out, problems)


class Pty:
    """A child on a pseudo-terminal: what it printed, and keys to send."""

    def __init__(self, argv):
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.chdir(ROOT)
            os.execvp(argv[0], argv)
        self.raw = b""		# escape sequences may be split across reads
        self.status = None

    @property
    def out(self):
        """Everything printed so far, without colours and carriage returns."""
        return clean(self.raw.decode("utf-8", errors="replace"))

    def read(self, secs):
        end = time.monotonic() + secs
        while self.status is None:
            left = end - time.monotonic()
            if left <= 0:
                return
            r, _, _ = select.select([self.fd], [], [], min(left, 0.5))
            if r:
                try:
                    data = os.read(self.fd, 4096)
                except OSError:
                    data = b""
                if not data:
                    self.reap(5)
                    return
                self.raw += data

    def expect(self, text, secs, start=0):
        """Reads until text appears after position start; its index or -1."""
        return self.expect_any([text], secs, start)[0]

    def expect_any(self, texts, secs, start=0):
        """Reads until one of texts appears after start: (index, text) of
        the first one there, or (-1, None)."""
        end = time.monotonic() + secs
        while True:
            hits = [(i, t) for t in texts if (i := self.out.find(t, start)) >= 0]
            if hits:
                return min(hits)
            if self.status is not None or time.monotonic() >= end:
                return -1, None
            self.read(min(1.0, end - time.monotonic()))

    def send(self, keys):
        os.write(self.fd, keys.encode())

    def reap(self, secs):
        end = time.monotonic() + secs
        while self.status is None and time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                return
            time.sleep(0.1)

    def kill(self):
        if self.status is None:
            try:
                os.killpg(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.reap(10)


SERVED = "console: served from user mode by console_server["


STAY_UP_RE = re.compile(r"key-value server \(task (\d+)\) stay up: try `caps (\d+)`")


def check_caps(p, mon, problems):
    """The root task left the key-value server up (user/root.c --serve):
    `caps` at the monitor shows what it holds, live."""
    m = STAY_UP_RE.search(p.out)
    if not m:
        problems.append("pty: the root task did not say which service stays up")
        return
    start = len(p.out)
    p.send(f"caps {m.group(2)}\r")
    if p.expect(f"task {m.group(2)} (kvserver)", 60, start) < 0:
        problems.append(f"pty: `caps {m.group(2)}` did not list the key-value server")
        return
    p.read(2)
    listed = p.out[start:]
    for what in ("endpoint", "rw-g"):
        if what not in listed:
            problems.append(f"pty: `caps {m.group(2)}` lists no {what!r}:\n{listed}")


def test_pty(arch, problems, quiet, kernel_console=False):
    """make run at a terminal: Enter after a long read, then the monitor
    past TIMEOUT, a command, a nested test, halt.  Every key is read by the
    console server in user mode and handed to the kernel (docs/drivers.md);
    kernel_console: the same with console.server=0, the kernel reading
    them itself."""
    t0 = time.monotonic()
    cmd = ["make", "-s", "run", f"ARCH={arch}", "SMP=2", "TIMEOUT=5", "DEMO=replacement"]
    p = Pty(cmd + (["CMDLINE=console.server=0"] if kernel_console else []))
    try:
        if not kernel_console and p.expect(SERVED, BOOT_BUDGET_S, 0) < 0:
            problems.append(f"pty: no '{SERVED}' line at boot")
        prompts, pos = 0, 0
        while True:
            i, what = p.expect_any(["[Enter: next step", "quiescent> "], BOOT_BUDGET_S, pos)
            if what != "[Enter: next step":
                break
            prompts += 1
            pos = i + 1
            p.read(PACE_MS / 1000)	# a person reading the step
            p.send("\r")
        if prompts < 7:
            problems.append(f"pty: {prompts} Enter prompts; Example 2 has 7 steps that pause (Line 6 follows Line 5 at once)")
        if i < 0:
            problems.append("pty: the monitor prompt never came")
            return
        check_narration(p.out, ["replacement"], problems)
        mon = i
        p.read(10)			# twice TIMEOUT, at the prompt
        p.send("rcu\r")
        if p.expect("synchronize_rcu() tours in progress: 0", 60, mon) < 0:
            problems.append("pty: `rcu` did not answer at the monitor after 10 s")
        check_caps(p, mon, problems)
        start = len(p.out)
        p.send("test 'rcu_publish_subscribe*'\r")
        if p.expect("test: 1 passed, 0 failed", 300, start) < 0:
            problems.append("pty: the nested test did not pass")
        nested = p.out[start:]
        hashes = [l for l in nested.splitlines() if l.lstrip().startswith("#")]
        if not hashes:
            problems.append("pty: the nested test printed no '#' line")
        for line in hashes:
            if not line.startswith("    #"):
                problems.append(f"pty: a nested KTAP '#' line is not indented: {line!r}")
        p.send("halt\r")
        p.expect("halting", 60, start)
        p.reap(60)
        if p.status != 0:
            problems.append(f"pty: make run ended with status {p.status} after halt")
        if kernel_console and SERVED in p.out:
            problems.append("pty: console.server=0, yet the console server started")
        if "TIMEOUT" in p.out:
            problems.append("pty: the interactive run timed out")
        if not quiet:
            print(f"test_demos: pty: {prompts} Enter prompts, the monitor after "
                  f"{time.monotonic() - t0:.0f} s with TIMEOUT=5, exit {p.status}")
    finally:
        p.kill()
        if problems:
            print(p.out[-3000:])


def main(argv=None):
    ap = argparse.ArgumentParser(description="Play the demos slowly and at a terminal.")
    ap.add_argument("--arch", default="x86_64", choices=["x86_64", "aarch64"])
    ap.add_argument("--only", choices=["pace", "pty"])
    ap.add_argument("-q", "--quiet", action="store_true")
    ap.add_argument("--kernel-console", action="store_true",
                    help="pty with console.server=0: the kernel reads the keys itself")
    args = ap.parse_args(argv)
    problems = []
    if args.only in (None, "pace"):
        test_pace(args.arch, problems, args.quiet)
    if args.only in (None, "pty"):
        test_pty(args.arch, problems, args.quiet, args.kernel_console)
    return verdict("test_demos", problems)


def verdict(name, problems):
    """Prints each problem, then NAME: ok or FAILED; the exit status."""
    for line in problems:
        print(f"{name}: FAILED: {line}")
    print(f"{name}: {'FAILED' if problems else 'ok'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
