#!/usr/bin/env python3
"""Pick the fuzzer's most diverse command lines for the kernel to boot.

    tools/fuzz/pick_cmdlines.py [-n 20] [CORPUS_DIR...]

Reads the cmdline target's corpora (default: tools/fuzz/corpus/cmdline and
what runs found in build/fuzz/corpus/cmdline), makes each input a line
GRUB can carry (cut at a NUL; printable ASCII; blanks become single
spaces: tools/run.py passes words), drops lines that name a key the
kernel really has (other than the test.* keys the fuzzer shares with the
kernel's tests: a word like ktest.filter=x would change the boot itself),
then picks greedily the line that adds the most code edges not yet
covered, shortening each to the fewest words that keep all its edges.
Writes tools/fuzz/cmdlines.txt, which tools/test_cmdlines.py boots.
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(FUZZ))
BINARY = os.path.join(ROOT, "build", "fuzz", "fuzz_cmdline")
OUT = os.path.join(FUZZ, "cmdlines.txt")
MAX_CHARS = 300


def kernel_keys():
    """The keys declared with KPARAM_* in the kernel, tests and arch code."""
    keys = set()
    for top in ("kernel", "arch", "tests", "lib"):
        for dp, _, fs in os.walk(os.path.join(ROOT, top)):
            for f in fs:
                if f.endswith((".c", ".h")):
                    with open(os.path.join(dp, f), errors="replace") as fh:
                        keys |= set(re.findall(r'KPARAM_\w+\(\s*"([^"]+)"', fh.read()))
    return {k for k in keys if not k.startswith("test.")}


def normalise(data):
    text = data.split(b"\0")[0].decode("latin-1")
    text = "".join(c if " " <= c <= "~" else " " if c.isspace() else "" for c in text)
    return " ".join(text.split())[:MAX_CHARS].strip()


def coverage(lines):
    """libFuzzer's merge over the lines, smallest first: the code edges (COV)
    each line covers that no smaller line did."""
    with tempfile.TemporaryDirectory() as d:
        os.makedirs(os.path.join(d, "in"))
        os.makedirs(os.path.join(d, "empty"))
        for i, line in enumerate(lines):
            with open(os.path.join(d, "in", f"{i:06d}"), "w") as f:
                f.write(line)
        control = os.path.join(d, "control")
        subprocess.run([BINARY, "-merge=1", f"-merge_control_file={control}",
                        os.path.join(d, "empty"), os.path.join(d, "in")],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        with open(control) as f:
            rows = f.read().splitlines()
        nfiles = int(rows[0])
        names = rows[2:2 + nfiles]
        cov = {}
        for row in rows[2 + nfiles:]:
            if row.startswith("COV "):
                _, idx, *edges = row.split()
                cov[int(os.path.basename(names[int(idx)]))] = set(map(int, edges))
        return [cov.get(i, set()) for i in range(len(lines))]


def edges(line):
    """The code edges the line covers, run alone."""
    return coverage([line])[0]


def shorten(line, wanted):
    """The line with every word dropped that the edges in wanted do not need."""
    words = line.split(" ")
    i = 0
    while i < len(words) and len(words) > 1:
        trial = words[:i] + words[i + 1:]
        if wanted <= edges(" ".join(trial)):
            words = trial
        else:
            i += 1
    return " ".join(words)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("-n", type=int, default=20)
    p.add_argument("corpora", nargs="*", default=[os.path.join(FUZZ, "corpus", "cmdline"),
                                                 os.path.join(ROOT, "build", "fuzz", "corpus",
                                                              "cmdline")])
    args = p.parse_args()
    if not os.path.exists(BINARY):
        print("pick_cmdlines: build the targets first: tools/fuzz/fuzz.py build", file=sys.stderr)
        return 1
    keys = kernel_keys()
    lines = set()
    for d in args.corpora:
        if os.path.isdir(d):
            for f in os.listdir(d):
                with open(os.path.join(d, f), "rb") as fh:
                    line = normalise(fh.read())
                if line and not any(k in line for k in keys):
                    lines.add(line)
    lines = sorted(lines, key=lambda s: (len(s), s))
    # The lines that add something over the smaller ones, then each one's own edges.
    lines = [l for l, c in zip(lines, coverage(lines)) if c]
    cov = [edges(l) for l in lines]
    covered, picked = set(), []
    while len(picked) < args.n:
        best = max(range(len(lines)), key=lambda i: (len(cov[i] - covered), -len(lines[i])),
                   default=None)
        if best is None or not cov[best] - covered:
            break
        short = shorten(lines[best], cov[best])
        picked.append(short)
        covered |= edges(short)
        del lines[best], cov[best]
    with open(OUT, "w") as f:
        f.write("# Command lines the cmdline fuzzer found, picked for the coverage each adds and\n"
                "# shortened (tools/fuzz/pick_cmdlines.py); tools/test_cmdlines.py boots each.\n")
        f.write("".join(line + "\n" for line in picked))
    print(f"pick_cmdlines: {len(picked)} lines covering {len(covered)} edges -> "
          f"{os.path.relpath(OUT, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
