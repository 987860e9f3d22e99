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
import errno
import glob
import hashlib
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
        self.depth = 10000
        # results
        self.verdict = None         # verified | rejected | error
        self.states = 0
        self.memory = 0.0
        self.secs = 0.0
        self.found = ""             # what pan found
        self.trail = []
        self.error = ""
        self.batch = ""             # .wmm: verified as part of this batch

    def ok(self):
        want = {"verify": "verified", "reject": "rejected"}[self.expect]
        return self.verdict == want


def sh(cmd, cwd):
    """Runs cmd in cwd.  Jobs run in threads, and a thread's fork may copy
    the descriptor another thread is writing its pan through, which stays
    open in that child until the child's exec: executing that pan then
    fails with ETXTBSY ("Text file busy").  Wait for the exec, try again."""
    for attempt in range(50):
        try:
            return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
        except OSError as e:
            if e.errno != errno.ETXTBSY or attempt == 49:
                raise
            time.sleep(0.1)


def spin_errors(out):
    """Spin's complaints about a model (syntax, undeclared names...)."""
    return [s for s in out.splitlines()
            if re.search(r"\bError\b|syntax error|error:|cannot open", s, re.I)]


# Compiled verifiers, kept outside the tree so that every clone (a CI
# run's fresh one included) shares them: MODEL_CACHE_DIR, else
# $XDG_CACHE_HOME/quiescent/model, else ~/.cache/quiescent/model.
CACHE = os.environ.get("MODEL_CACHE_DIR") or os.path.join(
    os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "quiescent", "model")
# Entries unused for this long are removed at the end of a run.
CACHE_KEEP_DAYS = 30


def gcc_version():
    """gcc's own first line of --version: part of a verifier's key."""
    if not hasattr(gcc_version, "line"):
        p = subprocess.run(["gcc", "--version"], capture_output=True, text=True)
        gcc_version.line = (p.stdout.splitlines() or [""])[0]
    return gcc_version.line


def build_pan(cflags, wd):
    """gcc pan.c, or the verifier built before from the same pan.* files,
    flags and gcc (CACHE): compiling pan.c is most of a small model's
    cost, and most models do not change between two runs."""
    h = hashlib.sha256((gcc_version() + "\n" + " ".join(cflags)).encode())
    for name in sorted(glob.glob(os.path.join(wd, "pan.*"))):
        with open(name, "rb") as f:
            h.update(os.path.basename(name).encode() + f.read())
    cached = os.path.join(CACHE, h.hexdigest()[:24])
    if os.path.exists(cached):
        shutil.copy(cached, os.path.join(wd, "pan"))
        os.utime(cached)		# its time says when it was last used
        return subprocess.CompletedProcess([], 0, "", "")
    p = sh(["gcc"] + cflags + ["pan.c"], wd)
    if p.returncode == 0:
        os.makedirs(CACHE, exist_ok=True)
        tmp = f"{cached}.tmp.{os.getpid()}"
        shutil.copy(os.path.join(wd, "pan"), tmp)
        os.replace(tmp, cached)
    return p


def prune_cache():
    """Removes the verifiers no run has used for CACHE_KEEP_DAYS."""
    old = time.time() - CACHE_KEEP_DAYS * 86400
    for name in glob.glob(os.path.join(CACHE, "*")):
        try:
            if os.path.getmtime(name) < old:
                os.remove(name)
        except OSError:
            pass		# another run's, or gone already


