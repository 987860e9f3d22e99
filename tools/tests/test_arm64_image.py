"""tools/arm64_image.py: the Image it makes and the initrd format
arch/aarch64/initrd.c reads (the kernel's side is fuzzed: tools/fuzz/)."""
import os
import struct
import sys
import unittest

TOOLS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, TOOLS)
import arm64_image  # noqa: E402


def header(image_size, magic=b"ARM\x64"):
    return struct.pack("<IIQQQQQQ", 0x14000010, 0, 0x200000, image_size, 2, 0, 0, 0) + \
        magic + bytes(4)


class ImageTests(unittest.TestCase):
    def test_padded_to_image_size(self):
        raw = header(8192) + b"text"
        img = arm64_image.image_bytes(raw)
        self.assertEqual(len(img), 8192)
        self.assertEqual(img[:len(raw)], raw)
        self.assertEqual(img[len(raw):], bytes(8192 - len(raw)))

    def test_refused_without_the_header(self):
        with self.assertRaisesRegex(arm64_image.BootFileError, "not an arm64 Image header"):
            arm64_image.image_bytes(header(8192, magic=b"ARM\x63"))
        with self.assertRaisesRegex(arm64_image.BootFileError, "not an arm64 Image header"):
            arm64_image.image_bytes(b"short")

    def test_refused_when_image_size_is_short(self):
        with self.assertRaisesRegex(arm64_image.BootFileError, "smaller than"):
            arm64_image.image_bytes(header(32) + bytes(100))


class InitrdTests(unittest.TestCase):
    def test_layout(self):
        """Every offset of the format, as docs/user.md and initrd.c state it."""
        b = arm64_image.pack_initrd([(b"ELF123456", "user/hello a"), (b"", "x")])
        self.assertEqual(b[:16], b"QMODULES" + struct.pack("<II", 1, 2))
        self.assertEqual(struct.unpack_from("<IIQ", b, 16), (13, 0, 9))
        self.assertEqual(b[32:48], b"user/hello a\0" + bytes(3))	# padded to 8
        self.assertEqual(b[48:64], b"ELF123456" + bytes(7))
        self.assertEqual(struct.unpack_from("<IIQ", b, 64), (2, 0, 0))
        self.assertEqual(b[80:88], b"x\0" + bytes(6))
        self.assertEqual(len(b), 88)		# nothing after the last module

    def test_spec_needs_a_file_and_argv0(self):
        with self.assertRaisesRegex(arm64_image.BootFileError, "ARGV0"):
            arm64_image.parse_spec(__file__)
        self.assertEqual(arm64_image.parse_spec(f"{__file__}  tests/user/x  a b"),
                         (__file__, "tests/user/x a b"))


if __name__ == "__main__":
    unittest.main()
