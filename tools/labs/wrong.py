"""Wrong solutions: the classic mistakes of each lab, kept as patches
against the reference, and the proof that the grader catches each one
with a message that names the lesson.

Each is one file, tools/labs/wrong/LAB/NAME.patch: a header, then a
diff as `git diff` writes it (git apply skips the header):

    Wrong: cur >= wait.gp instead of rcu_seq_done()
    Part: wrap
    SMP: 2
    Expect: compare grace-period numbers with rcu_seq_done

    Free text: the mistake and the lesson.

    diff --git a/kernel/rcu/callbacks.c b/kernel/rcu/callbacks.c
    ...

Part is the id of the lab's part that must lose points; SMP the one CPU
count it is run at (none for a part that reads instructions); Expect a
regular expression that the part's failure message must match.  A patch
changes only the files of the lab's functions: it is something a student
could hand in.  `labs.py check` checks all of that and that each
patch applies; `labs.py wrong` applies each in turn, grades its part at
its CPU count only, stops at the first failure, and restores the tree.
Every lab has at least MIN_WRONG of them.
"""
import glob
import os
import re
import subprocess
import time
from dataclasses import dataclass

import grading

WRONG_DIR = "tools/labs/wrong"
MIN_WRONG = 3
HEADER_RE = re.compile(r"^(Wrong|Part|SMP|Expect):\s*(.*?)\s*$")
DIFF_FILE_RE = re.compile(r"^diff --git a/(\S+) b/(\S+)$", re.M)


@dataclass
class Wrong:
    lab: str
    name: str
    path: str
    header: dict
    about: str		# the free text: the mistake and its lesson
    diff: str

    @property
    def title(self):
        return self.header.get("Wrong", "")

    @property
    def smp(self):
        v = self.header.get("SMP", "")
        return int(v) if v.isdigit() else None

    def files(self):
        return sorted({m.group(1) for m in DIFF_FILE_RE.finditer(self.diff)})


def parse(lab, path):
    with open(path) as f:
        text = f.read()
    head, sep, rest = text.partition("\ndiff --git ")
    header, about = {}, []
    for line in head.splitlines():
        m = HEADER_RE.match(line)
        if m and not about:
            header[m.group(1)] = m.group(2)
        elif line.strip() or about:
            about.append(line)
    name = os.path.basename(path)[:-len(".patch")]
    return Wrong(lab, name, path, header, "\n".join(about).strip(),
                 ("diff --git " + rest) if sep else "")


def load(root, lab_name):
    paths = sorted(glob.glob(os.path.join(root, WRONG_DIR, lab_name, "*.patch")))
    return [parse(lab_name, p) for p in paths]


def git(root, *args, stdin=None):
    return subprocess.run(["git", *args], cwd=root, input=stdin, text=True,
                          capture_output=True)


def problems(root, lab):
    """What is wrong with the lab's wrong solutions, one line each."""
    wrongs = load(root, lab["NAME"])
    out = []
    if len(wrongs) < MIN_WRONG:
        out.append(f"lab {lab['NAME']}: {len(wrongs)} wrong solutions in "
                   f"{WRONG_DIR}/{lab['NAME']}/, at least {MIN_WRONG} needed")
    parts = {p["id"]: p for p in lab["PARTS"]}
    lab_files = {p for p, _, _ in lab["FUNCTIONS"]}
    for w in wrongs:
        where = os.path.relpath(w.path, root)
        for key in ("Wrong", "Part", "Expect"):
            if not w.header.get(key):
                out.append(f"{where}: no '{key}:' line in its header")
        part = parts.get(w.header.get("Part"))
        if w.header.get("Part") and not part:
            out.append(f"{where}: Part: {w.header['Part']}: the lab has no such part "
                       f"({', '.join(parts)})")
        if part and "smp" in part and w.smp not in part["smp"]:
            out.append(f"{where}: SMP: must be one of the part's CPU counts {part['smp']}")
        try:
            re.compile(w.header.get("Expect", ""))
        except re.error as e:
            out.append(f"{where}: Expect: not a regular expression ({e})")
        if not w.about:
            out.append(f"{where}: no text saying what the mistake is and what it teaches")
        if not w.diff:
            out.append(f"{where}: no diff")
            continue
        extra = sorted(set(w.files()) - lab_files)
        if extra:
            out.append(f"{where}: changes {', '.join(extra)}, which no function of the lab is in")
            continue
        r = git(root, "apply", "--check", "-", stdin=w.diff)
        if r.returncode != 0:
            out.append(f"{where}: does not apply to this tree (the reference moved? "
                       f"regenerate it with git diff): {r.stderr.strip()}")
    return out


def _restore_guard(root, w):
    """Refuses to touch a file with uncommitted changes: restoring it would lose them."""
    r = git(root, "diff", "--quiet", "HEAD", "--", *w.files())
    return r.returncode == 0


def run_one(root, lab, w, arch, say):
    """Grades w's part with w applied; returns (ok, lines to print)."""
    label = f"{lab['NAME']}/{w.name} ({w.title})"
    if not _restore_guard(root, w):
        return False, [f"{label}: {', '.join(w.files())} has uncommitted changes; "
                       "commit or stash them first"]
    r = git(root, "apply", "-", stdin=w.diff)
    if r.returncode != 0:
        return False, [f"{label}: does not apply: {r.stderr.strip()}"]
    t0 = time.monotonic()
    try:
        part = grading.select(lab, w.header["Part"])
        quiet = []
        results = grading.grade(lab, arch, part, smps=[w.smp] if w.smp else None,
                                stop_at_failure=True, root=root, say=quiet.append)
    finally:
        git(root, "apply", "-R", "-", stdin=w.diff)
    res = results[0]
    took = int(time.monotonic() - t0)
    at = f" at SMP={w.smp}" if w.smp else ""
    message = res.message()
    if not res.failed:
        return False, [f"{label}: NOT CAUGHT: part {res.part['id']}{at} scored "
                       f"{res.points}/{res.possible} ({took} s)"] + quiet[-8:]
    if not re.search(w.header["Expect"], "\n".join(message)):
        return False, [f"{label}: caught by part {res.part['id']}{at}, but its message "
                       f"does not match '{w.header['Expect']}' ({took} s):"] + \
            ["    " + x for x in message]
    return True, [f"{label}: part {res.part['id']}{at} gives {res.points}/{res.possible} "
                  f"({took} s), saying:"] + ["    " + x for x in message]
