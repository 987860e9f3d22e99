#!/usr/bin/env python3
"""The files QEMU boots an AArch64 kernel from, as a boot loader would
(tools/run.py makes them for every boot, as it makes the GRUB ISO on x86-64):

    tools/arm64_image.py image ELF IMAGE
        the arm64 Linux Image: the kernel's loadable bytes from its first
        address (the 64-byte header of boot/aarch64/entry.S) on, padded to
        the header's image_size so that QEMU, which goes by the file's size,
        puts the initrd and the device tree above .bss, not on it
    tools/arm64_image.py initrd INITRD [-m 'FILE ARGV0 [ARG...]']...
        the initrd holding the boot modules (user programs), each stripped
        of its symbols, with its command line (its argv): the format
        arch/aarch64/initrd.c reads (docs/user.md, "Boot modules")

The initrd format, little-endian, every part starting 8-byte aligned:

    header   "QMODULES", u32 version (1), u32 count
    count x  u32 cmdline_size (with its NUL), u32 reserved (0), u64 file_size,
             the command line and its NUL, zeros up to a multiple of 8,
             the file, zeros up to a multiple of 8

and nothing after the last module.
"""

import argparse
import os
import struct
import subprocess
import sys
import tempfile

IMAGE_MAGIC = b"ARM\x64"
IMAGE_HEADER = 64
INITRD_MAGIC = b"QMODULES"
INITRD_VERSION = 1
CROSS = "aarch64-linux-gnu-"


class BootFileError(Exception):
    """A boot file could not be made; the message says why."""


def _write_atomically(path, data):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, path)


def image_bytes(raw):
    """The Image from objcopy's raw binary: checked, padded to image_size."""
    if len(raw) < IMAGE_HEADER or raw[56:60] != IMAGE_MAGIC:
        raise BootFileError("the kernel's first bytes are not an arm64 Image header "
                            "(boot/aarch64/entry.S, section .image_header)")
    image_size = struct.unpack_from("<Q", raw, 16)[0]
    if image_size < len(raw):
        raise BootFileError(f"the header's image_size {image_size} is smaller than the "
                            f"{len(raw)} bytes the kernel loads")
    return raw + bytes(image_size - len(raw))


def make_image(elf, out, objcopy=CROSS + "objcopy"):
    with tempfile.TemporaryDirectory() as d:
        raw = os.path.join(d, "raw")
        r = subprocess.run([objcopy, "-O", "binary", elf, raw],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode:
            raise BootFileError(f"{objcopy} -O binary {elf} failed: {r.stdout.strip()}")
        with open(raw, "rb") as f:
            data = image_bytes(f.read())
    _write_atomically(out, data)


def _pad8(b):
    return b + bytes(-len(b) % 8)


def pack_initrd(modules):
    """modules: (file bytes, command line) pairs -> the initrd's bytes."""
    out = [INITRD_MAGIC, struct.pack("<II", INITRD_VERSION, len(modules))]
    for data, cmdline in modules:
        c = cmdline.encode() + b"\0"
        out += [struct.pack("<IIQ", len(c), 0, len(data)), _pad8(c), _pad8(data)]
    return b"".join(out)


def parse_spec(spec):
    """'FILE ARGV0 [ARG...]' -> (FILE, 'ARGV0 ARG...'), as tools/mkiso.sh reads -m."""
    words = spec.split()
    if len(words) < 2:
        raise BootFileError(f"module '{spec}': give the FILE, then its ARGV0 (and arguments)")
    if not os.path.isfile(words[0]):
        raise BootFileError(f"module '{spec}': {words[0]} not found (build it first)")
    return words[0], " ".join(words[1:])


def make_initrd(specs, out, strip=CROSS + "strip"):
    modules = []
    with tempfile.TemporaryDirectory() as d:
        for i, spec in enumerate(specs):
            path, cmdline = parse_spec(spec)
            stripped = os.path.join(d, str(i))
            r = subprocess.run([strip, "--strip-all", "-o", stripped, path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            if r.returncode:
                raise BootFileError(f"{strip} {path} failed: {r.stdout.strip()}")
            with open(stripped, "rb") as f:
                modules.append((f.read(), cmdline))
    _write_atomically(out, pack_initrd(modules))


def main(argv=None):
    p = argparse.ArgumentParser(description="Make an AArch64 kernel's boot files.")
    sub = p.add_subparsers(dest="what", required=True)
    i = sub.add_parser("image", help="the arm64 Image from the kernel's ELF")
    i.add_argument("elf")
    i.add_argument("out")
    r = sub.add_parser("initrd", help="the initrd of boot modules")
    r.add_argument("out")
    r.add_argument("-m", "--module", action="append", default=[],
                   metavar="'FILE ARGV0 [ARG...]'")
    args = p.parse_args(argv)
    try:
        if args.what == "image":
            make_image(args.elf, args.out)
        else:
            make_initrd(args.module, args.out)
    except BootFileError as e:
        print(f"arm64_image: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
