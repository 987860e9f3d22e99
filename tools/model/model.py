#!/usr/bin/env python3
"""make model: every model checked exhaustively by Spin (docs/model.md).

  1. tools/model/litmus/*.wmm  the ARMv8 encoding against the architecture's
                               answers on the classic litmus tests; any
                               disagreement stops here.
  2. tools/model/armv8/*.wmm   the kernel's access sequences on ARMv8: the
                               code as written must forbid the bad outcome,
                               and each barrier removed in turn must allow it.
  3. tools/model/*.pml         the grace-period machinery (sequentially
                               consistent): the correct model must verify,
                               each broken variant must be rejected.

For every run it prints the property, the states explored, memory and time;
for every violation found, the counterexample as numbered steps.  Exit 0 only
if every verdict is the expected one.

  tools/model/model.py [--only NAME] [--variant NAME] [--jobs N] [--no-trails]
"""

import argparse
import concurrent.futures
import glob
import os
import re
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import armv8  # noqa: E402
import trail  # noqa: E402


class Run:
    """One pan run: a model, a variant, one property."""

    def __init__(self, stage, model, variant, check, expect, src, why=""):
        self.stage = stage          # litmus | armv8 | pml
        self.model = model          # short name
        self.variant = variant
        self.check = check          # safety | ltl NAME | outcome
        self.expect = expect        # verify | reject
        self.src = src              # model file
        self.why = why
        self.defines = []
        self.removed = []           # .wmm: barrier ids removed
        self.cflags = []
        self.hashbits = 18
        self.depth = 100000
        # results
        self.verdict = None         # verified | rejected | error
        self.states = 0
        self.memory = 0.0
        self.secs = 0.0
        self.found = ""             # what pan found
        self.trail = []
        self.error = ""

    def ok(self):
        want = {"verify": "verified", "reject": "rejected"}[self.expect]
        return self.verdict == want


def sh(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)


def spin_errors(out):
    """Spin's complaints about a model (syntax, undeclared names...)."""
    return [s for s in out.splitlines()
            if re.search(r"\bError\b|syntax error|error:|cannot open", s, re.I)]


def execute(run, outdir):
    wd = os.path.join(outdir, run.model.replace("/", "_"), run.variant,
                      run.check.replace(" ", "_"))
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    t0 = time.time()
    meta = None
    if run.src.endswith(".wmm"):
        pml = os.path.join(wd, "model.pml")
        meta = os.path.join(wd, "model.json")
        try:
            armv8.generate(run.src, run.removed, pml, meta)
        except (armv8.WmmError, OSError) as e:
            run.verdict, run.error = "error", str(e)
            return run
    else:
        pml = os.path.abspath(run.src)
    p = sh(["spin", "-a"] + run.defines + [pml], wd)
    errs = spin_errors(p.stdout + p.stderr)
    if p.returncode != 0 or errs or not os.path.exists(os.path.join(wd, "pan.c")):
        run.verdict = "error"
        run.error = "spin cannot read the model:\n" + "\n".join(
            (errs or (p.stdout + p.stderr).splitlines())[:12])
        return run
    liveness = run.check.startswith("ltl ")
    cflags = ["-w", "-o", "pan"] + run.cflags
    cflags += [] if liveness else ["-DSAFETY", "-DNOCLAIM"]
    p = sh(["gcc"] + cflags + ["pan.c"], wd)
    if p.returncode != 0:
        run.verdict, run.error = "error", "gcc cannot build the verifier:\n" + p.stderr[-1500:]
        return run
    args = ["./pan", f"-m{run.depth}", f"-w{run.hashbits}"]
    if liveness:
        args += ["-a", "-f", "-N", run.check.split()[1]]
    p = sh(args, wd)
    out = p.stdout + p.stderr
    run.secs = time.time() - t0
    m = re.search(r"(\d+) states, stored", out)
    run.states = int(m.group(1)) if m else 0
    m = re.search(r"([\d.]+)\s+total actual memory usage", out)
    run.memory = float(m.group(1)) if m else 0.0
    m = re.search(r"errors: (\d+)", out)
    if not m:
        run.verdict, run.error = "error", "pan did not finish:\n" + out[-1500:]
        return run
    if "max search depth too small" in out:
        run.verdict, run.error = "error", f"search depth {run.depth} too small: the search was not exhaustive"
        return run
    if "out of memory" in out:
        run.verdict, run.error = "error", "pan ran out of memory"
        return run
    if int(m.group(1)) == 0:
        run.verdict = "verified"
        return run
    run.verdict = "rejected"
    for pat, what in (("assertion violated", "assertion violated"),
                      ("invalid end state", "invalid end state (a deadlock: every process blocked)"),
                      ("acceptance cycle", "acceptance cycle (the property never comes true)"),
                      ("non-progress cycle", "non-progress cycle")):
        if pat in out:
            run.found = what
            break
    trails = glob.glob(os.path.join(wd, "*.trail"))
    if trails:
        lines = trail.replay(wd, pml, trails[0])
        run.trail = trail.render_wmm(lines, meta) if meta else trail.render_pml(lines)
    if run.found.startswith("invalid end state") and meta:
        # A generated model never deadlocks unless the encoding is broken.
        run.verdict, run.error = "error", "the generated model deadlocked (an encoding bug)"
    return run


