"""Counts and lists the docs state, checked against the code
(tools/check_docs.py): RCU's fault injections.

The code defines them (kernel/rcu/rcupdate.h, RCU_INJECTIONS).  docs/rcu.md's
table "The subtle injections and the tests that catch them" must list
every one but no_wait, .ci/run must run each, and a number the docs put
before "subtle(r) ..." must be their count.  Each check returns a list of
(doc, line number, problem).
"""
import os
import re

INJECTION_RE = re.compile(r'X\(RCU_INJECT_\w+,\s*"(\w+)"')
TABLE_HEADING = "### The subtle injections"
ROW_RE = re.compile(r"^\| `(\w+)` \|")
NUMBER_WORDS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight",
                "nine", "ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen",
                "sixteen", "seventeen", "eighteen", "nineteen", "twenty"]
COUNT_RE = re.compile(r"\b(\d+|" + "|".join(NUMBER_WORDS) + r")\s+(?:more\s+)?subtler?\b",
                      re.I)


def _read(root, rel):
    try:
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None


def injections(root):
    """The rcu.inject= names the code defines, no_wait included; None without the file."""
    src = _read(root, "kernel/rcu/rcupdate.h")
    return INJECTION_RE.findall(src) if src else None


def table_rows(text):
    """(line number, name) of each row of rcu.md's injection table."""
    rows, inside = [], False
    for n, line in enumerate(text.split("\n"), 1):
        if line.startswith("#"):
            inside = line.startswith(TABLE_HEADING)
            continue
        m = ROW_RE.match(line)
        if inside and m:
            rows.append((n, m.group(1)))
    return rows


def check(root, docs):
    """docs: {relative path: text}.  Problems with the injections' table,
    CI's list and every count of them."""
    names = injections(root)
    if names is None:
        return []
    subtle = [n for n in names if n != "no_wait"]
    problems = []
    rcu_md = docs.get("docs/rcu.md")
    if rcu_md is not None:
        rows = table_rows(rcu_md)
        listed = [name for _, name in rows]
        for name in subtle:
            if name not in listed:
                problems.append(("docs/rcu.md", rows[0][0] if rows else 1,
                                 f"the injection table lacks rcu.inject={name} "
                                 "(kernel/rcu/rcupdate.h defines it)"))
        for n, name in rows:
            if name not in subtle:
                problems.append(("docs/rcu.md", n, f"rcu.inject={name} is in the table but "
                                 "not in RCU_INJECTIONS (kernel/rcu/rcupdate.h)"))
    ci = _read(root, ".ci/run")
    if ci is not None:
        for name in subtle:
            if not re.search(r"\b" + name + r"\b", ci):
                problems.append((".ci/run", 1, f"rcu.inject={name} is never run as an "
                                 "expected failure"))
    for doc, text in docs.items():
        for n, line in enumerate(text.split("\n"), 1):
            for m in COUNT_RE.finditer(line):
                word = m.group(1).lower()
                count = int(word) if word.isdigit() else NUMBER_WORDS.index(word)
                if count != len(subtle):
                    problems.append((doc, n, f"'{m.group(0)}': the code defines "
                                     f"{len(subtle)} rcu.inject= injections besides no_wait"))
    return problems
