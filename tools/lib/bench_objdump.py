"""make bench, the zero-instruction claim: disassembles bench_reader_rcu()
and bench_reader_plain() (the same lookup with and without
rcu_read_lock()/rcu_read_unlock()), and the benchmark's own lookup
functions against the no-lock floor, with objdump and nm, normalises the
instructions (addresses, %rip displacements) and compares the counts.
"""

import re
import subprocess

READER_WITH = "bench_reader_rcu"
READER_WITHOUT = "bench_reader_plain"
# Pairs compared instruction by instruction: the designated reader (which
# must match), then the benchmark's own lookup functions, RCU against the
# floor (reported: a compiler barrier may still move a register copy).
READER_PAIRS = [(READER_WITH, READER_WITHOUT),
                ("lookup_BM_RCU_BENCH_LIST", "lookup_BM_NONE_BENCH_LIST"),
                ("lookup_BM_RCU_BENCH_HASH", "lookup_BM_NONE_BENCH_HASH")]

INSN_RE = re.compile(r"^\s*([0-9a-f]+):\s+(\S.*)$")
FUNC_RE = re.compile(r"^([0-9a-f]+) <([^>]+)>:\s*$")
# "11174d <bench_reader_rcu+0x1d>": a branch target or an address in a comment
TARGET_RE = re.compile(r"\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>")
RIP_RE = re.compile(r"-?0x[0-9a-f]+\(%rip\)")
PADDING_RE = re.compile(r"^(nop\w*|xchg %ax,%ax|data16\b|cs nop\w*|int3)\b")


def parse_nm(nm_text):
    """{symbol: (address, size)} from `nm -S` output (symbols with a size)."""
    syms = {}
    for line in nm_text.splitlines():
        parts = line.split()
        if len(parts) == 4:
            try:
                syms[parts[3]] = (int(parts[0], 16), int(parts[1], 16))
            except ValueError:
                pass
    return syms


def normalize_insn(text, func):
    """An instruction without what only its address makes different:
    absolute targets become <SELF+off> inside the function and <sym+off>
    outside it, and an x86 %rip displacement becomes the symbol its
    comment names.  Spacing is folded; AArch64 '//' comments dropped."""
    text = text.split("//")[0]
    code, _, comment = text.partition(" # ") if " # " in text else \
        text.partition("\t# ") if "\t# " in text else (text, "", "")
    if comment:
        m = TARGET_RE.search(comment)
        if m and RIP_RE.search(code):
            code = RIP_RE.sub("<" + m.group(1) + (m.group(2) or "") + ">(%rip)", code)

    def target(m):
        name = "SELF" if m.group(1) == func else m.group(1)
        return "<" + name + (m.group(2) or "") + ">"
    code = TARGET_RE.sub(target, code)
    return " ".join(code.split())


def instructions(objdump_text, start, size, func=""):
    """The normalised instructions at addresses [start, start + size)."""
    out = []
    for line in objdump_text.splitlines():
        m = INSN_RE.match(line)
        if not m:
            continue
        addr = int(m.group(1), 16)
        if start <= addr < start + size:
            insn = normalize_insn(m.group(2), func)
            if insn and not insn.startswith("(bad)"):
                out.append(insn)
    return out


def compare_readers(objdump_text, nm_text, with_sym=READER_WITH, without_sym=READER_WITHOUT):
    """Counts the instructions of the two readers (their symbol sizes bound
    them, so the padding after each is not counted).  Returns a dict with
    the counts, their difference, the count without alignment padding and
    whether the two sequences are identical."""
    syms = parse_nm(nm_text)
    for s in (with_sym, without_sym):
        if s not in syms:
            raise ValueError(f"symbol {s} not found (is tests/bench/read.c built in?)")
    a = instructions(objdump_text, *syms[with_sym], func=with_sym)
    b = instructions(objdump_text, *syms[without_sym], func=without_sym)
    real = lambda xs: [x for x in xs if not PADDING_RE.match(x)]  # noqa: E731
    return {
        "with": with_sym, "without": without_sym,
        "with_count": len(a), "without_count": len(b), "diff": len(a) - len(b),
        "with_real": len(real(a)), "without_real": len(real(b)),
        "identical": a == b, "with_insns": a, "without_insns": b,
    }


def objdump_check(elf, objdump="objdump", nm="nm", pairs=None):
    """compare_readers() for each (with, without) pair found in elf; the
    first pair must exist.  Returns the list of results."""
    nm_text = subprocess.run([nm, "-S", "--defined-only", elf], check=True,
                             capture_output=True, text=True).stdout
    syms = parse_nm(nm_text)
    results = []
    for i, (w, wo) in enumerate(pairs or READER_PAIRS):
        if w not in syms or wo not in syms:
            if i == 0:
                raise ValueError(f"symbol {w} or {wo} not found in {elf}")
            continue
        texts = []
        for sym in (w, wo):
            start, size = syms[sym]
            texts.append(subprocess.run(
                [objdump, "-d", "--no-show-raw-insn", f"--start-address={start:#x}",
                 f"--stop-address={start + size:#x}", elf],
                check=True, capture_output=True, text=True).stdout)
        results.append(compare_readers("\n".join(texts), nm_text, w, wo))
    return results