def execute(job, outdir):
    """Runs a job: runs of one model and variant that share one verifier
    (the safety check, or the liveness checks, which differ only in the
    claim pan picks).  Returns the runs with their results."""
    run0 = job[0]
    liveness = run0.check.startswith("ltl ")
    wd = os.path.join(outdir, run0.model.replace("/", "_"), run0.variant,
                      "liveness" if liveness else "safety")
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    t0 = time.time()

    def fail(msg):
        for r in job:
            r.verdict, r.error, r.secs = "error", msg, time.time() - t0
        return job

    meta = None
    if run0.src.endswith(".wmm"):
        pml = os.path.join(wd, "model.pml")
        meta = os.path.join(wd, "model.json")
        try:
            armv8.generate(run0.src, run0.removed, pml, meta)
        except (armv8.WmmError, OSError) as e:
            return fail(str(e))
    else:
        pml = os.path.abspath(run0.src)
    p = sh(["spin", "-a"] + run0.defines + [pml], wd)
    errs = spin_errors(p.stdout + p.stderr)
    if p.returncode != 0 or errs or not os.path.exists(os.path.join(wd, "pan.c")):
        return fail("spin cannot read the model:\n" + "\n".join(
            (errs or (p.stdout + p.stderr).splitlines())[:12]))
    cflags = ["-O0", "-w", "-o", "pan"] + run0.cflags
    cflags += ["-DNFAIR=4"] if liveness else ["-DSAFETY", "-DNOCLAIM"]
    p = build_pan(cflags, wd)
    if p.returncode != 0:
        return fail("gcc cannot build the verifier:\n" + p.stderr[-1500:])
    for run in job:
        t1 = time.time()
        check(run, wd, pml, meta, liveness)
        run.secs = time.time() - t1 + (t1 - t0 if run is run0 else 0)
    return job


def check(run, wd, pml, meta, liveness):
    for old in glob.glob(os.path.join(wd, "*.trail")):
        os.remove(old)
    args = ["./pan", f"-m{run.depth}", f"-w{run.hashbits}"]
    if liveness:
        args += ["-a", "-f", "-N", run.check.split()[1]]
    p = sh(args, wd)
    out = p.stdout + p.stderr
    with open(os.path.join(wd, run.check.replace(" ", "_") + ".out"), "w") as f:
        f.write(out)
    m = re.search(r"(\d+) states, stored", out)
    run.states = int(m.group(1)) if m else 0
    m = re.search(r"([\d.]+)\s+total actual memory usage", out)
    run.memory = float(m.group(1)) if m else 0.0
    m = re.search(r"errors: (\d+)", out)
    if not m:
        run.verdict, run.error = "error", "pan did not finish:\n" + out[-1500:]
        return
    if "max search depth too small" in out:
        run.verdict = "error"
        run.error = f"search depth {run.depth} too small: the search was not exhaustive"
        return
    if "out of memory" in out:
        run.verdict, run.error = "error", "pan ran out of memory"
        return
    if int(m.group(1)) == 0:
        run.verdict = "verified"
        return
    run.verdict = "rejected"
    for pat, what in (("assertion violated", "assertion violated"),
                      ("invalid end state", "invalid end state (a deadlock: every process blocked)"),
                      ("acceptance cycle", "acceptance cycle (the property never comes true)"),
                      ("non-progress cycle", "non-progress cycle")):
        if re.search(r"pan:\d+: " + pat, out):
            run.found = what
            break
    trails = glob.glob(os.path.join(wd, "*.trail"))
    if trails:
        lines = trail.replay(wd, pml, trails[0], run.defines)
        run.trail = trail.render_wmm(lines, meta) if meta else trail.render_pml(lines)
    if run.found.startswith("invalid end state") and meta:
        # A generated model never deadlocks unless the encoding is broken.
        run.verdict, run.error = "error", "the generated model deadlocked (an encoding bug)"


