#!/usr/bin/env python3
"""The kernel's cue to type on its serial console (tools/lib/serial_cue.py),
against what kernel/ktest.c's ktest_type_on_console() prints: every byte
it escapes comes back as it was, and lines that are not cues type nothing.
python3 tools/tests/test_serial_cue.py"""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "lib"))
import serial_cue  # noqa: E402


def kernel_escape(text):
    """What ktest_type_on_console() prints for text (its escaping, in Python)."""
    out = []
    for c in text:
        if c in '"\\':
            out.append("\\" + c)
        elif ord(c) < 0x20 or ord(c) >= 0x7f:
            out.append("\\x%02x" % ord(c))
        else:
            out.append(c)
    return '# ktest: type "%s"' % "".join(out)


class SerialCue(unittest.TestCase):
    def test_every_byte_round_trips(self):
        text = "".join(chr(i) for i in range(1, 256))
        self.assertEqual(serial_cue.typed(kernel_escape(text)), text.encode("latin-1"))

    def test_indented_cue_of_a_nested_run(self):
        self.assertEqual(serial_cue.typed('    # ktest: type "hi\\x0a"'), b"hi\n")

    def test_not_cues(self):
        for line in ['# ktest: type "unterminated', '# ktest: type "bad \\q escape"',
                     'ok 1 irq_console # ktest: type "x"', "# ktest: running irq_x",
                     '# ktest: type "a" trailing']:
            self.assertIsNone(serial_cue.typed(line), line)


if __name__ == "__main__":
    unittest.main()
