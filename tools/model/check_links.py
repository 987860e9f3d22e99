#!/usr/bin/env python3
"""The links between the barrier table, the models and the kernel code.

tools/model/barriers.tsv has a row per barrier the models check: its id,
the C function that holds it, its partner id(s), the model file, and the
variant that removes it.  This check fails when a link is gone:

  * the named C function no longer exists in kernel/, lib/ or arch/
    (searched recursively, so moving files does not matter);
  * the model file is gone, or does not carry [id], or its variants do not
    include the named one;
  * a partner id has no row, or does not name the barrier back;
  * a model carries an [id] that has no row;
  * the kernel sources carry a tag  /* [id] pairs [partner]: why */  for
    the id outside the named function.

Tags are written by the barrier work (issue 12); an id with no tag yet is a
note, not a failure (--strict makes it a failure).

  tools/model/check_links.py [--root DIR] [--strict]
"""

import argparse
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import armv8  # noqa: E402

# A tag opens a comment or a line of one ("/* [id] pairs ..." or " * [id] pairs ..."),
# and its partners run to the colon, over lines if need be (tools/barriers.py).
TAG = re.compile(r"(?:/\*|^[ \t]*\*)[ \t]*\[(\w+)\]\s+pairs\b([^:]*)", re.M)


def read_table(path):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "id":
                continue
            if len(cols) != 5 or not all(c.strip() for c in cols):
                raise ValueError(f"{path}:{n}: want 5 tab-separated columns, got {len(cols)}")
            rows.append({"id": cols[0], "function": cols[1],
                         "partners": [p.strip() for p in cols[2].split(",")],
                         "model": cols[3], "variant": cols[4], "line": n})
    return rows


def c_sources(root):
    files = []
    for top in ("kernel", "lib", "arch"):
        for ext in ("c", "h", "S"):
            files += glob.glob(os.path.join(root, top, "**", f"*.{ext}"), recursive=True)
    return sorted(files)


def functions(path):
    """[(name, first line, last line)] of the function bodies in a file:
    kernel style, a body opens with '{' and closes with '}' in column 0
    and its name is the identifier before '(' just above the brace."""
    with open(path, errors="replace") as f:
        lines = f.read().split("\n")
    out, name, start = [], None, 0
    for n, line in enumerate(lines, 1):
        if line.startswith("{") and name is None:
            back = " ".join(lines[max(0, n - 5):n - 1])
            m = re.findall(r"\b([A-Za-z_]\w*)\s*\(", back)
            name = m[0] if m else "?"
            # the name is the first call-like identifier of the declarator
            decl = re.search(r"([A-Za-z_]\w*)\s*\([^()]*(?:\([^()]*\)[^()]*)*\)\s*$", back.strip())
            if decl:
                name = decl.group(1)
            start = n
        elif line.startswith("}") and name is not None:
            out.append((name, start, n))
            name = None
    return out


ONE_LINE = re.compile(r"^[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\([^;\n]*\)[ \t]*\{.*\}[ \t]*$", re.M)


def defined(root, files):
    """Every function defined in files (bodies as above, or on one line)."""
    names = set()
    for path in files:
        for name, _, _ in functions(path):
            names.add(name)
        with open(path, errors="replace") as f:
            names.update(ONE_LINE.findall(f.read()))
    return names


def tags(files):
    """{id: [(file, line, enclosing function or None, partner ids)]}"""
    found = {}
    for path in files:
        with open(path, errors="replace") as f:
            text = f.read()
        funcs = functions(path)
        for m in TAG.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            inside = [name for name, a, b in funcs if a <= line <= b]
            partners = re.findall(r"\[(\w+)\]", m.group(2))
            found.setdefault(m.group(1), []).append(
                (path, line, inside[0] if inside else None, partners))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--strict", action="store_true", help="an id with no kernel tag fails")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    table = os.path.join(root, "tools", "model", "barriers.tsv")
    errors, notes, untagged = [], [], []
    try:
        rows = read_table(table)
    except (OSError, ValueError) as e:
        print(f"check_links: {e}", file=sys.stderr)
        return 1
    ids = {r["id"]: r for r in rows}
    if len(ids) != len(rows):
        errors.append("barriers.tsv: an id appears twice")
    files = c_sources(root)
    names = defined(root, files)
    kernel_tags = tags(files)
    models = {}
    for r in rows:
        where = f"barriers.tsv:{r['line']} [{r['id']}]"
        if r["function"] not in names:
            errors.append(f"{where}: function {r['function']}() not found in kernel/, lib/ or arch/")
        for p in r["partners"]:
            if p not in ids:
                errors.append(f"{where}: partner [{p}] has no row")
            elif r["id"] not in ids[p]["partners"]:
                errors.append(f"{where}: partner [{p}] does not name [{r['id']}] back")
        mpath = os.path.join(root, r["model"])
        if not os.path.exists(mpath):
            errors.append(f"{where}: model {r['model']} not found")
        else:
            try:
                m = models.get(mpath) or armv8.parse(mpath)
                models[mpath] = m
                if r["id"] not in m.barrier_ids():
                    errors.append(f"{where}: {r['model']} does not carry [{r['id']}]")
                vs = {v[0]: v for v in armv8.variants(m)}
                if r["variant"] not in vs:
                    errors.append(f"{where}: {r['model']} has no variant {r['variant']}")
                elif r["id"] not in vs[r["variant"]][1]:
                    errors.append(f"{where}: variant {r['variant']} does not remove [{r['id']}]")
                elif vs[r["variant"]][2] != "allowed":
                    errors.append(f"{where}: variant {r['variant']} is expected to verify; name "
                                  f"one that make model must reject")
            except armv8.WmmError as e:
                errors.append(f"{where}: {e}")
        for path, line, func, partners in kernel_tags.get(r["id"], []):
            rel = os.path.relpath(path, root)
            if func != r["function"]:
                errors.append(f"{rel}:{line}: tag [{r['id']}] is in {func or 'no function'}(), "
                              f"barriers.tsv says {r['function']}()")
            for p in partners:
                if p not in r["partners"]:
                    notes.append(f"{rel}:{line}: tag [{r['id']}] pairs [{p}], which barriers.tsv "
                                 f"does not list as its partner")
        if r["id"] not in kernel_tags:
            untagged.append(r["id"])
    for path in sorted(glob.glob(os.path.join(root, "tools", "model", "armv8", "*.wmm"))):
        try:
            m = models.get(path) or armv8.parse(path)
        except armv8.WmmError as e:
            errors.append(str(e))
            continue
        for b in m.barrier_ids():
            if b not in ids:
                errors.append(f"{os.path.relpath(path, root)}: [{b}] has no row in barriers.tsv")
    if untagged:
        msg = (f"{len(untagged)} barrier(s) not tagged in the kernel yet "
               f"(/* [id] pairs [partner]: why */): {' '.join(untagged)}")
        if a.strict:
            errors.append(msg)
        else:
            notes.append(msg)
    for n in notes:
        print(f"check_links: note: {n}")
    for e in errors:
        print(f"check_links: FAILED: {e}")
    tagged = sum(1 for r in rows if r["id"] in kernel_tags)
    print(f"check_links: {len(rows)} barriers, {tagged} tagged in the kernel, "
          f"{len(errors)} broken link{'s' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
