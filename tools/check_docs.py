#!/usr/bin/env python3
"""Check that the docs' references to the source still hold.

    tools/check_docs.py [--root DIR] [FILE.md ...]

Reads README.md, docs/*.md and docs/labs/*.md (or the files given), and the
comments of the Makefile, and checks:

  - every path into the tree (kernel/..., tools/..., docs/..., tests/...,
    lib/..., boot/..., arch/..., .ci/..., Makefile) exists, or names the
    stem of files that do (a regression case "x" for x.bin and x.expect);
    a path with a placeholder (TARGET, NAME, ...) is not checked;
  - every bare file name with a line (`20_versions.c:532`) names exactly one
    file of the tree;
  - every `path:line` (and gdb's "file path, line N") lands inside the function the text names beside it:
    the nearest `name(` on the same line ("demo_fn_replacement () at
    kernel/demo/20_versions.c:532", "`run_on()` (`kernel/run_on.c:30`)").
    When that function is not defined in the file (gdb shows an inlined
    helper's line under its caller's name), the line must lie inside some
    function of the file; when the text names none, inside the file;
  - "`name()` in `path`" and "`name()` (`path`)": name is defined in path;
  - no path leads outside the tree (`../shared/x.md`: a clone has none);
  - transcripts (tools/lib/doc_transcripts.py): the monitor's help is what
    the code prints, its other output lines are lines its printk()s can
    print; a make test transcript lists the tests its TESTS glob selects,
    numbered as they run, and each "EXPECTATION FAILED" names a line
    that checks what it says;
  - counts (tools/lib/doc_counts.py): docs/rcu.md's table of rcu.inject=
    injections lists the code's, .ci/run runs each, and "N subtler ..."
    says how many there are;
  - each lab handout's grading table is its definition's
    (tools/lib/doc_labs.py);
  - docs/labs/INSTRUCTOR.md quotes each wrong solution of tools/labs/wrong/
    once, with a message its Expect regex matches, and each lab's "not
    graded" lines as its definition has them (tools/lib/doc_wrong.py).

A line number alone almost always exists, so a moved function would
otherwise go unnoticed.  Generated files (build/...) and globs are not
checked.  Prints one line per problem ("docs/gdb.md:127: ...") and exits 1
when there is any, 0 otherwise.
"""
import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import doc_counts  # noqa: E402
import doc_labs  # noqa: E402
import doc_transcripts  # noqa: E402
import doc_wrong  # noqa: E402
from ktap import EXPECTATION_RE  # noqa: E402

TOP_DIRS = (".ci", "arch", "boot", "docs", "kernel", "lib", "tests", "tools")
PATH_RE = re.compile(r"(?<![\w/.-])((?:" + "|".join(re.escape(d) for d in TOP_DIRS) +
                     r")/[\w./-]*|Makefile|README\.md)(?::(\d+))?")
# A placeholder in a path (tools/fuzz/corpus/TARGET/, fuzz_TARGET.c), not a file.
PLACEHOLDER_RE = re.compile(r"(?<![A-Za-z])(TARGET|NAME|ARCH|GLOB|FILE|DIR|N)(?![a-z])")
BARE_LINE_RE = re.compile(r"(?<![\w/.-])([\w-]+\.(?:c|h|S|py|sh)):(\d+)")
GDB_FILE_LINE_RE = re.compile(r"file ([\w./-]+), line (\d+)")
# A path that climbs out of the doc's folder ("../shared/NOTES.md", "../rcu.md").
UP_PATH_RE = re.compile(r"(?<![\w/.-])((?:\.\./)+[\w./-]*\w)")
CALL_RE = re.compile(r"\b([A-Za-z_]\w*) ?\(")
NAMED_IN_RE = re.compile(r"`([A-Za-z_]\w*)\(\)`(?: in | \()`([\w./-]+\.(?:c|h|S|py))`")
NOT_FUNCTIONS = {"at", "in", "if", "for", "while", "switch", "return", "sizeof", "file",
                 "line", "make", "see", "e", "i", "or", "and", "with", "of", "the"}
C_DEF_RE = re.compile(r"^(?!static_assert|typedef|extern|struct \w+ \{|#|\s)"
                      r"(?:[A-Za-z_][\w \t\*]*?[ \t\*])?(\w+)\(([^;]*)$")
C_ONE_LINE_RE = re.compile(r"^(?:[A-Za-z_][\w \t\*]*?[ \t\*])?(\w+)\([^;{]*\)\s*\{.*\}\s*$")
MACRO_DEFS = {"DEMO": "demo_fn_{}", "KTEST": "{}", "KTEST_EXPECT_PANIC": "{}",
              "KTEST_EXPECT_WARN": "{}"}


