"""Symbolizes the kernel's reports about user programs, as the console shows them.

The kernel names each address of a user fault report with the program it
belongs to (kernel/user/fault.c):

    user: fault_null[7]: segfault at 0000000000000000 ip 0000008000400123 sp ... in tests/user/fault_null: ...
    user: fault_null[7]:  [<0000008000400123>] in tests/user/fault_null

The program's ELF, with its symbols, is USER_DIR/PATH.elf (user/user.mk);
this puts "function+0xoff/0xsize (file.c:line)" after each such address,
as the kernel's own backtraces read.  Lines it does not recognise, or
whose program it cannot find, come back unchanged.
"""

import bisect
import os
import re
import subprocess

FAULT_RE = re.compile(r"^(user: \S+\[\d+\]: .*\bip ([0-9a-f]{16}) .*? in (\S+?))(:.*|\s.*)?$")
FRAME_RE = re.compile(r"^(user: \S+\[\d+\]:  \[<([0-9a-f]{16})>\] in (\S+))(.*)$")


class Symbolizer:
    def __init__(self, user_dir, tool_prefix=""):
        self.user_dir = user_dir
        self.prefix = tool_prefix
        self.tables = {}     # path -> (sorted starts, [(start, size, name)]) or None

    def _table(self, path):
        if path in self.tables:
            return self.tables[path]
        elf = os.path.join(self.user_dir, path + ".elf") if self.user_dir else None
        table = None
        if elf and os.path.isfile(elf) and ".." not in path.split("/"):
            try:
                out = subprocess.run([self.prefix + "nm", "-S", "--defined-only", elf],
                                     capture_output=True, text=True, check=True).stdout
                syms = []
                for line in out.splitlines():
                    f = line.split()
                    if len(f) == 4 and f[2] in "tTwW":
                        syms.append((int(f[0], 16), int(f[1], 16), f[3]))
                syms.sort()
                table = ([s[0] for s in syms], syms, elf)
            except (OSError, subprocess.CalledProcessError):
                table = None
        self.tables[path] = table
        return table

    def _line(self, elf, addr):
        try:
            out = subprocess.run([self.prefix + "addr2line", "-e", elf, hex(addr)],
                                 capture_output=True, text=True, check=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            return None
        if not out or out.startswith("??"):
            return None
        path, _, line = out.rpartition(":")
        line = line.split()[0] if line else line
        root = os.getcwd() + os.sep
        return f"{path[len(root):] if path.startswith(root) else path}:{line}"

    def name(self, path, addr):
        """'func+0xoff/0xsize (file.c:N)' for addr in program path, or None."""
        table = self._table(path)
        if not table:
            return None
        starts, syms, elf = table
        i = bisect.bisect_right(starts, addr) - 1
        if i < 0:
            return None
        start, size, name = syms[i]
        if size and addr >= start + size:
            return None
        where = self._line(elf, addr)
        text = f"{name}+{addr - start:#x}/{size:#x}"
        return f"{text} ({where})" if where else text

    def line(self, text):
        """text with a symbol after the address it reports, when it is such a line."""
        for regex in (FAULT_RE, FRAME_RE):
            m = regex.match(text)
            if m:
                sym = self.name(m.group(3), int(m.group(2), 16))
                if sym:
                    return f"{m.group(1)} {sym}{m.group(4) or ''}"
                return text
        return text
