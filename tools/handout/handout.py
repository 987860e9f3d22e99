#!/usr/bin/env python3
"""Student repositories: make handout LAB=NAME (docs/labs/INSTRUCTOR.md).

    tools/handout/handout.py build NAME [--out DIR]   the student repository of lab NAME
    tools/handout/handout.py check NAME DIR           no reference of NAME's functions in DIR
    tools/handout/handout.py solve NAME DIR           put the reference bodies into a
                                                      handout and commit them (CI: it
                                                      must then grade full marks)

build exports this repository's last commit (never uncommitted changes)
into DIR (default build/handout/NAME), gives the lab's functions their
starter bodies, leaves out the instructor's files and what narrates the
lab's answer (tools/handout/redact.py), writes .lab (base: the
repository's first commit), and makes DIR a git repository of one commit.
Then it runs check, and fails if check finds anything.

check looks for the reference in DIR, in every file and in its whole git
history: each line of the lab's reference bodies, code and comments,
that the rest of the kernel does not also contain (so not
`spin_unlock(&rcu_state.lock);`), that the lab's starters and its
handout do not give, and that is long enough to mean something.  A line
found anywhere (a doc quoting the code, the barrier table quoting a
comment, a patch of a wrong solution) fails the check, with file and line.
"""
import argparse
import bisect
import io
import os
import re
import shutil
import subprocess
import sys
import tarfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tools", "labs"))
import labs  # noqa: E402
import cswap  # noqa: E402
import redact  # noqa: E402

IDENTITY = ["-c", "user.name=Quiescent handout", "-c", "user.email=handout@localhost",
            "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]
MIN_FINGERPRINT = 20		# shorter lines say too little to be the reference's
CODE_DIRS = ("kernel", "arch", "lib", "boot", "tests", "user")
# Where barriers are tagged (tools/barriers.py scans these): the code, the user runtime too.
TAGGED_DIRS = CODE_DIRS
CODE_EXT = (".c", ".h", ".S")
TABLE_BEGIN = "<!-- barrier table:"
TABLE_END = "<!-- end of barrier table -->"


class Failed(Exception):
    pass


def git(cwd, *args, stdin=None):
    r = subprocess.run(["git", *args], cwd=cwd, input=stdin, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if r.returncode != 0:
        raise Failed(f"git {' '.join(args)}: {r.stderr.decode().strip()}")
    return r.stdout


_HEAD = {}


def head_files():
    """{path: text} of every file of the last commit (one git archive)."""
    if not _HEAD:
        data = git(ROOT, "archive", "--format=tar", "HEAD")
        with tarfile.open(fileobj=io.BytesIO(data)) as t:
            for m in t.getmembers():
                if m.isfile():
                    _HEAD[m.name] = t.extractfile(m).read().decode("utf-8", "replace")
    return _HEAD


def head_text(path):
    try:
        return head_files()[path]
    except KeyError:
        raise OSError(f"{path}: not in HEAD") from None


# --------------------------------------------------------------------------
# The reference and its fingerprints
# --------------------------------------------------------------------------

def normalize(line):
    """A line as the check compares it: comment markers, line continuations
    and runs of blanks gone."""
    line = line.strip().rstrip("\\").strip()
    line = re.sub(r"^(/\*+|\*+/?|//+)\s*", "", line)
    line = re.sub(r"\s*\*+/\s*$", "", line)
    return " ".join(line.split())


def reference_bodies(lab):
    """[(path, name, body text)] of the lab's functions at HEAD."""
    out = []
    for path, fname, _ in lab["FUNCTIONS"]:
        text = head_text(path)
        start, end, _ = cswap.body_span(text, fname)
        out.append((path, fname, text[start:end]))
    return out


def code_files(root, dirs=CODE_DIRS):
    for top in dirs:
        for d, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(CODE_EXT):
                    yield os.path.join(d, f)


def fingerprints(lab):
    """{normalized line: (path, function)} of the lines only the lab's
    reference bodies hold."""
    bodies = reference_bodies(lab)
    given = []
    # The kernel around the lab's functions: HEAD with the starters in place.
    starters = labs.swapped(lab, read=head_text)
    for rel in sorted(head_files()):
        if rel.startswith(tuple(d + "/" for d in CODE_DIRS)) and rel.endswith(CODE_EXT):
            text = starters[rel] if rel in starters else head_text(rel)
            given += [normalize(l) for l in text.splitlines()]
    # What the lab gives by design: its starters (above) and its handout.
    given += [normalize(l) for l in head_text(f"docs/labs/{lab['NAME']}.md").splitlines()]
    given = "\n".join(given)
    prints, short = {}, []
    for path, fname, body in bodies:
        mine = {normalize(l) for l in body.splitlines()}
        mine = {n for n in mine if len(n) >= MIN_FINGERPRINT and n not in given}
        for n in mine:
            prints.setdefault(n, (path, fname))
        if not mine:
            short.append((path, fname, body))
    return prints, short


def narrations(short):
    """{regex: (path, function)}: for a body too short to leave a line of
    its own (preempt_disable();), a sentence that names the function and
    then what its body calls."""
    out = {}
    for path, fname, body in short:
        code = cswap.blank_comments_and_strings(body)
        for callee in sorted(set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code))):
            if callee in ("panic", "trace_record", "if", "while", "for", "sizeof"):
                continue
            rx = re.compile(r"\b" + re.escape(fname) + r"\b[^\n]{0,160}?\b" +
                            re.escape(callee) + r"\b")
            out[rx] = (path, fname)
    return out


