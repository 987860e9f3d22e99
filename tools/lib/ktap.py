"""KTAP (version 1) parser for the kernel's test console output.

Feed it the console lines one by one, then call finish() with how the run
ended.  Only top-level (unindented) lines count; indented subtest lines are
ignored.  The kernel prints "# ktest: running <name>" before each test, so
when the run stops early the test that was running can be named.

    p = KtapParser()
    for line in console:
        p.feed(line)
    extra_lines, counts = p.finish("timeout")   # or "clean", "panic", "crash"
    print(summary_line(counts))

A console is not a clean stream: two CPUs printing at once interleave
their lines, a hang cuts one short.  A line that carries a KTAP keyword
but cannot be read as what it says, or a KTAP keyword in the middle of a
line, is not guessed at: it is kept in p.malformed as (line number, line,
why), and finish() reports each (they count as no test's result).
"""

import re
from dataclasses import dataclass, field

VERSION_RE = re.compile(r"^KTAP version (\d+)\s*$")
PLAN_RE = re.compile(r"^1\.\.(\d+)\s*$")
RESULT_RE = re.compile(
    r"^(?P<status>ok|not ok) (?P<num>\d+)"
    r"(?:\s+(?:-\s+)?(?P<name>.*?))?"
    r"(?:\s+#\s*(?P<directive>.*?))?\s*$"
)
RUNNING_RE = re.compile(r"^#\s*ktest: running\s+(?P<name>\S+)")
# A failed expectation, as kernel/ktest.c prints it (indented in a subtest):
# "# tests/x.c:50: EXPECTATION FAILED: expr (CPU1)", the CPU when it knows it.
# where: file:line; what: all after the colon; expr: what without the CPU.
EXPECTATION_RE = re.compile(r"^\s*# (?P<where>(?P<file>[\w./-]+):(?P<line>\d+)): "
                            r"EXPECTATION FAILED: (?P<what>(?P<expr>.*?)(?: \(CPU\d+\))?)$")
# An expect-panic/warning test the runner must boot on its own:
# "# ktest-isolated<TAB>name<TAB>panic|warning<TAB>message<TAB>extra cmdline"
ISOLATED_RE = re.compile(r"^# ktest-isolated\t([^\t]+)\t(panic|warning)\t([^\t]*)\t(.*)$")
# What starts a KTAP line; found anywhere else in a line, it says two lines were interleaved.
KEYWORDS = ("ok ", "not ok ", "KTAP version ", "1..")
# Searched in lines not starting with '#' (diagnostics such as "# ktest: x
# took 0 ms" hold "ok 0"); not "1..N": text says "keys 1..12", and the plan
# comes once, before any test.
INTERLEAVED_RE = re.compile(r"(?:ok \d|KTAP version|# ktest: running )")
RUNNING_LINE_RE = re.compile(r"^# ktest: running \S+(?: \(.*\))?\s*$")
# A plan this large is a corrupted line, not a test run (the kernel has ~150 tests).
MAX_PLAN = 100000
MAX_REPORTED = 10


@dataclass
class Isolated:
    name: str
    kind: str      # "panic" or "warning"
    message: str   # text the console must show
    cmdline: str   # extra command-line words

# How a run ended -> the directive given to the test that was cut short.
END_DIRECTIVE = {
    "timeout": "TIMEOUT",
    "panic": "PANIC",
    "crash": "CRASH",
    "clean": "CRASH",  # exited "cleanly" but results are missing
}


@dataclass
class Result:
    ok: bool
    num: int
    name: str
    directive: str = ""

    @property
    def skipped(self):
        return self.directive.upper().startswith("SKIP")


@dataclass
class Counts:
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    planned: int = None   # None: no plan line seen
    complete: bool = False  # plan > 0 and every planned test reported
    notes: list = field(default_factory=list)


def summary_line(c):
    s = f"{c.passed} passed, {c.failed} failed"
    if c.skipped:
        s += f", {c.skipped} skipped"
    return s


