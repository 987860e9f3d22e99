"""The kernel's cue for typing on its serial console, and what to type.

A kernel test that needs input on the serial line (the UART's receive
interrupt, a program reading standard input) prints a diagnostic line

    # ktest: type "hello\\n"

(kernel/ktest.c: ktest_type_on_console(); C escapes \\\\, \\" and \\xHH),
and tools/run.py writes those bytes to QEMU's serial input, as
tools/test_demos.py presses Enter when the demo's prompt appears.

    typed('# ktest: type "a\\\\x0a"')   ->  b"a\\n"
    typed("anything else")           ->  None
"""

import re

CUE_RE = re.compile(r'^\s*# ktest: type "((?:[^"\\]|\\\\|\\"|\\x[0-9a-fA-F]{2})*)"\s*$')
ESCAPE_RE = re.compile(r'\\(\\|"|x[0-9a-fA-F]{2})')


def typed(line):
    """The bytes a cue line asks for, or None when the line is no cue."""
    m = CUE_RE.match(line)
    if not m:
        return None

    def one(e):
        s = e.group(1)
        return chr(int(s[1:], 16)) if s[0] == "x" else s

    return ESCAPE_RE.sub(one, m.group(1)).encode("latin-1")