def execute_batch(runs, outdir, name="litmus"):
    """Runs of .wmm files as one verifier: pan -c0 goes on after each
    violation and names every test whose outcome it reached.  The litmus
    tests are one batch; each kernel model's variants are another.
    Returns (runs, summary): the summary holds the batch's states, memory
    and time."""
    wd = os.path.join(outdir, name.replace("/", "_"), "batch")
    shutil.rmtree(wd, ignore_errors=True)
    os.makedirs(wd)
    t0 = time.time()
    good = [r for r in runs if r.verdict != "error"]
    summary = Run("batch", name, "batch", "outcome", "verify", "")
    summary.verdict = "error"
    try:
        text, _ = armv8.emit_batch([(armv8.parse(r.src), r.removed) for r in good])
    except armv8.WmmError as e:
        for r in good:
            r.verdict, r.error = "error", str(e)
        return runs, summary
    pml = os.path.join(wd, "batch.pml")
    with open(pml, "w") as f:
        f.write(text)
    p = sh(["spin", "-a", pml], wd)
    errs = spin_errors(p.stdout + p.stderr)
    if p.returncode == 0 and not errs:
        p = build_pan(["-O0", "-w", "-o", "pan", "-DSAFETY"], wd)
    if p.returncode != 0 or errs:
        for r in good:
            r.verdict, r.error = "error", "cannot build the verifier:\n" + "\n".join(
                (errs or (p.stdout + p.stderr).splitlines())[:12])
        return runs, summary
    p = sh(["./pan", "-c0", "-m100000", "-w20"], wd)
    out = p.stdout + p.stderr
    with open(os.path.join(wd, "pan.out"), "w") as f:
        f.write(out)
    secs = time.time() - t0
    reached = {int(k) for k in re.findall(r"assertion violated\s+!\(+test==(\d+)\)", out)}
    done = re.search(r"errors: (\d+)", out)
    m = re.search(r"(\d+) states, stored", out)
    mem = re.search(r"([\d.]+)\s+total actual memory usage", out)
    for k, r in enumerate(good, 1):
        r.batch = name
        if not done or re.search(r"pan:\d+: invalid end state", out):
            r.verdict, r.error = "error", "pan did not finish cleanly:\n" + out[-1500:]
            continue
        if "max search depth too small" in out:
            r.verdict, r.error = "error", "search depth too small: the search was not exhaustive"
            continue
        r.verdict = "rejected" if k in reached else "verified"
    summary.states = int(m.group(1)) if m else 0
    summary.memory = float(mem.group(1)) if mem else 0.0
    summary.secs = secs
    summary.verdict = "verified" if done else "error"
    return runs, summary


def jobs_of(runs):
    """Groups runs that share a verifier (same model, variant and mode)."""
    jobs, index = [], {}
    for r in runs:
        key = (r.src, r.variant, r.check.startswith("ltl "))
        if r.verdict == "error" or key not in index:
            index[key] = len(jobs)
            jobs.append([r])
        else:
            jobs[index[key]].append(r)
    return jobs


# ---- what to run -------------------------------------------------------------

def parse_wmm(kind, name, path, runs):
    """A .wmm file's model, or None after adding the Run that reports why
    it does not parse."""
    try:
        return armv8.parse(path)
    except armv8.WmmError as e:
        r = Run(kind, name, "base", "outcome", "verify", path)
        r.verdict, r.error = "error", str(e)
        runs.append(r)
        return None


def litmus_runs(base):
    runs = []
    for path in sorted(glob.glob(os.path.join(base, "litmus", "*.wmm"))):
        name = os.path.basename(path)[:-4]
        m = parse_wmm("litmus", name, path, runs)
        if m is None:
            continue
        expect = "verify" if m.expect == "forbidden" else "reject"
        runs.append(Run("litmus", name, "base", "outcome", expect, path, m.expect))
    return runs


def wmm_runs(base):
    runs = []
    for path in sorted(glob.glob(os.path.join(base, "armv8", "*.wmm"))):
        name = "armv8/" + os.path.basename(path)[:-4]
        m = parse_wmm("armv8", name, path, runs)
        if m is None:
            continue
        for vname, removed, expect, why in armv8.variants(m):
            r = Run("armv8", name, vname, "outcome",
                    "verify" if expect == "forbidden" else "reject", path, why)
            r.removed = removed
            runs.append(r)
    return runs