class KtapParser:
    def __init__(self):
        self.version = None
        self.plan = None
        self.results = {}      # number -> Result (a repeated number replaces)
        self.running = None    # name of the test announced after the last result
        self.last_num = 0
        self.isolated = []     # Isolated tests listed by the kernel
        self.lineno = 0
        self.malformed = []    # (line number, line, why)

    def bad(self, line, why):
        self.malformed.append((self.lineno, line, why))

    def feed(self, line):
        self.lineno += 1
        line = line.rstrip("\r\n").replace("\r", "")
        if not line or line[0].isspace():
            return  # blank, or an indented subtest line
        if line.startswith("# ktest: running ") and not RUNNING_LINE_RE.match(line):
            self.bad(line, "a '# ktest: running' line with more than a name: interleaved?")
            return
        m = re.match(r"(?:not ok|ok) ", line)
        if line[0] != "#" and INTERLEAVED_RE.search(line[m.end():] if m else line[1:]):
            self.bad(line, "a KTAP keyword inside a line: two lines interleaved?")
            return
        if len(line) >= 2 and any(k.startswith(line) for k in KEYWORDS):
            self.bad(line, "a line cut short inside its KTAP keyword")
            return
        m = VERSION_RE.match(line)
        if m:
            self.version = int(m.group(1))
            return
        m = PLAN_RE.match(line)
        if m and int(m.group(1)) <= MAX_PLAN:
            self.plan = int(m.group(1))
            return
        m = RESULT_RE.match(line)
        if m and m.group("name") and re.search(r"\s", m.group("name")):
            self.bad(line, "a test name with spaces: two lines interleaved?")
            return
        if m:
            num = int(m.group("num"))
            self.results[num] = Result(
                ok=(m.group("status") == "ok"),
                num=num,
                name=m.group("name") or "",
                directive=m.group("directive") or "",
            )
            self.last_num = max(self.last_num, num)
            self.running = None
            return
        m = ISOLATED_RE.match(line)
        if m:
            self.isolated.append(Isolated(*m.groups()))
            return
        m = RUNNING_RE.match(line)
        if m:
            self.running = m.group("name")
            return
        if line.startswith(KEYWORDS):
            self.bad(line, "starts like a KTAP line but is not one")

    def malformed_lines(self):
        """One '# ktap: line N: ...' line per malformed line (the first few)."""
        out = [f"# ktap: line {n}: {why}: {line[:100]!r}"
               for n, line, why in self.malformed[:MAX_REPORTED]]
        if len(self.malformed) > MAX_REPORTED:
            out.append(f"# ktap: and {len(self.malformed) - MAX_REPORTED} more malformed lines")
        return out

    def finish(self, end="clean"):
        """Close the run.  end is "clean", "timeout", "panic" or "crash".

        Returns (lines, counts): lines are KTAP lines to print for tests that
        never reported (they are counted as failed), after the reports of
        malformed lines."""
        lines = self.malformed_lines()
        c = Counts(planned=self.plan)
        for r in self.results.values():
            if r.skipped:
                c.skipped += 1
            elif r.ok:
                c.passed += 1
            else:
                c.failed += 1

        if self.plan is None:
            c.failed += 1
            msg = "# no KTAP plan (1..N) seen: counted as 1 failure"
            if self.running:
                msg += f" (last test started: {self.running})"
            lines.append(msg)
            c.notes.append("no plan")
            return lines, c
        if self.plan == 0 and self.isolated:
            c.complete = True  # only isolated tests selected: the runner boots them
            return lines, c
        if self.plan == 0:
            c.failed += 1
            lines.append("# KTAP plan 1..0: no tests ran: counted as 1 failure")
            c.notes.append("empty plan")
            return lines, c

        missing = [n for n in range(1, self.plan + 1) if n not in self.results]
        if not missing:
            c.complete = True
            return lines, c

        # The test cut short is the one after the last result seen (or the
        # first missing one if the numbers had gaps).
        after = [n for n in missing if n > self.last_num]
        cut = after[0] if after else missing[0]
        name = self.running or f"test{cut}"
        lines.append(f"not ok {cut} {name} # {END_DIRECTIVE.get(end, 'CRASH')}")
        c.failed += 1
        never = len(missing) - 1
        if never:
            lines.append(f"# {never} tests never ran")
            c.failed += never
        return lines, c