def functions(path):
    """{name: (first, last)} line ranges (1-based) of the functions of a
    C, assembly or Python file."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
    except OSError:
        return {}
    if path.endswith(".py"):
        return py_functions(lines)
    if path.endswith(".S"):
        return asm_functions(lines)
    return c_functions(lines)


def c_functions(lines):
    """Kernel style: the definition's name at column 0, its body from a line
    ending in '{' to the next '}' at column 0."""
    out = {}
    i = 0
    while i < len(lines):
        one = C_ONE_LINE_RE.match(lines[i])
        if one:
            out.setdefault(one.group(1), (i + 1, i + 1))
            i += 1
            continue
        m = C_DEF_RE.match(lines[i])
        if not m:
            i += 1
            continue
        name = m.group(1)
        arg = m.group(2).split(",")[0].strip().rstrip(")")
        if name in MACRO_DEFS and re.match(r"\w+$", arg):
            name = MACRO_DEFS[name].format(arg)
        first = i + 1
        j = i
        # The signature may wrap; the body opens with '{' ending a line.
        while j < len(lines) and not lines[j].rstrip().endswith("{"):
            if lines[j].rstrip().endswith(";") or (j > i and not lines[j].strip()):
                break
            j += 1
        if j >= len(lines) or not lines[j].rstrip().endswith("{"):
            i += 1
            continue
        k = j + 1
        while k < len(lines) and not lines[k].startswith("}"):
            k += 1
        if lines[j].startswith("{") or j == i or lines[j].strip() == "{":
            out.setdefault(name, (first, k + 1))
        i = k + 1
    return out


def asm_functions(lines):
    """A label at column 0 (not a local .L label) up to the next one."""
    starts = [(i, m.group(1)) for i, line in enumerate(lines)
              if (m := re.match(r"^([A-Za-z_]\w*):", line))]
    out = {}
    for n, (i, name) in enumerate(starts):
        end = starts[n + 1][0] if n + 1 < len(starts) else len(lines)
        out.setdefault(name, (i + 1, end))
    return out


def py_functions(lines):
    out = {}
    for i, line in enumerate(lines):
        m = re.match(r"^(\s*)(?:async )?def (\w+)\(", line)
        if not m:
            continue
        indent = len(m.group(1))
        k = i + 1
        while k < len(lines) and (not lines[k].strip() or
                                  len(lines[k]) - len(lines[k].lstrip()) > indent):
            k += 1
        while k > i + 1 and not lines[k - 1].strip():
            k -= 1
        out.setdefault(m.group(2), (i + 1, k))
    return out


def count_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read().count("\n") + 1


def tree_files(root):
    """Relative paths of the tree's files, build/ and .git/ left out."""
    out = []
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x not in (".git", "build")]
        for f in files:
            out.append(os.path.relpath(os.path.join(d, f), root))
    return out


KTAP_NOT_OK_RE = re.compile(r"^\s*not ok \d+ (\w+)")


def named_function(text, start, end, following=()):
    """The function the text names beside a reference at text[start:end]:
    the nearest 'name(' before it on the line, else a `name()` after it;
    for a KTAP failure ('# file:line: EXPECTATION FAILED'), the test of
    the 'not ok N name' line that follows it."""
    if EXPECTATION_RE.match(text):
        for line in following:
            m = KTAP_NOT_OK_RE.match(line)
            if m:
                return m.group(1)
        return None
    before = [m.group(1) for m in CALL_RE.finditer(text[:start])
              if m.group(1) not in NOT_FUNCTIONS]
    if before:
        return before[-1]
    m = re.search(r"`([A-Za-z_]\w*)\(\)`", text[end:])
    return m.group(1) if m else None


