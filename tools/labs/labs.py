#!/usr/bin/env python3
"""The labs: make lab (start one) and make grade (score one).  docs/labs/README.md.

    tools/labs/labs.py list
    tools/labs/labs.py start NAME       make lab LAB=NAME: branch lab/NAME, starter bodies
    tools/labs/labs.py grade [--lab NAME] [--arch ARCH] [--stop-at-first-failure]
                                        make grade: one line per part, then Score: N/M
    tools/labs/labs.py check            every lab's functions exist (CI)

A lab is one file, tools/labs/defs/NAME.py: its summary, the functions it
hands to the student (file, name, starter body) and its graded parts
(tests, CPU counts, points, timeout).  `start` finds each function's
current body in the code (cswap.py) and puts the starter body in its
place, on a new branch, and records the base commit in .lab (name and
commit), so that `grade` runs the lab's tests and definition as they were
at that commit and refuses if the branch changed them.

Exit status of grade: 0 only at full marks; 1 below; 2 when it refuses.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
import cswap  # noqa: E402
import checks  # noqa: E402

DEFS = "tools/labs/defs"
RECORD = ".lab"
PROTECTED = ["tests", "tools/labs"]	# what a lab branch must leave as it was
LAB_IDENTITY = ["-c", "user.name=Quiescent lab", "-c", "user.email=lab@localhost"]


class Refused(Exception):
    pass


def git(*args, check=True, capture=True):
    r = subprocess.run(["git", *args], cwd=ROOT, text=True,
                       stdout=subprocess.PIPE if capture else None,
                       stderr=subprocess.PIPE if capture else None)
    if check and r.returncode != 0:
        raise Refused(f"git {' '.join(args)}: {(r.stderr or '').strip()}")
    return (r.stdout or "").strip()


# --------------------------------------------------------------------------
# Lab definitions
# --------------------------------------------------------------------------

def load_def(name, source=None):
    """The lab's definition as a dict: from the working tree, or from the
    text given (the base commit's)."""
    if source is None:
        path = os.path.join(ROOT, DEFS, f"{name}.py")
        if not re.fullmatch(r"[a-z0-9_]+", name) or not os.path.exists(path):
            raise Refused(f"lab: no lab named '{name}' (make lab LAB=list lists them)")
        with open(path) as f:
            source = f.read()
    ns = {}
    exec(compile(source, f"{DEFS}/{name}.py", "exec"), ns)
    ns["NAME"] = name
    return ns


def all_labs():
    names = [f[:-3] for f in os.listdir(os.path.join(ROOT, DEFS)) if f.endswith(".py")]
    labs = [load_def(n) for n in names]
    return sorted(labs, key=lambda d: d["ORDER"])


def swapped(lab, read=None):
    """{path: new text} with every function of the lab given its starter body;
    raises Refused naming each function that is gone."""
    read = read or (lambda p: open(os.path.join(ROOT, p)).read())
    texts, missing = {}, []
    for path, fname, starter in lab["FUNCTIONS"]:
        try:
            text = texts[path] if path in texts else read(path)
        except OSError:
            missing.append(f"{path}: no such file (needed for {fname})")
            continue
        try:
            texts[path] = cswap.replace_body(text, fname, starter)
        except cswap.NotFound as e:
            missing.append(f"{path}: {e}")
    if missing:
        raise Refused(f"lab {lab['NAME']}: the code changed under the lab definition "
                      f"({DEFS}/{lab['NAME']}.py):\n  " + "\n  ".join(missing))
    return texts


# --------------------------------------------------------------------------
# make lab
# --------------------------------------------------------------------------

def cmd_list():
    for lab in all_labs():
        print(f"  {lab['NAME']:<14} {lab['ORDER']}. {lab['SUMMARY']}")
    print("Start one with: make lab LAB=NAME   (docs/labs/README.md)")
    return 0


def cmd_start(name):
    rec = read_record()
    if rec:
        raise Refused(on_a_lab_branch(name, *rec))
    lab = load_def(name)
    if git("status", "--porcelain"):
        raise Refused("lab: the tree has uncommitted changes; commit or stash them first "
                      "(make lab creates a branch from the last commit)")
    branch = f"lab/{name}"
    if git("rev-parse", "--verify", "--quiet", f"refs/heads/{branch}", check=False):
        raise Refused(f"lab: branch {branch} exists already: `git switch {branch}` to go on "
                      f"with it, or `git branch -D {branch}` to start over")
    texts = swapped(lab)			# every function found, before touching git
    base = git("rev-parse", "HEAD")
    git("switch", "-q", "-c", branch)
    for path, text in texts.items():
        with open(os.path.join(ROOT, path), "w") as f:
            f.write(text)
    with open(os.path.join(ROOT, RECORD), "w") as f:
        f.write(f"lab {name}\nbase {base}\n")
    git("add", RECORD, *texts)
    ident = [] if git("config", "user.email", check=False) else LAB_IDENTITY
    git(*ident, "commit", "-q", "-m", f"lab {name}: the starting point (base {base[:12]})")
    print(f"lab {name}: on branch {branch}; the starter replaces:")
    for path, fname, _ in lab["FUNCTIONS"]:
        print(f"  {path}: {fname}")
    print(f"Read docs/labs/{name}.md, then: make grade")
    return 0


def on_a_lab_branch(name, lab, base):
    """Why make lab does not start a lab where one was started already
    (.lab): the new lab would keep that lab's stubs, or your answer."""
    head = f"lab: not starting lab {name} here: this tree is lab {lab}'s (.lab)"
    if "base root" in open(os.path.join(ROOT, RECORD)).read().splitlines():
        return (f"{head}, the student repository of lab {lab} (make handout), which holds "
                f"no other lab.  Lab {name} comes in a repository of its own: ask your "
                f"instructor (make handout LAB={name}, in the course's repository).")
    return (f"{head}: lab {name} would start on top of lab {lab}'s stubs, or your answer "
            f"to it.  Start it from the reference, the commit lab {lab} started from:\n"
            f"  git switch --detach {base[:12]} && make lab LAB={name}\n"
            f"(or: git switch main && make lab LAB={name}, while main has not moved)")


# --------------------------------------------------------------------------
# make grade
# --------------------------------------------------------------------------

def read_record():
    path = os.path.join(ROOT, RECORD)
    if not os.path.exists(path):
        return None
    rec = dict(line.split(None, 1) for line in open(path).read().splitlines() if line.strip())
    base = rec.get("base")
    if base == "root":	# a student repository (make handout): its first commit
        base = git("rev-list", "--max-parents=0", "HEAD").split()[-1]
    return rec.get("lab"), base


def protected_changes(base):
    changed = git("diff", "--name-only", base, "--", *PROTECTED).splitlines()
    changed += git("ls-files", "--others", "--exclude-standard", "--", *PROTECTED).splitlines()
    return changed


def run(cmd, timeout=None):
    try:
        r = subprocess.run(cmd, cwd=ROOT, text=True, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=timeout)
        return r.returncode, r.stdout
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        return None, out


def first_problem(out):
    """The first failing test's diagnostic, or how the run ended."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if "Kernel panic - not syncing" in line:
            return line.strip()
        if "FAILED" in line and line.lstrip("# ").startswith("tests/"):
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            detail = f" ({nxt.strip('# ').strip()})" if nxt.startswith("#   ") else ""
            return line.strip("# ").strip() + detail
    for line in lines:
        if line.startswith("not ok"):
            return line.strip()
    for line in lines:
        if line.startswith("run: "):
            return line.strip()
    return (lines[-1] if lines else "no output").strip()


def make_vars(lab, arch):
    return [f"ARCH={arch}", *lab.get("MAKE_VARS", [])]


def grade_part(lab, part, arch):
    """(passed, diagnostic) of one part, at each of its CPU counts."""
    for smp in part["smp"]:
        timeout = part.get("timeout", 120) + 30 * smp
        words = " ".join(part.get("cmdline", []))
        cmd = ["make", "--no-print-directory", "test", *make_vars(lab, arch), f"SMP={smp}",
               f"TESTS={part['tests']}", f"TIMEOUT={timeout}", f"CMDLINE={words}"]
        rc, out = run(cmd, timeout=timeout + 60)
        if rc is None:
            return False, f"SMP={smp}: the grader stopped a run that outlived {timeout + 60} s"
        if rc != 0:
            return False, f"SMP={smp}: {first_problem(out)}"
        if not re.search(r"^[1-9]\d* passed, 0 failed", out, re.M):
            return False, f"SMP={smp}: no test matched {part['tests']}"
        check = part.get("check")
        if check:
            problem = getattr(checks, check)(out, smp)
            if problem:
                return False, f"SMP={smp}: {problem}"
    return True, ""


def cmd_grade(name, arch, stop_at_first_failure=False):
    rec = read_record()
    source = None
    if rec and (name is None or name == rec[0]):
        name, base = rec
        changed = protected_changes(base)
        if changed:
            raise Refused("grade: this branch changed what grades it (tests/ and tools/labs/ "
                          "must stay as at the lab's base commit " + base[:12] + "):\n  " +
                          "\n  ".join(changed) + "\nundo with: git checkout " + base[:12] +
                          " -- " + " ".join(PROTECTED) + " (and remove files you added there)")
        source = git("show", f"{base}:{DEFS}/{name}.py")
    elif name is None:
        raise Refused("grade: not on a lab branch (no .lab here); use make grade LAB=NAME, "
                      "or make lab LAB=NAME to start one")
    lab = load_def(name, source)
    print(f"grade: lab {name} on {arch}" + (f" (base {rec[1][:12]})" if source else ""))
    rc, out = run(["make", "--no-print-directory", "-j2", "all", *make_vars(lab, arch)])
    score, total = 0, sum(p["points"] for p in lab["PARTS"])
    if rc != 0:
        errs = [l for l in out.splitlines() if "error" in l.lower()]
        print("grade: the kernel does not build: " + (errs[0] if errs else out.strip()[-300:]))
    stopped = False
    for part in lab["PARTS"]:
        if rc != 0:
            ok, why = False, "not built"
        elif stopped:
            ok, why = False, "not run (--stop-at-first-failure)"
        else:
            ok, why = grade_part(lab, part, arch)
            stopped = not ok and stop_at_first_failure
        score += part["points"] if ok else 0
        smp = ",".join(str(n) for n in part["smp"])
        line = f"  {part['name']} (SMP={smp}): {'OK' if ok else 'FAIL'}"
        line += f"  [{part['points'] if ok else 0}/{part['points']}]"
        print(line + ("" if ok else f"\n      {why}"), flush=True)
    for note in lab.get("NOT_GRADED", []):
        print(f"  not graded: {note}")
    print(f"Score: {score}/{total}")
    return 0 if score == total else 1


def cmd_check():
    bad = 0
    for lab in all_labs():
        try:
            swapped(lab)
            print(f"labs: {lab['NAME']}: {len(lab['FUNCTIONS'])} functions found")
        except Refused as e:
            print(e)
            bad += 1
    return 1 if bad else 0


def main(argv=None):
    p = argparse.ArgumentParser(description="The labs (docs/labs/README.md).")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("list")
    s = sub.add_parser("start")
    s.add_argument("name")
    g = sub.add_parser("grade")
    g.add_argument("--lab")
    g.add_argument("--arch", default="x86_64")
    g.add_argument("--stop-at-first-failure", action="store_true",
                   help="fail the parts after the first failed one without running them (CI)")
    sub.add_parser("check")
    a = p.parse_args(argv)
    try:
        if a.cmd == "list":
            return cmd_list()
        if a.cmd == "start":
            return cmd_list() if a.name == "list" else cmd_start(a.name)
        if a.cmd == "grade":
            return cmd_grade(a.lab or None, a.arch, a.stop_at_first_failure)
        return cmd_check()
    except Refused as e:
        print(e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
