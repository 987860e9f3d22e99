"""The labs' handouts against their definitions (tools/check_docs.py):
docs/labs/NAME.md's grading table must be the one tools/labs/defs/NAME.py
defines, row for row (the id make grade PART= takes, what the part
checks, its tests, CPU counts and points).  `python3 tools/lib/doc_labs.py
NAME` prints the table to paste.
"""
import os
import sys

HEADER = "| part (`PART=`) | what it checks | tests | CPUs | points |"
RULE = "| --- | --- | --- | --- | --- |"


def load(root, name):
    ns = {}
    path = os.path.join(root, "tools", "labs", "defs", name + ".py")
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), ns)
    return ns


def rows(lab):
    out = []
    for p in lab["PARTS"]:
        if "disasm" in p:
            names = ", ".join(f"`{f}()`" for _, f in p["disasm"]["functions"])
            tests, cpus = f"the AArch64 instructions of {names}", "-"
        else:
            tests = f"`{p['tests']}`" + "".join(f" with `{w}`" for w in p.get("cmdline", []))
            cpus = ", ".join(str(n) for n in p["smp"])
        out.append(f"| `{p['id']}` | {p['name']} | {tests} | {cpus} | {p['points']} |")
    return out


def table(lab):
    total = sum(p["points"] for p in lab["PARTS"])
    return [HEADER, RULE] + rows(lab) + [f"| | | | | {total} |"]


def check(root, docs):
    """docs: {relative path: text}; [(doc, line, problem)]."""
    problems = []
    for doc, text in docs.items():
        name = os.path.basename(doc)[:-3]
        if not doc.startswith("docs/labs/") or \
                not os.path.exists(os.path.join(root, "tools", "labs", "defs", name + ".py")):
            continue
        want = table(load(root, name))
        lines = text.split("\n")
        if HEADER not in lines:
            problems.append((doc, 1, f"no grading table (python3 tools/lib/doc_labs.py {name} "
                             "prints it)"))
            continue
        start = lines.index(HEADER)
        have = lines[start:start + len(want)]
        if have != want:
            problems.append((doc, start + 1, "the grading table differs from "
                             f"tools/labs/defs/{name}.py; it is:\n    " + "\n    ".join(want)))
    return problems


if __name__ == "__main__":
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for n in sys.argv[1:]:
        print("\n".join(table(load(root, n))))