def pml_header(path):
    """The @-lines of a .pml file's first comment: title, checks, variants."""
    h = {"title": "", "checks": [], "variants": [], "cflags": [], "hashbits": 18,
         "full_hashbits": None, "depth": 10000}
    with open(path) as f:
        text = f.read()
    for n, line in enumerate(text.splitlines(), 1):
        s = re.sub(r"^/?\*+\s*", "", line.strip())
        if s.endswith("*/"):
            s = s[:-2].strip()
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
            if any(f.startswith(("-DBITSTATE", "-DHC")) for f in h["cflags"]):
                raise ValueError(f"{path}:{n}: @cflags {rest}: make model runs only full "
                                 f"state-space searches (no bitstate or hash-compact search: "
                                 f"it could miss states and still say verified)")
        elif key == "hashbits":
            h["hashbits"] = int(rest)
        elif key == "full-hashbits":
            h["full_hashbits"] = int(rest)
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


def pml_runs(base, full=False):
    runs = []
    for path in sorted(glob.glob(os.path.join(base, "*.pml"))):
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
                r.defines = defines + (["-DFULL"] if full else [])
                r.cflags = h["cflags"]
                r.hashbits = (h["full_hashbits"] or h["hashbits"]) if full else h["hashbits"]
                r.depth = h["depth"]
                runs.append(r)
    return runs


# A batch's verifier holds every one of its tests' variables in each
# state, and pan numbers proctypes in a byte: a few files per batch.
BATCH_FILES = int(os.environ.get("MODEL_BATCH_FILES", "4"))
BATCH_PROCTYPES = 200


def chunks_of(groups):
    """Splits the .wmm files into batches of at most BATCH_FILES files and
    BATCH_PROCTYPES proctypes: one verifier per batch (pan.c's compilation
    is most of a small model's cost, so fewer is faster)."""
    out, procs = [], 0
    for rs in groups:
        try:
            n = len(rs) * (len(armv8.parse(rs[0].src).threads) + 1)
        except armv8.WmmError:
            n = 0
        if not out or len({r.model for r in out[-1]}) >= BATCH_FILES or procs + n > BATCH_PROCTYPES:
            out.append([])
            procs = 0
        out[-1].extend(rs)
        procs += n
    return out


def run_armv8(runs, a, want_trails):
    """Every .wmm file's variants in a few verifiers (in parallel); then,
    for the runs whose counterexample is to be printed (an unexpected
    verdict, or every rejection with want_trails), a verifier of its own
    that writes the trail.  Prints per file; returns the runs."""
    groups = {}
    for r in runs:
        groups.setdefault(r.model, []).append(r)
    chunks = chunks_of(list(groups.values()))
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
        batches = list(ex.map(lambda ck: execute_batch(ck[1], a.out, f"armv8_batch{ck[0]}"),
                              enumerate(chunks, 1)))
        again = [r for r in runs if r.verdict == "rejected" and (want_trails or not r.ok())]
        again += [r for r in runs if r.verdict == "verified" and not r.ok()]
        seen = {id(r): r.verdict for r in again}
        for job in ex.map(lambda r: execute([r], a.out), again):
            r = job[0]
            if r.verdict != seen[id(r)] and r.verdict != "error":
                r.verdict, r.error = "error", (f"the batch said {seen[id(r)]}, a verifier "
                                               f"of its own says {r.verdict}")
    for name in sorted(groups):
        for r in groups[name]:
            report(r, want_trails)
    for k, (rs, summary) in enumerate(batches, 1):
        files = len({r.model for r in rs})
        what = f"(batch {k}: {len(rs)} runs of {files} files, one verifier)"
        print(f"  {what:<66} {summary.states:>10} st {summary.memory:>7.1f} MB "
              f"{summary.secs:>6.1f} s")
    return runs


# ---- report -------------------------------------------------------------------

