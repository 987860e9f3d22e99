#!/usr/bin/env python3
"""Every barrier is checked by a model or explained, and the links hold.

Two tables hold every barrier tag of kernel/, arch/, lib/, user/lib/ and
user/include/ (the tags are tools/barriers.py's: /* [id] pairs [partner]:
why */):

  tools/model/barriers.tsv   the barriers the ARMv8 models check: the id,
                             the C function that holds it, its partner(s),
                             the model, and a variant of that model that
                             removes it and that make model must reject;
  tools/model/no_model.tsv   the barriers no model checks, each with the
                             reason it needs none (its partner is the
                             hardware, it is there for atomicity, ...).

This check fails when:

  * a tag in the code is in neither table, or a row names an id no tag
    has (--strict; without it, a note: a model may be written first);
  * an id is in both tables, or twice in one;
  * a barrier in the code has no tag (tools/barriers.py's own check);
  * a checked row's function is not where the tag is, or no longer exists;
  * its model is gone, does not carry [id], or lacks the variant, or the
    variant does not remove [id], or is expected to verify;
  * a partner has no row in either table, or a checked partner does not
    name the barrier back;
  * a model carries an [id] in neither table, or an explained row names a
    model that does not carry it.

  tools/model/check_links.py [--root DIR] [--strict]
"""

import argparse
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

import armv8  # noqa: E402
import barriers  # noqa: E402  (tools/barriers.py)

# Why a barrier needs no model: the kinds no_model.tsv may give.
KINDS = {
    "hardware": "its partner is the hardware (an interrupt, a sleeping or starting CPU, "
                "the page-table walker, the caches): the encoding has only memory accesses",
    "atomicity": "it is there for its atomicity (one winner of a read-modify-write), "
                 "which the encoding's exclusives give with or without ordering",
    "covered": "the model named shows it is covered where it stands, by something "
               "no variant can remove (a control dependency, say)",
    "window": "it narrows a window the code's comment admits, and orders nothing "
              "an outcome could state",
}


def read_tsv(path, ncols, names):
    rows = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.startswith("#"):
                continue
            cols = line.rstrip("\n").split("\t")
            if cols[0] == "id":
                continue
            if len(cols) not in ncols or not all(c.strip() for c in cols[:min(ncols)]):
                raise ValueError(f"{path}:{n}: want {' or '.join(map(str, sorted(ncols)))} "
                                 f"tab-separated columns, got {len(cols)}")
            row = dict(zip(names, cols))
            row["line"] = n
            rows.append(row)
    return rows


def read_table(path):
    rows = read_tsv(path, {5}, ["id", "function", "partner", "model", "variant"])
    for r in rows:
        r["partners"] = [p.strip() for p in r["partner"].split(",")]
    return rows