# ---- what to run -------------------------------------------------------------

def litmus_runs():
    runs = []
    for path in sorted(glob.glob(os.path.join(HERE, "litmus", "*.wmm"))):
        name = os.path.basename(path)[:-4]
        try:
            m = armv8.parse(path)
        except armv8.WmmError as e:
            r = Run("litmus", name, "base", "outcome", "verify", path)
            r.verdict, r.error = "error", str(e)
            runs.append(r)
            continue
        expect = "verify" if m.expect == "forbidden" else "reject"
        runs.append(Run("litmus", name, "base", "outcome", expect, path, m.expect))
    return runs


def wmm_runs():
    runs = []
    for path in sorted(glob.glob(os.path.join(HERE, "armv8", "*.wmm"))):
        name = "armv8/" + os.path.basename(path)[:-4]
        try:
            m = armv8.parse(path)
        except armv8.WmmError as e:
            r = Run("armv8", name, "base", "outcome", "verify", path)
            r.verdict, r.error = "error", str(e)
            runs.append(r)
            continue
        for vname, removed, expect, why in armv8.variants(m):
            r = Run("armv8", name, vname, "outcome",
                    "verify" if expect == "forbidden" else "reject", path, why)
            r.removed = removed
            runs.append(r)
    return runs


def pml_header(path):
    """The @-lines of a .pml file's first comment: title, checks, variants."""
    h = {"title": "", "checks": [], "variants": [], "cflags": [], "hashbits": 22,
         "depth": 1000000}
    with open(path) as f:
        text = f.read()
    for n, line in enumerate(text.splitlines(), 1):
        s = line.strip().lstrip("*").strip()
        if not s.startswith("@"):
            continue
        key, _, rest = s[1:].partition(" ")
        rest = rest.strip()
        if key == "title":
            h["title"] = rest
        elif key == "check":
            h["checks"].append(rest)
        elif key == "cflags":
            h["cflags"] = rest.split()
        elif key == "hashbits":
            h["hashbits"] = int(rest)
        elif key == "depth":
            h["depth"] = int(rest)
        elif key == "variant":
            m = re.fullmatch(r'(\w+)((?:\s+-D\w+(?:=\w+)?)*)\s*:\s*(verify|reject)\s*'
                             r'((?:safety|ltl \w+))?\s*(?:"(.*)")?', rest)
            if not m:
                raise ValueError(f"{path}:{n}: @variant wants: NAME [-DX...]: verify | "
                                 f'reject CHECK "why"')
            h["variants"].append((m.group(1), m.group(2).split(), m.group(3),
                                  m.group(4), m.group(5) or ""))
        else:
            raise ValueError(f"{path}:{n}: unknown @{key}")
    return h