def text_files(root):
    """(relative path, text) of every file under root but .git, as text."""
    for d, dirs, files in os.walk(root):
        dirs[:] = [x for x in dirs if x != ".git"]
        for f in files:
            p = os.path.join(d, f)
            if os.path.islink(p):
                continue
            with open(p, "rb") as fh:
                data = fh.read()
            if b"\0" in data[:4096]:
                continue
            yield os.path.relpath(p, root), data.decode("utf-8", "replace")


def find_prints(prints, files):
    """[(file, line number, fingerprint, (path, function))] found."""
    found = []
    if not prints:
        return found
    pattern = re.compile("|".join(re.escape(fp) for fp in sorted(prints, key=len, reverse=True)))
    for rel, text in files:
        flat = [normalize(l) for l in text.splitlines()]
        starts, pos = [], 0
        for n in flat:
            starts.append(pos)
            pos += len(n) + 1
        for m in pattern.finditer(" ".join(flat)):
            line = bisect.bisect_right(starts, m.start())
            found.append((rel, line, m.group(0), prints[m.group(0)]))
    return found


def cmd_check(name, out):
    lab = labs.load_def(name)
    prints, short = fingerprints(lab)
    files = list(text_files(out))
    found = find_prints(prints, files)
    # Prose that narrates a short body: outside the code and the lab's handout.
    own = f"docs/labs/{name}.md"
    for rx, where in narrations(short).items():
        for rel, text in files:
            if rel == own or (rel.startswith(CODE_DIRS) and rel.endswith(CODE_EXT)):
                continue
            for para in re.split(r"\n\s*\n", text):
                m = rx.search(" ".join(para.split()))
                if m:
                    line = text[:text.find(para)].count("\n") + 1
                    found.append((rel, line, m.group(0), where))
    # The history: one commit, whose tree is what was just searched.
    if os.path.isdir(os.path.join(out, ".git")):
        commits = git(out, "rev-list", "--all").decode().split()
        if len(commits) != 1:
            found.append((".git", 0, f"{len(commits)} commits in the history, not 1", ("", "")))
        dirty = git(out, "status", "--porcelain").decode().strip()
        if dirty:
            found.append((".git", 0, "the tree differs from the commit:\n" + dirty, ("", "")))
    for rel, line, fp, (path, fname) in found:
        print(f"handout check: {rel}:{line}: {fp!r}" +
              (f" (from {fname}() in {path})" if fname else ""))
    if found:
        raise Failed(f"handout check: lab {name}: the reference is in {out} "
                     f"({len(found)} finding(s) above)")
    print(f"handout check: lab {name}: none of the reference's {len(prints)} distinctive "
          f"lines" + (f" nor a sentence naming {', '.join(f + '()' for _, f, _ in short)} "
                      f"and what it calls" if short else "") +
          f" is in {out} or its history (1 commit)")
    return 0


# --------------------------------------------------------------------------
# Building a handout
# --------------------------------------------------------------------------

def export_head(out):
    data = git(ROOT, "archive", "--format=tar", "HEAD")
    with tarfile.open(fileobj=io.BytesIO(data)) as t:
        t.extractall(out)


def remove(out, rel):
    p = os.path.join(out, rel)
    if os.path.isdir(p):
        shutil.rmtree(p)
    elif os.path.exists(p):
        os.remove(p)


def read(out, rel):
    with open(os.path.join(out, rel)) as f:
        return f.read()


def write(out, rel, text):
    with open(os.path.join(out, rel), "w") as f:
        f.write(text)