class Checker:
    def __init__(self, root):
        self.root = root
        self.files = tree_files(root)
        self.by_base = {}
        for f in self.files:
            self.by_base.setdefault(os.path.basename(f), []).append(f)
        self.cache = {}
        self.problems = []

    def funcs(self, rel):
        if rel not in self.cache:
            self.cache[rel] = functions(os.path.join(self.root, rel))
        return self.cache[rel]

    def problem(self, where, msg):
        self.problems.append(f"{where}: {msg}")

    def check_line(self, where, rel, line, text, start, end, following=()):
        path = os.path.join(self.root, rel)
        if not os.path.isfile(path):
            return
        n = count_lines(path)
        if line < 1 or line > n:
            self.problem(where, f"{rel}:{line}: the file has {n} lines")
            return
        funcs = self.funcs(rel)
        name = named_function(text, start, end, following)
        if name and name in funcs:
            a, b = funcs[name]
            if not a <= line <= b:
                inside = [f for f, (x, y) in funcs.items() if x <= line <= y]
                self.problem(where, f"{rel}:{line} is not inside {name}() (lines {a}-{b}"
                             f"{'; line ' + str(line) + ' is in ' + inside[0] + '()' if inside else ''})")
        elif name and funcs and not any(x <= line <= y for x, y in funcs.values()):
            self.problem(where, f"{rel}:{line}: {name}() is not defined there and the line "
                         f"is inside no function of the file")

    def check_text(self, doc, text):
        lines = text.split("\n")
        for n, problem in doc_transcripts.check(self.root, text):
            self.problem(f"{doc}:{n}", problem)
        for lineno, line in enumerate(lines, 1):
            where = f"{doc}:{lineno}"
            following = lines[lineno:lineno + 4]
            for m in UP_PATH_RE.finditer(line):
                target = os.path.normpath(os.path.join(self.root, os.path.dirname(doc),
                                                       m.group(1)))
                if not target.startswith(self.root + os.sep) or not os.path.exists(target):
                    self.problem(where, f"{m.group(1)} is outside the tree or missing "
                                 "(a clone has only the tree)")
            for m in PATH_RE.finditer(line):
                rel = m.group(1).rstrip(".,;:")
                if "*" in rel or rel.endswith("-") or PLACEHOLDER_RE.search(rel):
                    continue
                if not os.path.exists(os.path.join(self.root, rel)) and \
                        not glob.glob(os.path.join(self.root, glob.escape(rel)) + ".*"):
                    self.problem(where, f"{rel} does not exist")
                    continue
                if m.group(2):
                    self.check_line(where, rel, int(m.group(2)), line, m.start(), m.end(),
                                    following)
            for m in GDB_FILE_LINE_RE.finditer(line):	# gdb: "file F, line N."
                rel = m.group(1)
                if os.path.isfile(os.path.join(self.root, rel)):
                    self.check_line(where, rel, int(m.group(2)), line, 0, 0)
            for m in BARE_LINE_RE.finditer(line):
                if PATH_RE.match(line, m.start()):
                    continue
                base = m.group(1)
                cands = self.by_base.get(base, [])
                if len(cands) != 1:
                    self.problem(where, f"{base}:{m.group(2)}: {'no' if not cands else 'more than one'}"
                                 f" file of the tree is called {base}; give the path")
                    continue
                self.check_line(where, cands[0], int(m.group(2)), line, m.start(), m.end())
            for m in NAMED_IN_RE.finditer(line):
                name, rel = m.groups()
                if not os.path.isfile(os.path.join(self.root, rel)):
                    continue	# reported above when it is a tree path
                if name not in self.funcs(rel) and not self.defines_macro(rel, name):
                    self.problem(where, f"{name}() is not defined in {rel}")

    def defines_macro(self, rel, name):
        """A function-like macro, a definition the parser missed, or (in a
        header, which is where the docs send readers for an API) a
        prototype."""
        with open(os.path.join(self.root, rel), encoding="utf-8", errors="replace") as f:
            src = f.read()
        n = re.escape(name)
        return re.search(r"#define " + n + r"\(", src) is not None or \
            re.search(r"^\S.*\b" + n + r"\([^;]*$", src, re.M) is not None or \
            (rel.endswith(".h") and re.search(r"^\S.*\b" + n + r"\(", src, re.M) is not None)


def makefile_comments(root):
    """The Makefile's comment lines, the others blanked (line numbers kept)."""
    try:
        with open(os.path.join(root, "Makefile"), encoding="utf-8") as f:
            return "\n".join(l if l.lstrip().startswith("#") else "" for l in f.read().split("\n"))
    except OSError:
        return ""


def main(argv=None):
    p = argparse.ArgumentParser(description="Check the docs' paths and path:line references.")
    p.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    p.add_argument("docs", nargs="*", help="Markdown files (default README.md, docs/*.md, "
                   "docs/labs/*.md and the Makefile's comments)")
    args = p.parse_args(argv)
    root = os.path.abspath(args.root)
    docs = args.docs or [os.path.join(root, "README.md")] + \
        sorted(glob.glob(os.path.join(root, "docs", "*.md"))) + \
        sorted(glob.glob(os.path.join(root, "docs", "labs", "*.md")))
    checker = Checker(root)
    texts = {}
    for doc in docs:
        with open(doc, encoding="utf-8") as f:
            texts[os.path.relpath(doc, root)] = f.read()
        checker.check_text(os.path.relpath(doc, root), texts[os.path.relpath(doc, root)])
    if not args.docs:
        checker.check_text("Makefile", makefile_comments(root))
        docs.append("Makefile")
    for doc, n, problem in doc_counts.check(root, texts) + doc_labs.check(root, texts) + \
            doc_wrong.check(root, texts):
        checker.problem(f"{doc}:{n}", problem)
    for line in checker.problems:
        print(line)
    print(f"check_docs: {len(docs)} files, {len(checker.problems)} problems")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
