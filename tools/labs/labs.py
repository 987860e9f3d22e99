#!/usr/bin/env python3
"""The labs: make lab (start one) and make grade (score one).  docs/labs/README.md.

    tools/labs/labs.py list
    tools/labs/labs.py start NAME       make lab LAB=NAME: branch lab/NAME, starter bodies
    tools/labs/labs.py grade [--lab NAME] [--arch ARCH] [--part ID] [--smp N]
                             [--stop-at-first-failure] [--json PATH] [--unseen DIR]
                                        make grade: one line per part, then Score: N/M,
                                        and build/grade/results.json (Gradescope's format)
    tools/labs/labs.py check            every lab's functions exist, and its wrong
                                        solutions are well formed and apply (CI)
    tools/labs/labs.py wrong [LAB...]   each wrong solution loses points, and says why (CI)

A lab is one file, tools/labs/defs/NAME.py: its summary, the functions it
hands to the student (file, name, starter body) and its graded parts
(tests, CPU counts, points, timeout; grading.py); its wrong solutions
are the patches in tools/labs/wrong/NAME/ (wrong.py).  `start` finds each function's
current body in the code (cswap.py) and puts the starter body in its
place, on a new branch, and records the base commit in .lab (name and
commit), so that `grade` runs the lab's tests and definition as they were
at that commit and refuses if the branch changed them.

grade also boots the instructor's unseen tests of the lab, user programs
the students never saw (docs/labs/INSTRUCTOR.md): those of --unseen DIR,
else of tools/labs/unseen/NAME/ when this repository has it.

Exit status of grade: 0 only at full marks; 1 below; 2 when it refuses.
"""
import argparse
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
import cswap  # noqa: E402
import grading  # noqa: E402
import results as results_json  # noqa: E402

DEFS = "tools/labs/defs"
UNSEEN = "tools/labs/unseen"	# the instructor's unseen tests, per lab (no handout has it)
RECORD = ".lab"
PROTECTED = ["tests", "tools/labs"]	# what a lab branch must leave as it was
LAB_IDENTITY = ["-c", "user.name=Quiescent lab", "-c", "user.email=lab@localhost"]


class Refused(Exception):
    pass


def wrong_tool():
    """tools/labs/wrong.py, imported only by the commands that need it: a
    student repository (make handout) leaves it out, and must still grade."""
    try:
        import wrong
    except ImportError:
        raise Refused("labs: the wrong solutions (tools/labs/wrong/) and their tool are the "
                      "instructor's, not in this student repository (make handout)") from None
    return wrong


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
    for i, part in enumerate(ns.get("PARTS", []), 1):
        part.setdefault("id", str(i))	# a definition older than part ids
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


def unseen_dir(name, given):
    """The folder of the lab's unseen tests: given, or UNSEEN/NAME if it exists; None."""
    path = given or os.path.join(ROOT, UNSEEN, name)
    if given and not os.path.isdir(given):
        raise Refused(f"grade: --unseen {given}: no such folder")
    return os.path.abspath(path) if os.path.isdir(path) else None


def cmd_grade(name, arch, part=None, smp=None, stop_at_first_failure=False, json_path=None,
              unseen=None):
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
    lab["UNSEEN_DIR"] = unseen_dir(name, unseen)
    try:
        parts = grading.select(lab, part)
    except ValueError as e:
        raise Refused(str(e))
    only = f", part {part}" if part else ""
    print(f"grade: lab {name} on {arch}" + (f" (base {rec[1][:12]})" if source else "") + only +
          (f", with the unseen tests of {os.path.relpath(lab['UNSEEN_DIR'], ROOT)}"
           if lab["UNSEEN_DIR"] else ""), flush=True)
    t0 = time.monotonic()
    results = grading.grade(lab, arch, parts, smps=[smp] if smp else None,
                            stop_at_failure=stop_at_first_failure,
                            say=lambda line: print(line, flush=True))
    score = sum(r.points for r in results)
    total = sum(r.possible for r in results)
    if not part:
        for note in lab.get("NOT_GRADED", []):
            print(f"  not graded: {note}")
    json_path = json_path or os.path.join("build", "grade", "results.json")
    results_json.write(os.path.join(ROOT, json_path),
                       results_json.gradescope(lab, arch, results, time.monotonic() - t0))
    print(f"Score: {score}/{total}" + (f" (part {part} only)" if part else ""))
    print(f"grade: results for autograders in {json_path}")
    return 0 if score == total else 1


def cmd_wrong(names, only, arch):
    """Each wrong solution of the labs named (all when none): caught, and how."""
    labs = [load_def(n) for n in names] if names else all_labs()
    wrong = wrong_tool()
    passed = failed = 0
    for lab in labs:
        for w in wrong.load(ROOT, lab["NAME"]):
            if only and w.name not in only:
                continue
            ok, lines = wrong.run_one(ROOT, lab, w, arch, print)
            print(("wrong: ok: " if ok else "wrong: FAILED: ") + lines[0])
            for line in lines[1:]:
                print("    " + line)
            sys.stdout.flush()
            passed += ok
            failed += not ok
    print(f"wrong: {passed} caught as expected, {failed} not")
    return 1 if failed else 0


def cmd_check():
    wrong = wrong_tool()
    bad = 0
    for lab in all_labs():
        try:
            swapped(lab)
        except Refused as e:
            print(e)
            bad += 1
            continue
        problems = wrong.problems(ROOT, lab)
        for line in problems:
            print("labs: " + line)
        bad += bool(problems)
        print(f"labs: {lab['NAME']}: {len(lab['FUNCTIONS'])} functions found, "
              f"{len(wrong.load(ROOT, lab['NAME']))} wrong solutions" +
              (" (with problems)" if problems else " that apply"))
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
    g.add_argument("--part", help="grade only this part (its id or number; "
                   "comma-separated for several): make grade PART=...")
    g.add_argument("--smp", type=int, help="only this one of the parts' CPU counts")
    g.add_argument("--stop-at-first-failure", action="store_true",
                   help="fail the parts and CPU counts after the first failed one without "
                   "running them (CI)")
    g.add_argument("--json", help="where to write results.json (Gradescope's format; "
                   "default build/grade/results.json)")
    g.add_argument("--unseen", help="a folder of unseen tests to boot too (default "
                   f"{UNSEEN}/LAB when it exists; docs/labs/INSTRUCTOR.md)")
    sub.add_parser("check")
    w = sub.add_parser("wrong", help="show that the grader catches each wrong solution "
                       "(tools/labs/wrong/; changes and restores the tree)")
    w.add_argument("labs", nargs="*")
    w.add_argument("--only", nargs="+", help="only these wrong solutions (file names "
                   "without .patch)")
    w.add_argument("--arch", default="x86_64")
    a = p.parse_args(argv)
    try:
        if a.cmd == "list":
            return cmd_list()
        if a.cmd == "start":
            return cmd_list() if a.name == "list" else cmd_start(a.name)
        if a.cmd == "grade":
            return cmd_grade(a.lab or None, a.arch, a.part, a.smp, a.stop_at_first_failure,
                             a.json, a.unseen)
        if a.cmd == "wrong":
            return cmd_wrong(a.labs, a.only, a.arch)
        return cmd_check()
    except Refused as e:
        print(e)
        return 2


if __name__ == "__main__":
    sys.exit(main())