def redact_passage(out, name, doc, first, after, note=None):
    """Replace one passage of doc (tools/handout/redact.py) by its note."""
    lines = read(out, doc).split("\n")
    where = f"(tools/handout/redact.py, lab {name})"
    starts = [i for i, l in enumerate(lines) if l.startswith(first)]
    if len(starts) != 1:
        raise Failed(f"handout: {doc}: {len(starts)} lines start with {first!r} "
                     f"{where}: fix the passage")
    s = starts[0]
    if after == redact.PARAGRAPH:
        ends = [i for i in range(s + 1, len(lines)) if not lines[i].strip()] or [len(lines)]
    elif after is None:
        ends = [len(lines)]
    else:
        ends = [i for i in range(s + 1, len(lines)) if lines[i].startswith(after)]
    if not ends:
        raise Failed(f"handout: {doc}: no line starts with {after!r} after {first!r} {where}")
    note = (note or redact.NOTE).format(lab=name)
    keep = [lines[s], ""] if lines[s].startswith("#") and not note.startswith("#") else []
    lines[s:ends[0]] = keep + [note] + ([] if after == redact.PARAGRAPH else [""])
    write(out, doc, "\n".join(lines))


def redact_passages(out, name):
    for doc, first, after, *note in redact.EVERY_LAB + redact.PASSAGES.get(name, []):
        redact_passage(out, name, doc, first, after, *note)


def redact_lab_handouts(out, name, every_lab):
    """Each lab's handout (docs/labs/NAME.md): its passages of EVERY_HANDOUT
    redacted; above those of the other labs, a note saying whose
    repository this is."""
    for other in every_lab:
        doc = f"docs/labs/{other}.md"
        for first, after, note in redact.EVERY_HANDOUT:
            redact_passage(out, name, doc, first, after, note)
        if other != name:
            lines = read(out, doc).split("\n")
            lines[1:1] = ["", redact.OTHER_HANDOUT.format(lab=name)]
            write(out, doc, "\n".join(lines))


def reword_phrases(out, name):
    for doc, text, new in redact.REWORD:
        old = read(out, doc)
        if old.count(text) != 1:
            raise Failed(f"handout: {doc}: {old.count(text)} occurrences of {text!r} "
                         f"(tools/handout/redact.py REWORD, lab {name}): fix the phrase")
        write(out, doc, old.replace(text, new.format(lab=name)))


def tagged_ids(out):
    """Every barrier id tagged in the handout's code."""
    ids = set()
    for p in code_files(out, TAGGED_DIRS):
        with open(p) as f:
            ids.update(re.findall(r"\[([a-z][a-z0-9_]*)\]\s+pairs\b", f.read()))
    return ids


def prune_barrier_table(out):
    """docs/rcu.md's barrier table without the rows of barriers the
    handout's code no longer has (they were in the lab's functions)."""
    text = read(out, "docs/rcu.md")
    b, e = text.find(TABLE_BEGIN), text.find(TABLE_END)
    if b < 0 or e < 0:
        raise Failed("handout: docs/rcu.md has no barrier table markers")
    ids = tagged_ids(out)
    rows, dropped = [], []
    for line in text[b:e].split("\n"):
        m = re.match(r"\| `([a-z0-9_]+)` \|", line)
        if m and m.group(1) not in ids:
            dropped.append(m.group(1))
            continue
        rows.append(line)
    write(out, "docs/rcu.md", text[:b] + "\n".join(rows) + text[e:])
    return dropped


def prune_models(out, name, lab_functions):
    """The Spin models that spell out the lab's functions, and their rows
    in tools/model/barriers.tsv; then, until nothing changes, the models
    that carry a barrier whose row went with them (make model's link
    check wants a row for every barrier a model carries)."""
    tsv = "tools/model/barriers.tsv"
    lines = read(out, tsv).split("\n")
    rows = {}				# id -> (function, model)
    for l in lines:
        cols = l.split("\t")
        if len(cols) >= 4 and not l.startswith("#") and cols[0] != "id":
            rows[cols[0]] = (cols[1], cols[3])
    carries = {}
    for f in sorted(os.listdir(os.path.join(out, "tools", "model", "armv8"))):
        rel = f"tools/model/armv8/{f}"
        carries[rel] = set(re.findall(r"\[([a-z][a-z0-9_]*)\]", read(out, rel)))
    gone = set(redact.PML.get(name, []))
    # The lab's functions' rows: a function of that name in another file
    # (programs' rcu_assign_pointer() beside the kernel's) is not the lab's.
    names = {fname for _, fname in lab_functions}
    lab_files = [read(out, path) for path in {path for path, _ in lab_functions}]
    dropped = {i for i, (fn, _) in rows.items()
               if fn in names and any(f"[{i}]" in text for text in lab_files)}
    while True:
        dropped |= {i for i, (_, model) in rows.items() if model in gone}
        more = {m for m, ids in carries.items() if m not in gone and ids & dropped}
        if not more:
            break
        gone |= more
    for rel in gone:
        remove(out, rel)
    kept = [l for l in lines if l.split("\t")[0] not in dropped]
    write(out, tsv, "\n".join(kept))
    return sorted(gone)


