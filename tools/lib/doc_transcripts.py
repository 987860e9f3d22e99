"""The docs' transcripts, checked against the code that prints them
(tools/check_docs.py).  A transcript is a fenced code block:

  - of the monitor: after "quiescent> help", exactly the lines cmd_help()
    prints from kernel/monitor.c's commands[] table; after any other
    command, lines that one of kernel/monitor.c's printk() formats can
    print ("..." stands for lines left out);
  - of make test: KTAP result lines ("ok 3 name", "not ok 1 name") under a
    `make test ... TESTS=GLOB` command (in the block or in the lines just
    above it).  Each name must be a test the glob selects, numbered as
    the runner numbers it (file name order, then line order), and the
    block must list every test the glob selects unless it has a "..."
    line; an "EXPECTATION FAILED: expr" line must name a file:line whose
    statement holds expr.  A line that gives such a command and names
    test files must name every file the glob's tests are in.

Each check returns a list of (line number in the doc, problem).
"""
import fnmatch
import os
import re

from ktap import EXPECTATION_RE

FENCE_RE = re.compile(r"^\s*```")
PROMPT = "quiescent> "
COMMAND_RE = re.compile(r'\{\s*"([^"]+)",\s*"([^"]*)",\s*"([^"]*)",\s*\w+\s*\}')
PRINTK_RE = re.compile(r'printk\(\s*((?:"(?:[^"\\]|\\.)*"\s*)+)')
SPEC_RE = re.compile(r"%[-+ 0#]*\d*(?:\.\d+)?(hh|h|ll|l|z)?([diuxXscp%])")
MAKE_TEST_RE = re.compile(r"make test\b[^\n]*?TESTS=(?:'([^']*)'|\"([^\"]*)\"|(\S+))")
RESULT_RE = re.compile(r"^\s*(not ok|ok) (\d+) (\w+)")
KTEST_RE = re.compile(r"^KTEST\((\w+)\)", re.M)
IDENT_RE = re.compile(r"[A-Za-z_]\w*")
TEST_FILE_RE = re.compile(r"\btests/\w+\.c\b")


def blocks(text):
    """(first line number, lines) of each fenced code block (1-based numbers)."""
    out, cur, start = [], None, 0
    for n, line in enumerate(text.split("\n"), 1):
        if FENCE_RE.match(line):
            if cur is None:
                cur, start = [], n + 1
            else:
                out.append((start, cur))
                cur = None
        elif cur is not None:
            cur.append(line)
    return out


# --------------------------------------------------------------------------
# The monitor
# --------------------------------------------------------------------------

def _read(root, rel):
    try:
        with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def monitor_help(src):
    """What the monitor's help prints: its commands[] table, as cmd_help() lays it out."""
    table = src[src.find("commands[]"):]
    return ["  %-28s %s" % (f"{name} {args}", what)
            for name, args, what in COMMAND_RE.findall(table)]


def _format_regex(fmt):
    out, pos = [], 0
    for m in SPEC_RE.finditer(fmt):
        out.append(re.escape(fmt[pos:m.start()]))
        conv = m.group(2)
        out.append({"s": ".*?", "c": ".", "p": "0x[0-9a-f]+", "%": "%",
                    "x": "[0-9a-f]+", "X": "[0-9A-F]+"}.get(conv, "-?[0-9]+"))
        pos = m.end()
    out.append(re.escape(fmt[pos:]))
    return "".join(out)


def printk_lines(src):
    """A regular expression for each line the printk() formats of src can print."""
    pats = []
    for m in PRINTK_RE.finditer(src):
        fmt = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', m.group(1)))
        fmt = fmt.replace("\\n", "\n").replace('\\"', '"').replace("\\t", "\t")
        for piece in fmt.split("\n"):
            if piece.strip():
                pats.append(re.compile(_format_regex(piece)))
    return pats


def check_monitor(root, first, lines):
    src = _read(root, "kernel/monitor.c")
    if src is None or not any(l.startswith(PROMPT) for l in lines):
        return []
    problems, help_lines, pats = [], monitor_help(src), printk_lines(src)
    i = 0
    while i < len(lines):
        if not lines[i].startswith(PROMPT):
            i += 1
            continue
        cmd = lines[i][len(PROMPT):].strip()
        j = i + 1
        while j < len(lines) and not lines[j].startswith(PROMPT):
            j += 1
        out = lines[i + 1:j]
        if cmd == "help" and out != help_lines:
            problems.append((first + i, "the help transcript differs from what cmd_help() "
                             "prints from kernel/monitor.c's commands[]:\n    " +
                             "\n    ".join(help_lines)))
        elif cmd != "help":
            for k, line in enumerate(out):
                if line.strip() in ("", "...") or any(p.fullmatch(line) for p in pats):
                    continue
                problems.append((first + i + 1 + k, f"'{line}' after '{cmd}': no printk() "
                                 "of kernel/monitor.c prints such a line"))
        i = j
    return problems