def pml_runs():
    runs = []
    for path in sorted(glob.glob(os.path.join(HERE, "*.pml"))):
        name = os.path.basename(path)[:-4]
        try:
            h = pml_header(path)
        except (ValueError, OSError) as e:
            r = Run("pml", name, "base", "safety", "verify", path)
            r.verdict, r.error = "error", str(e)
            runs.append(r)
            continue
        for vname, defines, verdict, check, why in h["variants"]:
            checks = h["checks"] if verdict == "verify" else [check]
            for c in checks:
                if c not in h["checks"]:
                    r = Run("pml", name, vname, c or "?", verdict, path)
                    r.verdict, r.error = "error", f"@variant {vname}: no '@check {c}'"
                    runs.append(r)
                    continue
                r = Run("pml", name, vname, c, verdict, path, why)
                r.defines = defines
                r.cflags = h["cflags"] + (["-O2"] if True else [])
                r.hashbits = h["hashbits"]
                r.depth = h["depth"]
                runs.append(r)
    return runs


# ---- report -------------------------------------------------------------------

def line(r):
    verdict = r.verdict if r.ok() else f"{r.verdict.upper()} (expected {r.expect})"
    if r.verdict == "error":
        verdict = "ERROR"
    return (f"  {r.model:<24} {r.variant:<28} {r.check:<12} {verdict:<10} "
            f"{r.states:>10} st {r.memory:>7.1f} MB {r.secs:>6.1f} s")


def report(r, trails):
    print(line(r), flush=False)
    if r.why and r.expect == "reject" and r.stage != "litmus":
        print(f"      why: {r.why}")
    if r.verdict == "error":
        print("      " + r.error.replace("\n", "\n      "))
        return
    if r.verdict == "rejected" and (trails or not r.ok()):
        print(f"      Spin found: {r.found}; the counterexample:")
        for s in r.trail:
            print("    " + s)
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="run only models whose name contains this")
    ap.add_argument("--variant", default="", help="run only this variant")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("MODEL_JOBS", "2")))
    ap.add_argument("--no-trails", action="store_true",
                    help="print counterexamples only for unexpected verdicts")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "model"))
    a = ap.parse_args()

    missing = [t for t in ("spin", "gcc") if not shutil.which(t)]
    if missing:
        print(f"model: {' and '.join(missing)} not found: install Debian's "
              f"{' '.join(missing)} (bash tools/deps.sh model)", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    t0 = time.time()
    bad = []
    total = 0
    stages = [("litmus", "the ARMv8 encoding on the classic litmus tests "
               "(verified = the outcome is forbidden, rejected = allowed)", litmus_runs),
              ("armv8", "the kernel's access sequences on ARMv8 "
               "(each barrier removed in turn must be rejected)", wmm_runs),
              ("pml", "the grace-period machinery, every interleaving "
               "(broken variants must be rejected)", pml_runs)]
    for stage, title, make in stages:
        runs = [r for r in make() if a.only in r.model and (not a.variant or r.variant == a.variant)]
        if not runs:
            continue
        print(f"== {stage}: {title}")
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            for r in ex.map(lambda r: r if r.verdict == "error" else execute(r, a.out), runs):
                total += 1
                report(r, not a.no_trails and stage != "litmus")
                if not r.ok():
                    bad.append(r)
        if stage == "litmus" and bad:
            print("model: the ARMv8 encoding disagrees with the architecture on: "
                  + ", ".join(r.model for r in bad))
            print("model: FAILED (fix tools/model/armv8.py before trusting any ARMv8 model)")
            return 1
    secs = time.time() - t0
    if bad:
        print(f"model: FAILED: {len(bad)} of {total} runs not as expected ({secs:.0f} s):")
        for r in bad:
            print("   " + line(r).strip())
        return 1
    print(f"model: all {total} runs as expected ({secs:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