MODEL_DOC = "docs/model.md"
MODEL_LEFT_OUT = ("*[`{model}` spells out lab `{lab}`'s answer step by step: this "
                  "repository leaves it out (ask your instructor).]*")


def prune_model_doc(out, name, gone):
    """docs/model.md as true of the handout: the "What is covered" table
    without the rows of the models left out (prune_models()), its ARMv8
    row counting the files and tags that are here, and a note in place of
    each left-out model's own paragraph."""
    lines = read(out, MODEL_DOC).split("\n")
    pml = {os.path.basename(m) for m in gone if m.endswith(".pml")}
    wmm = len([f for f in os.listdir(os.path.join(out, "tools", "model", "armv8"))
               if f.endswith(".wmm")])
    tags = len([l for l in read(out, "tools/model/barriers.tsv").split("\n")
                if len(l.split("\t")) >= 4 and not l.startswith("#") and
                l.split("\t")[0] != "id"])
    kept, para = [], None
    for line in lines:
        m = re.match(r"\| `([\w.]+\.pml)` \|", line)
        if m and m.group(1) in pml:
            continue
        if line.startswith("| `armv8/*.wmm` ("):
            line = re.sub(r"\(\d+ files\)", f"({wmm} files)", line)
            line = re.sub(r"\(\d+ tags\)", f"({tags} tags)", line)
        m = re.match(r"\*\*`([\w.]+\.pml)`: ", line)
        if m and m.group(1) in pml:
            para = m.group(1)
            kept.append(MODEL_LEFT_OUT.format(model=para, lab=name))
            continue
        if para:
            if line.strip():
                continue
            para = None
        kept.append(line)
    write(out, MODEL_DOC, "\n".join(kept))
    unname_models(out, gone)


def unname_models(out, gone):
    """The other docs name models by path too (docs/rcu.md's barrier
    table, docs/urcu.md, ...): a left-out one is named by its file name
    alone there, said to be left out, so that no path points nowhere."""
    docs = ["README.md"] + [os.path.join("docs", f)
                            for f in sorted(os.listdir(os.path.join(out, "docs")))
                            if f.endswith(".md")]
    for doc in docs:
        if not os.path.exists(os.path.join(out, doc)):
            continue
        text = orig = read(out, doc)
        for model in sorted(gone):
            text = text.replace(f"`{model}`", f"`{os.path.basename(model)}` (left out here)")
            text = text.replace(model, f"{os.path.basename(model)} (left out here)")
        if text != orig:
            write(out, doc, text)


