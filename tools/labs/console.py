"""Reading a graded test run's console: what failed first, and the test's
own explanation of it.

A test explains a failure in the lines it prints before its failed
expectation (ktest_info(): "# reader on CPU1 after its quiescent state in
g=-3, call_rcu(): its element was freed under it"); the expectation line
says where ("# tests/x.c:50: EXPECTATION FAILED: ...") and KEXPECT_EQ adds
the two values.  first_failure() returns all of it; Watch says, line by
line, when the first failure is complete, so that the grader can stop the
run there instead of waiting for the tests after it (or for a kernel that
a wrong solution has hung).
"""
import os
import re
import sys
from dataclasses import dataclass, field

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOOLS, "lib"))
from ktap import EXPECTATION_RE  # noqa: E402  the line as make test reads it

RUNNING_RE = re.compile(r"^\s*# ktest: running (\S+)")
DETAIL_RE = re.compile(r"^\s*#   ")
NOT_OK_RE = re.compile(r"^\s*not ok \d+ (?P<name>\S+)(?:\s+#\s*(?P<why>.*))?$")
LEAK_RE = re.compile(r"^\s*# ktest: \S+: \d+ kmalloc object")
PANIC_RE = re.compile(r"Kernel panic - not syncing: (?P<msg>.*)$")
# Callbacks that wait for a grace period nobody asked for: a certain bug (a lost
# request), which the kernel reports after a stall timeout and never ends.
UNREQUESTED_RE = re.compile(r"rcu: INFO: CPU\d+: .*which nobody asked for")
# The kernel's own lines worth showing beside a test's: reports of misuse and stalls.
CONSTANT_RE = re.compile(r"^(-?\w+) is \1 ")
KERNEL_NOTE_RE = re.compile(r"\b(BUG|WARNING|rcu: INFO)\b")
TRACE_LINE_RE = re.compile(r"^T \d+ ")	# trace=rcu's event lines (docs/trace.md)
# At most this many explanation lines; the rest are counted.
MAX_EXPLANATION = 6


@dataclass
class Failure:
    kind: str			# "expectation", "panic", "leak", "lost" (a request), "result"
    test: str = ""		# the test that was running
    where: str = ""		# "tests/x.c:50"
    what: str = ""		# the expectation, the panic message, the not-ok directive
    details: list = field(default_factory=list)	# KEXPECT_EQ's two values
    explanation: list = field(default_factory=list)	# the test's lines before it
    more: int = 0		# explanation lines left out

    def lines(self):
        """The failure as the grader prints it, one item per line."""
        out = [f"{self.test or 'the kernel'} failed:"]
        out += self.explanation
        if self.more:
            out.append(f"(and {self.more} more lines like these)")
        if self.kind == "expectation":
            out.append(f"{self.where}: EXPECTATION FAILED: {self.what}")
            out += self.details
        elif self.kind == "panic":
            out.append(f"Kernel panic - not syncing: {self.what}")
        elif self.kind in ("leak", "lost"):
            out.append(self.what)
        else:
            out.append(f"not ok{(' # ' + self.what) if self.what else ''}")
        return out


def _explanation(lines):
    """A test's own lines (its '# ' diagnostics and the kernel's reports),
    without the runner's and the trace's, capped at MAX_EXPLANATION."""
    keep = []
    for line in lines:
        text = line.strip()
        if not text or TRACE_LINE_RE.match(text) or text.startswith("# ktest:"):
            continue
        if text.startswith("# "):
            keep.append(text[2:])
        elif KERNEL_NOTE_RE.search(text):
            keep.append(text)
    if len(keep) > MAX_EXPLANATION:
        return keep[:MAX_EXPLANATION], len(keep) - MAX_EXPLANATION
    return keep, 0


def first_failure(lines):
    """The first failure in a run's console lines, or None."""
    test, start = "", 0
    for i, line in enumerate(lines):
        m = RUNNING_RE.match(line)
        if m:
            test, start = m.group(1), i + 1
            continue
        kind = what = where = ""
        m = EXPECTATION_RE.match(line)
        if m:
            kind, where, what = "expectation", m.group("where"), m.group("what")
        elif PANIC_RE.search(line):
            kind, what = "panic", PANIC_RE.search(line).group("msg")
        elif LEAK_RE.match(line):
            kind, what = "leak", line.strip().lstrip("# ")
        elif UNREQUESTED_RE.search(line):
            kind, what = "lost", line.strip()
        elif NOT_OK_RE.match(line):
            m = NOT_OK_RE.match(line)
            kind, what, test = "result", m.group("why") or "", m.group("name")
        if not kind:
            continue
        details = []
        for nxt in lines[i + 1:i + 3]:
            if not DETAIL_RE.match(nxt):
                break
            detail = nxt.strip().lstrip("#").strip()
            if not CONSTANT_RE.match(detail):	# "0 is 0 (0)" says nothing
                details.append(detail)
        explanation, more = _explanation(lines[start:i])
        return Failure(kind, test, where, what, details, explanation, more)
    return None


RESULT_RE = re.compile(r"^\s*(?:not )?ok \d+ (?P<name>\S+)")


def by_test(lines):
    """{test name: its lines}, from its "# ktest: running" line to its
    result line (a test that never reported keeps the lines to the end of
    the run, a panic's included), for a run of several tests whose results
    are read one by one (grading.py's shared boots)."""
    tests, current = {}, None
    for line in lines:
        m = RUNNING_RE.match(line)
        if m:
            current = m.group(1)
            tests[current] = []
        if current is not None:
            tests[current].append(line)
        m = RESULT_RE.match(line)
        if m:
            tests.setdefault(m.group("name"), [line])
            current = None
    return tests


class Watch:
    """Fed a run's lines as they come: done becomes true once the first
    failed expectation (with its detail lines) or result has been read,
    so the run may be stopped.  A panic ends the run by itself."""

    def __init__(self):
        self.lines = []
        self.pending = False	# saw a failure, reading its detail lines
        self.done = False

    def feed(self, line):
        self.lines.append(line)
        if self.done:
            return
        if self.pending:
            if not DETAIL_RE.match(line):
                self.done = True
            return
        if EXPECTATION_RE.match(line):
            self.pending = True
        elif LEAK_RE.match(line) or NOT_OK_RE.match(line) or UNREQUESTED_RE.search(line):
            self.done = True
