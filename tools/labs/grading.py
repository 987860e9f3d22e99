"""make grade: one lab's parts, each at its CPU counts, with partial
credit per CPU count and the failing test's own explanation.

A part is a dict of the lab's definition (tools/labs/defs/NAME.py):

    {"id": "held", "name": "...", "points": 30,
     "smp": [2, 4], "tests": "glob", "timeout": 60,   # a boot at each CPU count
     "cmdline": ["trace=rcu"], "check": "fn"}         # optional: checks.fn(console, smp)

or, for ordering that emulation cannot show, a look at the instructions:

    {"id": "release", "name": "...", "points": 10,
     "disasm": {"arch": "aarch64", "functions": [("tests/x.c", "f"), ...]},
     "check": "fn"}                                   # disasm.fn({name: insns})

A boot part's points are shared out over its CPU counts (the first
counts take the remainder): each count that passes earns its share.
Parts graded at the same CPU count with the same command line first
share one boot (shared_boots()); only when it fails does each boot alone,
so that its message is its own.

A lab whose definition says SHARED_BOOT = True boots once per CPU count
for all its boot parts together: the boot runs every part's tests to the
end, and each part is scored on its own tests' results in it (a lab of
user programs, whose tests cannot hang the kernel).  make grade's unseen
tests (UNSEEN_DIR, set by labs.py: LAB_UNSEEN for user/user.mk) join
the part whose tests' glob their names match.
"""
import fnmatch
import os
import re
from dataclasses import dataclass, field

import checks
import console
import disasm
import runner

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Seconds a test boot may take beyond its part's timeout, per CPU (booting, the runner).
SLACK_PER_CPU = 30


@dataclass
class CountResult:
    smp: int
    points: int			# earned
    share: int			# possible
    problem: list = field(default_factory=list)	# lines; empty when it passed
    skipped: bool = False	# not run (--stop-at-first-failure after a failure)


@dataclass
class PartResult:
    part: dict
    counts: list = field(default_factory=list)
    problem: list = field(default_factory=list)	# a part without CPU counts

    @property
    def points(self):
        if not self.counts:
            return 0 if self.problem else self.part["points"]
        return sum(c.points for c in self.counts)

    @property
    def possible(self):
        """The part's points, or the shares of the CPU counts graded (--smp)."""
        if not self.counts:
            return self.part["points"]
        return sum(c.share for c in self.counts)

    @property
    def failed(self):
        return self.points < self.possible or bool(self.problem)

    def message(self):
        """The lines that say why points were lost."""
        out = list(self.problem)
        for c in self.counts:
            if c.problem:
                out += [f"SMP={c.smp}: {c.problem[0]}"] + ["  " + x for x in c.problem[1:]]
            elif c.skipped:
                out.append(f"SMP={c.smp}: not run (--stop-at-first-failure)")
        return out