def barriers_missing(out):
    """The barrier check's complaints in the handout: tags that the given
    code names as partners, which were in the lab's functions."""
    r = subprocess.run([sys.executable, "tools/barriers.py"], cwd=out, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    return sorted(set(re.findall(r"no tag \[([a-z0-9_]+)\] exists", r.stdout)))


def readme_note(lab, dropped_rows, dropped_models, missing_tags):
    name = lab["NAME"]
    lines = [
        f"# Lab `{name}`: your repository",
        "",
        f"This repository is the student repository of lab `{name}`: "
        f"{lab['SUMMARY']}.  The lab's functions are stubs for you to write; "
        f"read `docs/labs/{name}.md`, then:",
        "",
        "```sh",
        "make grade      # builds, boots the lab's tests, prints each part and Score: N/M",
        "```",
        "",
        "The first `make grade` builds newlib and the kernel (a few minutes; `make deps` "
        "installs the packages).  newlib is kept in a cache outside the repository "
        "(`~/.cache/quiescent/newlib`, shared with every clone on this machine), so a "
        "machine that built it once, for this course or another lab, skips it; "
        "`NEWLIB_CACHE=0` builds it inside this repository instead (README.md, "
        "\"The first build\").  The grader refuses to grade a tree that changed `tests/` "
        "or `tools/labs/`; change anything else.  The rest of the kernel, the other labs' "
        "functions included, is the reference as it was when this repository was made.",
        "",
        "Left out, as the instructor's: the reference of this lab's functions" +
        (", the passages of the docs that state it" if redact.PASSAGES.get(name) else "") +
        (", the rows of `docs/rcu.md`'s barrier table for the barriers inside them"
         if dropped_rows else "") +
        (", the Spin models of `tools/model/` that spell them out (" +
         ", ".join(f"`{m.replace('tools/model/', '')}`" for m in dropped_models) + ")"
         if dropped_models else "") +
        ", the wrong-solution patches, the instructor's guide and the lecture.  "
        "`.ci/run` is the course's CI: it needs the reference, and fails here." +
        (f"  The given code names {', '.join(f'`[{t}]`' for t in missing_tags)} as the "
         "partner of its barriers: until your barriers carry these tags, "
         "`python3 tools/barriers.py` says which are missing, and then "
         "`python3 tools/barriers.py --write` adds their rows to `docs/rcu.md`'s table."
         if missing_tags else ""),
        "",
        "---",
        "",
    ]
    return "\n".join(lines)


def cmd_build(name, out):
    if labs.read_record():
        raise Failed("handout: this is a lab branch or a student repository (.lab): make "
                     "handout runs in the instructor's repository, on main")
    lab = labs.load_def(name)
    if git(ROOT, "status", "--porcelain", "--untracked-files=no").decode().strip():
        print("handout: note: uncommitted changes are not in the handout (it is made "
              "from the last commit, HEAD)")
    out = os.path.abspath(out)
    if os.path.exists(out):
        if not os.path.exists(os.path.join(out, ".lab")):
            raise Failed(f"handout: {out} exists and is not a handout: remove it or choose "
                         "another --out")
        shutil.rmtree(out)
    os.makedirs(out)
    try:
        build_tree(lab, name, out)
    except BaseException:
        shutil.rmtree(out)	# else the next make handout refuses: "not a handout"
        raise
    print(f"handout: lab {name} in {out}: one commit; the starter replaces " +
          ", ".join(f"{f}()" for f in sorted(f for _, f, _ in lab["FUNCTIONS"])))
    return cmd_check(name, out)


def build_tree(lab, name, out):
    export_head(out)
    for path, text in labs.swapped(lab, read=head_text).items():
        write(out, path, text)
    for rel in redact.INSTRUCTOR_ONLY:
        remove(out, rel)
    for f in os.listdir(os.path.join(out, labs.DEFS)):
        if f.endswith(".py") and f != f"{name}.py":
            remove(out, os.path.join(labs.DEFS, f))
    redact_passages(out, name)
    redact_lab_handouts(out, name, sorted(os.path.basename(p)[:-3] for p in head_files()
                                          if p.startswith(labs.DEFS + "/") and p.endswith(".py")))
    reword_phrases(out, name)
    functions = {(p, f) for p, f, _ in lab["FUNCTIONS"]}
    rows = prune_barrier_table(out)
    models = prune_models(out, name, functions)
    prune_model_doc(out, name, models)
    missing = barriers_missing(out)
    write(out, "README.md", readme_note(lab, rows, models, missing) + read(out, "README.md"))
    write(out, labs.RECORD, f"lab {name}\nbase root\n")
    git(out, *IDENTITY, "init", "-q")
    git(out, "add", "-A")
    base = git(ROOT, "rev-parse", "--short=12", "HEAD").decode().strip()
    git(out, *IDENTITY, "commit", "-q", "-m",
        f"Lab {name}: the student repository\n\nMade by make handout LAB={name} "
        f"from the course's commit {base}.")
    if rows:
        print(f"handout: barrier table rows left out: {', '.join(rows)}")
    if models:
        print(f"handout: models left out: {', '.join(models)}")


# --------------------------------------------------------------------------
# CI: a handout solved with the reference
# --------------------------------------------------------------------------

def cmd_solve(name, out):
    lab = labs.load_def(name)
    for path, fname, body in reference_bodies(lab):
        text = read(out, path)
        start, end, kind = cswap.body_span(text, fname)
        write(out, path, text[:start] + body + text[end:])
    git(out, "add", "-A")
    git(out, *IDENTITY, "commit", "-q", "-m", f"lab {name}: the reference, as a student's answer")
    print(f"handout: {out}: lab {name}'s reference bodies committed")
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description="Student repositories (make handout).")
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("name")
    b.add_argument("--out")
    for c in ("check", "solve"):
        s = sub.add_parser(c)
        s.add_argument("name")
        s.add_argument("dir")
    a = p.parse_args(argv)
    try:
        if a.cmd == "build":
            if a.name == "list":
                return labs.cmd_list()
            return cmd_build(a.name, a.out or os.path.join(ROOT, "build", "handout", a.name))
        if a.cmd == "check":
            return cmd_check(a.name, a.dir)
        return cmd_solve(a.name, a.dir)
    except (Failed, labs.Refused, cswap.NotFound) as e:
        print(e)
        return 1


if __name__ == "__main__":
    sys.exit(main())