def read_explained(path):
    if not os.path.exists(path):
        return []
    return read_tsv(path, {3, 4}, ["id", "kind", "why", "model"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.dirname(os.path.dirname(HERE)))
    ap.add_argument("--strict", action="store_true",
                    help="a tag in neither table, or a row with no tag, fails")
    a = ap.parse_args()
    root = os.path.abspath(a.root)
    table = os.path.join(root, "tools", "model", "barriers.tsv")
    explained_path = os.path.join(root, "tools", "model", "no_model.tsv")
    errors, notes, unknown = [], [], []
    try:
        rows = read_table(table)
        explained = read_explained(explained_path)
    except (OSError, ValueError) as e:
        print(f"check_links: {e}", file=sys.stderr)
        return 1
    ids = {}
    for r in rows:
        if r["id"] in ids:
            errors.append(f"barriers.tsv:{r['line']}: [{r['id']}] appears twice")
        ids[r["id"]] = r
    why = {}
    for e in explained:
        where = f"no_model.tsv:{e['line']} [{e['id']}]"
        if e["id"] in ids:
            errors.append(f"{where}: also in barriers.tsv: checked or explained, not both")
        if e["id"] in why:
            errors.append(f"{where}: appears twice")
        if e["kind"] not in KINDS:
            errors.append(f"{where}: kind '{e['kind']}' is not one of {', '.join(KINDS)}")
        why[e["id"]] = e
    tags, found, tag_errors, definitions = barriers.analyse(root)
    errors += [f"{m} (tools/barriers.py)" for m in tag_errors if "has no tag" in m]
    models = {}

    def model(path):
        if path not in models:
            models[path] = armv8.parse(path)
        return models[path]

    for r in rows:
        where = f"barriers.tsv:{r['line']} [{r['id']}]"
        t = tags.get(r["id"])
        if t is None and r["function"] not in definitions:
            errors.append(f"{where}: function {r['function']}() not found in kernel/, lib/ or arch/")
        if t is not None and t.where.removesuffix("()") != r["function"]:
            errors.append(f"{t.path}:{t.line}: tag [{r['id']}] is in {t.where or 'no function'}"
                          f"{'' if t.where.endswith(')') or not t.where else '()'}, "
                          f"barriers.tsv says {r['function']}()")
        for p in r["partners"]:
            if p in why:
                continue
            if p not in ids:
                errors.append(f"{where}: partner [{p}] has no row")
            elif r["id"] not in ids[p]["partners"]:
                errors.append(f"{where}: partner [{p}] does not name [{r['id']}] back")
        if t is not None:
            for p in t.partners:
                if p not in r["partners"]:
                    notes.append(f"{t.path}:{t.line}: tag [{r['id']}] pairs [{p}], which "
                                 f"barriers.tsv does not list as its partner")
        mpath = os.path.join(root, r["model"])
        if not os.path.exists(mpath):
            errors.append(f"{where}: model {r['model']} not found")
            continue
        try:
            m = model(mpath)
        except armv8.WmmError as e:
            errors.append(f"{where}: {e}")
            continue
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
    for e in explained:
        if e.get("model"):
            mpath = os.path.join(root, e["model"])
            try:
                if e["id"] not in model(mpath).barrier_ids():
                    errors.append(f"no_model.tsv:{e['line']} [{e['id']}]: {e['model']} "
                                  f"does not carry it")
            except (OSError, armv8.WmmError) as err:
                errors.append(f"no_model.tsv:{e['line']} [{e['id']}]: {err}")
    for path in sorted(glob.glob(os.path.join(root, "tools", "model", "armv8", "*.wmm"))):
        try:
            m = model(path)
        except armv8.WmmError as e:
            errors.append(str(e))
            continue
        for b in m.barrier_ids():
            if b not in ids and b not in why:
                errors.append(f"{os.path.relpath(path, root)}: [{b}] has no row in barriers.tsv "
                              f"or no_model.tsv")
    listed = set(ids) | set(why)
    for tid in sorted(tags):
        if tid not in listed:
            t = tags[tid]
            unknown.append(f"{t.path}:{t.line}: [{tid}] is neither checked "
                           f"(tools/model/barriers.tsv) nor explained (tools/model/no_model.tsv): "
                           f"add its row (docs/model.md, \"Adding a barrier\")")
    untagged = sorted(i for i in listed if i not in tags)
    msgs = unknown + ([f"{len(untagged)} row(s) with no tag in the code (the barrier was "
                       f"removed or renamed?): {' '.join(untagged)}"] if untagged else [])
    (errors if a.strict else notes).extend(msgs)
    for n in notes:
        print(f"check_links: note: {n}")
    for e in errors:
        print(f"check_links: FAILED: {e}")
    checked = sum(1 for r in rows if r["id"] in tags)
    print(f"check_links: {len(tags)} barrier tags in the code: {checked} checked by a model, "
          f"{sum(1 for e in explained if e['id'] in tags)} explained, {len(unknown)} neither; "
          f"{len(errors)} broken link{'s' if len(errors) != 1 else ''}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