def line(r, brief=False):
    verdict = r.verdict if r.ok() else f"{r.verdict.upper()} (expected {r.expect})"
    if r.verdict == "error":
        verdict = "ERROR"
    if brief:
        arch = "ARMv8 forbids it" if r.expect == "verify" else "ARMv8 allows it"
        model = "forbidden" if r.verdict == "verified" else "reached"
        ok = "agrees" if r.ok() else "DISAGREES"
        return f"  {r.model:<24} {arch:<18} model: {model:<10} {ok}"
    if r.batch and not r.states:
        return f"  {r.model:<24} {r.variant:<28} {r.check:<12} {verdict:<10} (in a batch below)"
    return (f"  {r.model:<24} {r.variant:<28} {r.check:<12} {verdict:<10} "
            f"{r.states:>10} st {r.memory:>7.1f} MB {r.secs:>6.1f} s")


def report(r, trails, brief=False):
    print(line(r, brief), flush=False)
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
    ap.add_argument("--trails", action="store_true",
                    help="also print the counterexample of every expected rejection of an ARMv8 "
                         "model (each costs a verifier of its own; the default when --only or "
                         "--variant is given)")
    ap.add_argument("--full", action="store_true",
                    help="the larger bounds of the .pml models (-DFULL; make model FULL=1)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "model"))
    ap.add_argument("--models", default=HERE, help="where the models are (tools/model)")
    a = ap.parse_args()

    missing = [t for t in ("spin", "gcc") if not shutil.which(t)]
    if missing:
        print(f"model: {' and '.join(missing)} not found: install Debian's "
              f"{' '.join(missing)} (bash tools/deps.sh model)", file=sys.stderr)
        return 2
    os.makedirs(a.out, exist_ok=True)
    a.out = os.path.abspath(a.out)
    t0 = time.time()
    bad = []
    total = 0
    want_trails = not a.no_trails and (a.trails or bool(a.only) or bool(a.variant))
    stages = [("litmus", "the ARMv8 encoding on the classic litmus tests: does the model "
               "reach each outcome exactly when the architecture allows it?", litmus_runs),
              ("armv8", "the kernel's access sequences on ARMv8 "
               "(each barrier removed in turn must be rejected)", wmm_runs),
              ("pml", "the grace-period machinery, every interleaving "
               "(broken variants must be rejected)",
               lambda base: pml_runs(base, a.full))]
    for stage, title, make in stages:
        runs = [r for r in make(a.models) if a.only in r.model and (not a.variant or r.variant == a.variant)]
        if not runs:
            continue
        print(f"== {stage}: {title}")
        if stage == "litmus":
            runs, summary = execute_batch(runs, a.out)
            for r in runs:
                total += 1
                report(r, False, brief=True)
                if not r.ok():
                    bad.append(r)
            print(f"  {'(one verifier for all)':<53} {'':<12} {'':<10} "
                  f"{summary.states:>10} st {summary.memory:>7.1f} MB {summary.secs:>6.1f} s")
            if bad:
                print("model: the ARMv8 encoding disagrees with the architecture on: "
                      + ", ".join(r.model for r in bad))
                print("model: FAILED (fix tools/model/armv8.py before trusting any ARMv8 model)")
                return 1
            continue
        if stage == "armv8":
            for r in run_armv8(runs, a, want_trails):
                total += 1
                if not r.ok():
                    bad.append(r)
            continue
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.jobs)) as ex:
            done = ex.map(lambda j: j if j[0].verdict == "error" else execute(j, a.out),
                          jobs_of(runs))
            for job in done:
                for r in job:
                    total += 1
                    report(r, not a.no_trails)
                    if not r.ok():
                        bad.append(r)
    secs = time.time() - t0
    prune_cache()
    if total == 0:
        print("model: FAILED: no model matches" + (f" '{a.only}'" if a.only else "")
              + (f" with variant '{a.variant}'" if a.variant else ""))
        return 1
    if bad:
        print(f"model: FAILED: {len(bad)} of {total} runs not as expected ({secs:.0f} s):")
        for r in bad:
            print("   " + line(r).strip())
        return 1
    print(f"model: all {total} runs as expected ({secs:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