# --------------------------------------------------------------------------
# make test
# --------------------------------------------------------------------------

def tests_in_order(root):
    """(name, file) of the normal tests (KTEST), as the runner orders them:
    by file name, then line."""
    out = []
    tdir = os.path.join(root, "tests")
    if not os.path.isdir(tdir):
        return out
    for f in sorted(os.listdir(tdir)):
        if f.endswith(".c"):
            rel = "tests/" + f
            out += [(n, rel) for n in KTEST_RE.findall(_read(root, rel) or "")]
    return out


def selected(root, glob, with_files=False):
    parts = glob.split(",")
    hits = [(n, f) for n, f in tests_in_order(root)
            if any(fnmatch.fnmatchcase(n, p) for p in parts)]
    return hits if with_files else [n for n, _ in hits]


def check_files_named(root, n, line):
    """A line that gives a make test command and the test files it runs
    ("make test TESTS='demo*' (tests/demo.c)") must name every file whose
    tests the glob selects."""
    named = set(TEST_FILE_RE.findall(line))
    if not named:
        return []
    problems = []
    for m in MAKE_TEST_RE.finditer(line):
        glob = next(g for g in m.groups() if g is not None)
        files = sorted({f for _, f in selected(root, glob, with_files=True)})
        missing = [f for f in files if f not in named]
        if missing:
            problems.append((n, f"TESTS='{glob}' also runs tests of {', '.join(missing)}"))
    return problems


def _statement(root, rel, line):
    text = _read(root, rel)
    if text is None:
        return None
    lines = text.split("\n")
    if not 1 <= line <= len(lines):
        return ""
    out = []
    for l in lines[line - 1:line + 8]:
        out.append(l)
        if l.rstrip().endswith(";"):
            break
    return "\n".join(out)


def check_make_test(root, first, lines, before):
    results = [(k, RESULT_RE.match(l)) for k, l in enumerate(lines) if RESULT_RE.match(l)]
    if not results:
        return []
    glob = None
    for line in reversed(before + lines):
        m = MAKE_TEST_RE.search(line)
        if m:
            glob = next(g for g in m.groups() if g is not None)
            break
    if glob is None:
        return []
    want = selected(root, glob)
    problems = []
    for k, m in results:
        name, num = m.group(3), int(m.group(2))
        if name not in want:
            problems.append((first + k, f"{name}: TESTS='{glob}' does not select it"))
        elif want.index(name) + 1 != num:
            problems.append((first + k, f"{name} runs as test {want.index(name) + 1} of "
                             f"TESTS='{glob}', not {num}"))
    listed = {m.group(3) for _, m in results}
    missing = [n for n in want if n not in listed]
    if missing and not any(l.strip() == "..." for l in lines):
        problems.append((first + results[0][0], f"TESTS='{glob}' also runs " +
                         ", ".join(missing) + " (list it, or write ... for lines left out)"))
    for k, line in enumerate(lines):
        m = EXPECTATION_RE.match(line)
        if not m:
            continue
        stmt = _statement(root, m.group("file"), int(m.group("line")))
        if stmt is None:
            continue
        words = IDENT_RE.findall(m.group("expr"))
        first_line = stmt.split("\n")[0]
        absent = [w for w in words if w not in stmt]
        if words and (absent or not any(w in first_line for w in words)):
            problems.append((first + k, f"{m.group('where')} does not check "
                             f"'{m.group('expr')}' (no {', '.join(absent or words)} there)"))
    return problems


def check(root, text):
    """Every transcript problem of a doc: [(line, problem)]."""
    problems = []
    doc_lines = text.split("\n")
    for n, line in enumerate(doc_lines, 1):
        problems += check_files_named(root, n, line)
    for first, lines in blocks(text):
        problems += check_monitor(root, first, lines)
        before = doc_lines[max(0, first - 16):first - 1]
        problems += check_make_test(root, first, lines, before)
    return problems
