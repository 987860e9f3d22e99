"""make profile, the data: what the plugin counted (tools/profile/insncount.c),
which operation each window was (the '# PROFILE' lines on the console),
and, from objdump of the ELFs, which function and which instruction each
counted address is.  tools/lib/profile_report.py turns the result into
tables; tools/profile.py drives both.
"""

import re
import subprocess

from profile_classes import CLASS_NAMES, classify

WINDOW_RE = re.compile(r"^# PROFILE op=(\S+) n=(\d+) program=(\S+)\s*$")
# A program's own timing of its loop (tests/user/helpers/timed.h), after its window.
TIMED_RE = re.compile(r"^# BENCH .*\btimed=loop\b.*\bvalue=([0-9.]+) unit=ns\s*$")
OBJDUMP_FUNC_RE = re.compile(r"^([0-9a-f]+) <(.+)>:$")
OBJDUMP_INSN_RE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f ]+?)\s*\t(.*)$")


class ProfileError(Exception):
    """Something the profile cannot be made from, said in one line."""


# ---------------------------------------------------------------- the plugin's file

def parse_counts(lines):
    """(target, [window, ...]) from insncount's file; each window is a dict
    {(address, bytes hex): count}.  Raises ProfileError on a file cut short
    or a window left open."""
    lines = iter(lines)
    head = next(lines, "").split()
    if len(head) != 3 or head[:2] != ["insncount", "1"]:
        raise ProfileError("not an insncount file (version 1)")
    target, windows, cur, tail = head[2], [], None, None
    for line in lines:
        f = line.split()
        if not f:
            continue
        if f[0] == "window":
            cur = {}
        elif f[0] == "end":
            if cur is None or sum(cur.values()) != int(f[2]):
                raise ProfileError(f"window {f[1]}: its counts do not add up to its total")
            windows.append(cur)
            cur = None
        elif f[0] == "windows":
            tail = f
        elif cur is not None and len(f) == 3:
            key = (int(f[0], 16), f[2])
            cur[key] = cur.get(key, 0) + int(f[1])
        else:
            raise ProfileError(f"unreadable line in the plugin's file: {line.strip()!r}")
    if tail is None:
        raise ProfileError("the plugin's file ends early (QEMU did not exit cleanly)")
    if "open" in tail:
        raise ProfileError("a window was opened and never closed")
    if "stray" in tail:
        raise ProfileError(f"{tail[tail.index('stray') + 1]} marks out of order "
                           "(a close without an open, or two opens)")
    return target, windows


def parse_console(lines):
    """The windows the console names, in order: [{op, n, program, timed_ns}];
    timed_ns is the program's own clock per round (None if it printed none)."""
    named = []
    for line in lines:
        line = line.rstrip("\r\n")
        m = WINDOW_RE.match(line)
        if m:
            named.append({"op": m.group(1), "n": int(m.group(2)), "program": m.group(3),
                          "timed_ns": None})
            continue
        m = TIMED_RE.match(line)
        if m and named and named[-1]["timed_ns"] is None:
            named[-1]["timed_ns"] = float(m.group(1))
    return named


# ---------------------------------------------------------------- the ELFs

def objdump_lines(objdump, elf):
    try:
        return subprocess.run([objdump, "-d", "--insn-width=16", elf], capture_output=True,
                              text=True, check=True).stdout.splitlines()
    except (OSError, subprocess.CalledProcessError) as e:
        raise ProfileError(f"{objdump} -d {elf} failed: {e}") from e


class Disassembly:
    """Every instruction of one ELF: address -> (function, bytes hex in memory
    order, objdump's text).  name: what its functions are called after
    (None for the kernel: its functions go by their own names)."""

    def __init__(self, lines, arch, name=None):
        self.arch, self.name, self.insns = arch, name, {}
        func = "?"
        for line in lines:
            m = OBJDUMP_FUNC_RE.match(line)
            if m:
                func = m.group(2)
                continue
            m = OBJDUMP_INSN_RE.match(line)
            if not m:
                continue
            words = m.group(2).split()
            # AArch64's objdump shows each instruction as a 32-bit word: its bytes reversed.
            raw = "".join(bytes.fromhex(w)[::-1].hex() if len(w) == 8 and arch == "aarch64"
                          else w for w in words)
            self.insns[int(m.group(1), 16)] = (func, raw, m.group(3).strip())

    def after(self, addr):
        """after(k): the text of the k-th instruction after addr (AArch64's
        fixed width; x86 has no use for it), or None."""
        return lambda k: (self.insns.get(addr + 4 * k) or (None, None, None))[2]

    def function(self, func):
        return f"{self.name}:{func}" if self.name else func


# ---------------------------------------------------------------- one operation

class Operation:
    """One window, attributed: instructions and classes per function, every
    classed instruction where it is.  Counts are totals over the window;
    divide by n for one operation."""

    def __init__(self, op, n, program, timed_ns=None):
        self.op, self.n, self.program, self.timed_ns = op, n, program, timed_ns
        self.total = 0
        self.functions = {}	# name -> {"insns": count, "user": bool, class: count, ...}
        self.classes = dict.fromkeys(CLASS_NAMES, 0)
        self.sites = []		# (class, function, address, text, count)
        self.unknown = 0	# instructions at addresses no ELF holds
        self.mismatched = 0	# whose bytes differ from the ELF's there

    def add(self, func, user, count, cls=None, site=None):
        f = self.functions.setdefault(func, {"insns": 0, "user": user})
        f["insns"] += count
        self.total += count
        if cls:
            f[cls] = f.get(cls, 0) + count
            self.classes[cls] += count
            self.sites.append((cls, func) + site + (count,))


def attribute(window, named, kernel, program=None):
    """An Operation from one window's counts: each address looked up in the
    kernel's disassembly, then the program's."""
    op = Operation(named["op"], named["n"], named["program"], named.get("timed_ns"))
    for (addr, raw), count in sorted(window.items()):
        for dis, user in ((kernel, False), (program, True)):
            if dis is not None and addr in dis.insns:
                break
        else:
            op.unknown += count
            op.add(f"[no ELF holds {addr:#x}]", None, count)
            continue
        func, want, text = dis.insns[addr]
        if want != raw:
            op.mismatched += count
            op.add(f"[{dis.function(func)}: other bytes ran at {addr:#x}]", user, count)
            continue
        cls = classify("x86" if dis.arch == "x86_64" else dis.arch, text, dis.after(addr))
        op.add(dis.function(func), user, count, cls, (addr, text))
    return op
