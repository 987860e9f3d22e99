#!/usr/bin/env python3
"""Write the kernel's symbol table as assembly, for symbolized backtraces.

Usage: ksyms.py NM ELF OUT.S     (table of ELF's functions)
       ksyms.py --empty OUT.S    (an empty table, for the first link)

The build links twice: the first kernel has an empty table; its function
addresses and names go into .ksyms for the second.  .ksyms sits right after
.text in linker.ld, so no function moves between the two links.
"""
import subprocess
import sys


def functions(nm, elf):
    out = subprocess.run([nm, "-n", "-S", "--defined-only", elf],
                         check=True, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            addr, size, kind, name = parts
        elif len(parts) == 3:
            addr, kind, name = parts
            size = "0"
        else:
            continue
        if kind in "TtWw" and not name.startswith("."):
            syms.append((int(addr, 16), int(size, 16), name))
    # Only code: nothing at or past the end of .text (linker markers such as
    # __text_end would otherwise "contain" every data address).
    end = next((a for a, _, n in syms if n == "__text_end"), None)
    if end is not None:
        syms = [s for s in syms if s[0] < end]
    # Assembly functions have no size: they reach the next symbol (or .text's end).
    out = []
    for i, (a, size, name) in enumerate(syms):
        if size == 0:
            nxt = next((b for b, _, _ in syms[i + 1:] if b > a), end)
            size = (nxt - a) if nxt is not None else 0
        out.append((a, size, name))
    return out


def write(out, syms):
    lines = ["\t.section .ksyms, \"a\"", "\t.balign 8",
             "\t.globl ksym_table, ksym_count, ksym_names",
             "ksym_count:", f"\t.quad {len(syms)}", "ksym_table:"]
    offset = 0
    for addr, size, name in syms:
        lines.append(f"\t.quad {addr:#x}\n\t.long {size:#x}, {offset}")
        offset += len(name) + 1
    lines.append("ksym_names:")
    for _, _, name in syms:
        lines.append(f"\t.asciz \"{name}\"")
    lines.append("\t.byte 0")
    lines.append("\t.section .note.GNU-stack, \"\", %progbits")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    if sys.argv[1] == "--empty":
        write(sys.argv[2], [])
    else:
        write(sys.argv[3], functions(sys.argv[1], sys.argv[2]))


if __name__ == "__main__":
    main()
