"""The instructor's guide against the wrong solutions (tools/check_docs.py):
docs/labs/INSTRUCTOR.md quotes, for each patch of tools/labs/wrong/LAB/,
what `python3 tools/labs/labs.py wrong LAB` printed for it, in a fenced
block under the lab's heading ("### Lab N, `LAB`"):

    wrong: ok: LAB/NAME (WRONG): part PART at SMP=N gives 0/20 (11 s), saying:
            the part's message, indented eight spaces

Each quote must name a patch that exists, under its own lab's heading,
with the patch's own Wrong, Part and SMP, and its message must match the
patch's Expect regex as labs.py wrong matches it; and every patch must be
quoted once.  So the guide cannot keep a message the grader no longer
gives, nor miss a new wrong solution.  The "not graded:" lines it quotes
(what make grade prints about what it does not check) must be the lab's
own NOT_GRADED entries, each quoted under the lab's heading.  In a
student repository (no guide, no patches) there is nothing to check.
"""
import os
import re
import sys

import doc_labs
import doc_transcripts

LABS_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "labs")
GUIDE = "docs/labs/INSTRUCTOR.md"
WRONG_DIR = "tools/labs/wrong"
LAB_HEADING_RE = re.compile(r"^### Lab \d+, `(\w+)`")
QUOTE_RE = re.compile(r"^wrong: ok: (\w+)/(\w+) \((.*)\): part (\w+)(?: at SMP=(\d+))? "
                      r"gives \d+/\d+ \(\d+ s\), saying:$")
MESSAGE_INDENT = " " * 8	# labs.py wrong: "    " + each of its lines' "    " + line
NOT_GRADED_RE = re.compile(r"^  not graded: (.*)$")


def lab_at(lines, n):
    """The lab of the nearest "### Lab N, `LAB`" heading above line n."""
    for line in reversed(lines[:n - 1]):
        m = LAB_HEADING_RE.match(line)
        if m:
            return m.group(1)
        if line.startswith("## "):
            return None
    return None


def quotes(lines):
    """[(line, lab heading, match of the first line, message lines)]."""
    out = []
    for start, body in doc_transcripts.blocks("\n".join(lines)):
        for i, line in enumerate(body):
            m = QUOTE_RE.match(line)
            if not m:
                continue
            msg = []
            for x in body[i + 1:]:
                if not x.startswith(MESSAGE_INDENT):
                    break
                msg.append(x[len(MESSAGE_INDENT):])
            out.append((start + i, lab_at(lines, start + i), m, msg))
    return out


def load_not_graded(root, lab):
    """The lab's NOT_GRADED entries; None when there is no such lab."""
    if not os.path.exists(os.path.join(root, "tools", "labs", "defs", lab + ".py")):
        return None
    return doc_labs.load(root, lab).get("NOT_GRADED", [])


def check_not_graded(root, lines, labs):
    """Each "not graded:" line quoted is one of its lab's NOT_GRADED
    entries, and each lab of labs has all of its entries quoted."""
    problems, quoted = [], set()
    for start, body in doc_transcripts.blocks("\n".join(lines)):
        for i, line in enumerate(body):
            m = NOT_GRADED_RE.match(line)
            if not m:
                continue
            lab = lab_at(lines, start + i)
            entries = load_not_graded(root, lab) if lab else None
            if entries is None:
                problems.append((GUIDE, start + i, "a \"not graded:\" line outside a lab's "
                                 "section"))
            elif m.group(1) not in entries:
                problems.append((GUIDE, start + i, f"\"not graded: {m.group(1)[:40]}...\" is "
                                 f"not one of tools/labs/defs/{lab}.py's NOT_GRADED"))
            else:
                quoted.add((lab, m.group(1)))
    for lab in labs:
        for entry in load_not_graded(root, lab) or []:
            if (lab, entry) not in quoted:
                problems.append((GUIDE, 1, f"tools/labs/defs/{lab}.py's \"not graded: "
                                 f"{entry[:40]}...\" is not quoted under lab {lab}'s heading "
                                 "(make grade LAB=" + lab + " prints it)"))
    return problems


def check(root, docs):
    """docs: {relative path: text}; [(doc, line, problem)]."""
    if GUIDE not in docs or not os.path.isdir(os.path.join(root, WRONG_DIR)):
        return []
    # Here, not above: a student repository has neither the guide nor wrong.py.
    if LABS_DIR not in sys.path:
        sys.path.insert(0, LABS_DIR)
    import wrong
    labs = sorted(os.listdir(os.path.join(root, WRONG_DIR)))
    lines = docs[GUIDE].split("\n")
    problems = []
    seen = {}
    for n, heading, m, msg in quotes(lines):
        lab, name, title, part, smp = m.groups()
        path = os.path.join(root, WRONG_DIR, lab, name + ".patch")
        if not os.path.exists(path):
            problems.append((GUIDE, n, f"quotes {lab}/{name}, but there is no "
                             f"{WRONG_DIR}/{lab}/{name}.patch"))
            continue
        if (lab, name) in seen:
            problems.append((GUIDE, n, f"quotes {lab}/{name} again (line {seen[lab, name]})"))
        seen[lab, name] = n
        w = wrong.parse(lab, path)
        if heading != lab:
            problems.append((GUIDE, n, f"{lab}/{name} is quoted under lab "
                             f"{heading or 'no'}'s heading"))
        want = (w.title, w.header.get("Part", ""), str(w.smp) if w.smp else None)
        if (title, part, smp) != want:
            problems.append((GUIDE, n, f"{lab}/{name}: the quote says ({title}), part {part}"
                             f"{' at SMP=' + smp if smp else ''}; the patch says "
                             f"({want[0]}), part {want[1]}"
                             f"{' at SMP=' + want[2] if want[2] else ''}: run labs.py "
                             f"wrong {lab} --only {name} and paste what it prints"))
        if not re.search(w.header.get("Expect", ""), "\n".join(msg)):
            problems.append((GUIDE, n, f"{lab}/{name}: the message quoted does not match "
                             f"the patch's Expect '{w.header.get('Expect', '')}': run "
                             f"labs.py wrong {lab} --only {name} and paste what it prints"))
    for lab in labs:
        for w in wrong.load(root, lab):
            if (lab, w.name) not in seen:
                problems.append((GUIDE, 1, f"{WRONG_DIR}/{lab}/{w.name}.patch is not "
                                 "quoted (\"Common mistakes\": paste what labs.py wrong "
                                 f"{lab} --only {w.name} prints)"))
    return problems + check_not_graded(root, lines, labs)