def shares(points, n):
    """points shared out over n CPU counts; the first ones take the remainder."""
    return [points // n + (1 if i < points % n else 0) for i in range(n)]


def make_vars(lab, arch):
    unseen = [f"LAB_UNSEEN={lab['UNSEEN_DIR']}"] if lab.get("UNSEEN_DIR") else []
    return [f"ARCH={arch}", *lab.get("MAKE_VARS", []), *unseen]


def part_label(part):
    smp = part.get("smp")
    where = f"SMP={','.join(str(n) for n in smp)}" if smp else "AArch64 instructions"
    return f"{part['id']}: {part['name']} ({where})"


def select(lab, wanted):
    """The parts named by wanted (ids or 1-based numbers, comma-separated), or all."""
    parts = lab["PARTS"]
    if not wanted:
        return parts
    out = []
    for w in wanted.split(","):
        hit = [p for i, p in enumerate(parts, 1) if w in (p["id"], str(i))]
        if not hit:
            ids = ", ".join(f"{i} or {p['id']}" for i, p in enumerate(parts, 1))
            raise ValueError(f"grade: lab {lab['NAME']} has no part '{w}' (its parts: {ids})")
        out += hit
    return out


# --------------------------------------------------------------------------
# Boot parts
# --------------------------------------------------------------------------

def test_boot(lab, arch, smp, root, tests, timeout, words, stop_at_failure=True):
    """A make test boot of the tests glob: (status, lines, how) (runner.boot)."""
    cmd = ["make", "--no-print-directory", "test", *make_vars(lab, arch), f"SMP={smp}",
           f"TESTS={tests}", f"TIMEOUT={timeout}", f"CMDLINE={words}"]
    return runner.boot(root, cmd, timeout + 60, stop_at_failure)


def grade_count(lab, part, arch, smp, root):
    """The problem (a list of lines) of part at smp CPUs, empty when it passes."""
    timeout = part.get("timeout", 120) + SLACK_PER_CPU * smp
    words = " ".join(part.get("cmdline", []))
    status, lines, how = test_boot(lab, arch, smp, root, part["tests"], timeout, words)
    fail = console.first_failure(lines)
    if fail:
        return fail.lines()
    if how == "killed":
        return [f"the grader stopped a run that outlived {timeout + 60} s"]
    out = "\n".join(lines)
    if status != 0:
        ends = [l for l in lines if l.startswith("run: ")]
        return [(ends or lines or ["no output"])[-1].strip()]
    if not re.search(r"^[1-9]\d* passed, 0 failed", out, re.M):
        return [f"no test matched {part['tests']}"]
    check = part.get("check")
    if check:
        problem = getattr(checks, check)(out, smp)
        if problem:
            return [problem]
    return []


def part_passed_in(part, out, smp):
    """Whether a passing boot's console out shows part passed at smp CPUs:
    a test of its glob reported ok (not skipped), and its check agrees."""
    globs = part["tests"].split(",")
    names = [m.group(1) for m in re.finditer(r"^ok \d+ (\S+)(?!.*# SKIP)", out, re.M)]
    if not any(fnmatch.fnmatchcase(n, g) for n in names for g in globs):
        return False
    check = part.get("check")
    return not (check and getattr(checks, check)(out, smp))


def shared_boots(lab, arch, parts, smps, root):
    """Boots once for each group of two or more parts graded at the same CPU
    count with the same command line (their tests together, one after the
    other, as make test runs them all).  Returns the (part id, CPU count)
    pairs that such a boot settled: it passed whole, and each part's own
    tests and check passed in it.  A group whose boot failed in any way is
    left to the parts' own boots, which say exactly why; a passing grade
    (a reference's, a finished lab's) needs about half the boots."""
    groups = {}
    for part in parts:
        for smp in part.get("smp", []):
            if not smps or smp in smps:
                key = (smp, tuple(part.get("cmdline", [])))
                groups.setdefault(key, []).append(part)
    settled = set()
    for (smp, words), members in groups.items():
        if len(members) < 2:
            continue
        timeout = sum(p.get("timeout", 120) for p in members) + SLACK_PER_CPU * smp
        tests = ",".join(p["tests"] for p in members)
        cmd = ["make", "--no-print-directory", "test", *make_vars(lab, arch), f"SMP={smp}",
               f"TESTS={tests}", f"TIMEOUT={timeout}", f"CMDLINE={' '.join(words)}"]
        status, lines, how = runner.boot(root, cmd, timeout + 60)
        out = "\n".join(lines)
        if status != 0 or how != "ended" or console.first_failure(lines):
            continue
        settled |= {(p["id"], smp) for p in members if part_passed_in(p, out, smp)}
    return settled


def grade_boot_part(lab, part, arch, root, smps, stop_at_failure, settled=frozenset()):
    res = PartResult(part)
    for smp, share in zip(part["smp"], shares(part["points"], len(part["smp"]))):
        if smps and smp not in smps:
            continue
        if stop_at_failure and any(c.problem for c in res.counts):
            res.counts.append(CountResult(smp, 0, share, skipped=True))
            continue
        if (part["id"], smp) in settled:
            res.counts.append(CountResult(smp, share, share))
            continue
        problem = grade_count(lab, part, arch, smp, root)
        res.counts.append(CountResult(smp, 0 if problem else share, share, problem))
    return res


def shared_problem(part, tests, lines, how):
    """The problem of part in a shared boot, from its own tests' lines."""
    globs = part["tests"].split(",")
    mine = {name: ls for name, ls in tests.items()
            if any(fnmatch.fnmatchcase(name, g) for g in globs)}
    for name in sorted(mine):
        fail = console.first_failure(mine[name])
        if fail:
            return fail.lines()
        if not any(console.RESULT_RE.match(l) for l in mine[name]):
            ends = [l for l in lines if l.startswith("run: ")]
            why = f"outlived the boot's {how} limit" if how == "killed" else \
                (ends or ["the run ended"])[-1].strip()
            return [f"{name} never reported: {why}"]
    if not mine:
        ends = [l.strip() for l in lines if l.startswith("run: ")]
        return [f"no test matched {part['tests']}"] + ends[-1:]
    return []


def grade_shared_boots(lab, parts, arch, root, smps):
    """{part id: PartResult} of boot parts that share one boot per CPU count
    (SHARED_BOOT): every part's tests in it, each part scored on its own."""
    results = {p["id"]: PartResult(p) for p in parts}
    for smp in sorted({n for p in parts for n in p["smp"]}):
        if smps and smp not in smps:
            continue
        here = [p for p in parts if smp in p["smp"]]
        timeout = sum(p.get("timeout", 120) for p in here) + SLACK_PER_CPU * smp
        words = " ".join(sorted({w for p in here for w in p.get("cmdline", [])}))
        _, lines, how = test_boot(lab, arch, smp, root, ",".join(p["tests"] for p in here),
                                  timeout, words, stop_at_failure=False)
        tests = console.by_test(lines)
        for p in here:
            share = shares(p["points"], len(p["smp"]))[p["smp"].index(smp)]
            problem = shared_problem(p, tests, lines, how)
            results[p["id"]].counts.append(CountResult(smp, 0 if problem else share, share,
                                                       problem))
    return results


# --------------------------------------------------------------------------
# Instruction parts
# --------------------------------------------------------------------------

def grade_disasm_part(lab, part, root, say):
    """Compiles each source the part names for its architecture (one object
    each, as the kernel's build does) and runs its check on the functions."""
    spec = part["disasm"]
    arch, funcs = spec["arch"], {}
    for source in sorted({src for src, _ in spec["functions"]}):
        obj = disasm.object_path(arch, source)
        # (a program's object needs the user newlib: user/user.mk's USER_NEWLIB)
        built = f"newlib-user-{arch}.ok" if source.startswith("user/") else f"newlib-{arch}/.built"
        if not os.path.exists(os.path.join(root, "build", built)):
            say(f"grade: part {part['id']} reads {arch} instructions: newlib for {arch} "
                "first (once a machine, unless its cache has it: minutes; README.md, "
                "'The first build')")
        status, out = runner.build(root, ["make", "--no-print-directory", f"ARCH={arch}", obj],
                                   say, 1)
        if status != 0:
            errs = [l for l in out if "error" in l.lower()] or out[-5:]
            return PartResult(part, problem=[f"{source} does not compile for {arch}:"] +
                              errs[:6])
        names = [f for src, f in spec["functions"] if src == source]
        try:
            funcs.update(disasm.functions(os.path.join(root, obj), arch, names))
        except disasm.Missing as e:
            return PartResult(part, problem=[str(e)])
    problem = getattr(disasm, part["check"])(funcs)
    return PartResult(part, problem=problem or [])


# --------------------------------------------------------------------------
# A whole grade
# --------------------------------------------------------------------------

def build_kernel(lab, arch, root, say):
    """Builds what the lab's boot parts need; None when it built, else the
    lines that say why not."""
    newlib = os.path.join(root, "build", f"newlib-{arch}", ".built")
    if not os.path.exists(newlib):
        say(f"grade: the first build: newlib for {arch} (once a machine, unless its cache has "
            "it: minutes), then the kernel "
            "(half a minute of CPU time); progress below (README.md, 'The first build', "
            "says how long it took on a 2-core host)")
    cmd = ["make", "--no-print-directory", "-j2", "all", *make_vars(lab, arch)]
    status, out = runner.build(root, cmd, say, runner.source_count(root, arch))
    if status == 0:
        return None
    errs = [l for l in out if re.search(r"\berror\b|Error \d", l)]
    return ["the kernel does not build:"] + (errs[:8] or out[-8:])


def grade(lab, arch, parts, smps=None, stop_at_failure=False, root=ROOT, say=print):
    """Grades parts (dicts of lab["PARTS"]); returns the PartResults."""
    results, failed = [], False
    boots = [p for p in parts if "smp" in p]
    broken = build_kernel(lab, arch, root, say) if boots else None
    if broken:
        say("grade: " + "\n  ".join(broken))
    shared = grade_shared_boots(lab, boots, arch, root, smps) \
        if lab.get("SHARED_BOOT") and boots and not broken else {}
    # (Not when stopping at the first failure: that grade expects one.)
    settled = set() if broken or stop_at_failure or shared else \
        shared_boots(lab, arch, boots, smps, root)
    for part in parts:
        if part["id"] in shared:
            res = shared[part["id"]]
        elif stop_at_failure and failed:
            res = PartResult(part, problem=["not run (--stop-at-first-failure)"])
        elif "disasm" in part:
            res = grade_disasm_part(lab, part, root, say)
        elif broken:
            res = PartResult(part, problem=["not built"])
        else:
            res = grade_boot_part(lab, part, arch, root, smps, stop_at_failure, settled)
        failed |= res.failed
        results.append(res)
        say(report_line(res))
    return results


def report_line(res):
    part = res.part
    verdict = "OK" if not res.failed else "FAIL" if res.points == 0 else "PARTIAL"
    lines = [f"  {part_label(part)}: {verdict}  [{res.points}/{res.possible}]"]
    lines += ["      " + l for l in res.message()]
    return "\n".join(lines)
