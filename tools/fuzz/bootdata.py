#!/usr/bin/env python3
"""Seeds for the boot-data fuzz targets, from QEMU itself.

    tools/fuzz/bootdata.py seeds      write every seed below into tools/fuzz/corpus/
    tools/fuzz/bootdata.py extract LOG NAME
                                      turn the bootdata.dump lines of a console
                                      log into corpus/multiboot/NAME and
                                      corpus/acpi/NAME-rsdt (and -xsdt)

Device trees: QEMU's own, dumped with `-machine dumpdtb` for 1, 4 and 16
CPUs, then packed (QEMU reserves 1 MiB; totalsize is cut to the end of the
strings block).  Multiboot information and ACPI tables: QEMU cannot dump
its ACPI tables, so the x86-64 kernel boots with the boot word
bootdata.dump, which hex-dumps the multiboot information GRUB gave it and
every ACPI table the RSDT lists ("bootdata: WHAT ADDR LEN", then
"bootdata: +OFFSET HEX" lines); this tool reads them back.  An ACPI seed
is laid out as tools/fuzz/fuzz_acpi.c reads its input: 4 bytes of flags,
the 36-byte RSDP, then memory from IMAGE_BASE holding the root table and
the tables it lists, each moved there with its address rewritten and its
checksum made right again.  A second seed per boot reaches the same
tables through an ACPI 2.0 RSDP and an XSDT (QEMU's pc machine gives
ACPI 1.0 only).
"""

import os
import re
import struct
import subprocess
import sys
import tempfile

FUZZ = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(FUZZ))
CORPUS = os.path.join(FUZZ, "corpus")
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
import dtb  # noqa: E402

IMAGE_BASE = 0x1000	# fuzz_acpi.c's
HEADER_SIZE = 36	# an ACPI table's header
RSDP_SIZE = 36

HEAD_RE = re.compile(r"^bootdata: (\S+) (0x[0-9a-f]+|0) (\d+)\s*$")
DATA_RE = re.compile(r"^bootdata: \+([0-9a-f]+) ([0-9a-f]*)\s*$")


def parse_dumps(lines):
    """[(what, addr, bytes)] from the console lines of one boot."""
    dumps = []
    for line in lines:
        line = line.rstrip("\r\n")
        m = HEAD_RE.match(line)
        if m:
            dumps.append([m.group(1), int(m.group(2), 16), int(m.group(3)), bytearray()])
            continue
        m = DATA_RE.match(line)
        if m and dumps:
            d = dumps[-1]
            if int(m.group(1), 16) != len(d[3]):
                raise ValueError(f"bootdata: a line of {d[0]} is missing before {line!r}")
            d[3] += bytes.fromhex(m.group(2))
    for what, _, n, data in dumps:
        if len(data) != n:
            raise ValueError(f"bootdata: {what}: {len(data)} bytes of {n}")
    return [(w, a, bytes(b)) for w, a, _, b in dumps]


def checksummed(table, at):
    """table with its byte `at` set so that all its bytes sum to 0."""
    t = bytearray(table)
    t[at] = 0
    t[at] = (-sum(t)) & 0xff
    return bytes(t)


def with_length(sig, body):
    """An ACPI table: sig, the length for header + body, checksum right."""
    t = bytearray(HEADER_SIZE) + body
    t[0:4] = sig
    struct.pack_into("<I", t, 4, len(t))
    t[8] = 1				# revision
    t[10:16] = b"QUIESC"
    return checksummed(t, 9)


def acpi_seed(rsdp, tables, xsdt):
    """The fuzz_acpi.c input: flags, RSDP, image (root first, then the tables)."""
    entry = 8 if xsdt else 4
    root_len = HEADER_SIZE + entry * len(tables)
    image = bytearray(root_len)
    addrs = []
    for t in tables:
        while len(image) % 8:
            image.append(0)
        addrs.append(IMAGE_BASE + len(image))
        image += t
    fmt = "<Q" if xsdt else "<I"
    root = with_length(b"XSDT" if xsdt else b"RSDT", b"".join(struct.pack(fmt, a) for a in addrs))
    image[0:root_len] = root
    r = bytearray(rsdp[:20].ljust(RSDP_SIZE, b"\0"))
    struct.pack_into("<I", r, 16, 0 if xsdt else IMAGE_BASE)
    if xsdt:
        r[15] = 2				# revision: ACPI 2.0
        struct.pack_into("<IQ", r, 20, RSDP_SIZE, IMAGE_BASE)
    r = bytearray(checksummed(r[:20], 8)) + r[20:]
    if xsdt:
        r = bytearray(checksummed(r, 32))
    return bytes(4) + bytes(r) + bytes(image)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)
    print(f"bootdata: {os.path.relpath(path, ROOT)} ({len(data)} bytes)")


def extract(lines, name):
    dumps = parse_dumps(lines)
    by_what = {}
    for what, addr, data in dumps:
        by_what.setdefault(what, []).append((addr, data))
    if "multiboot" not in by_what or "acpi-rsdp" not in by_what:
        raise ValueError("bootdata: no dump in this log (boot with CMDLINE=bootdata.dump)")
    write(os.path.join(CORPUS, "multiboot", name), by_what["multiboot"][0][1])
    rsdp = by_what["acpi-rsdp"][0][1]
    # The tables the RSDT lists, in its order (the dump follows it).
    tables = [data for what, _, data in dumps
              if what.startswith("acpi-") and what not in ("acpi-rsdp", "acpi-RSDT", "acpi-XSDT")]
    seen, unique = set(), []
    for t in tables:
        if t not in seen:
            seen.add(t)
            unique.append(t)
    write(os.path.join(CORPUS, "acpi", name + "-rsdt"), acpi_seed(rsdp, unique, xsdt=False))
    write(os.path.join(CORPUS, "acpi", name + "-xsdt"), acpi_seed(rsdp, unique, xsdt=True))


def dtb_seeds():
    kernel = os.path.join(ROOT, "build", "aarch64", "kernel.elf")
    for n in (1, 4, 16):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "virt.dtb")
            subprocess.run(["qemu-system-aarch64", "-M", f"virt,gic-version=3,dumpdtb={path}",
                            "-cpu", "cortex-a72", "-smp", str(n), "-m", "128M", "-display", "none",
                            "-kernel", kernel, "-append", "rcu_cpu_stall_timeout=30 demo=none"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(path, "rb") as f:
                write(os.path.join(CORPUS, "fdt", f"qemu-virt-smp{n}.dtb"), dtb.packed(f.read()))


def x86_seeds():
    kernel = os.path.join(ROOT, "build", "x86_64", "kernel.elf")
    for smp, mem in ((1, "128M"), (4, "2G"), (16, "5G")):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "console.log")
            subprocess.run([sys.executable, os.path.join(ROOT, "tools", "run.py"), "--arch", "x86_64",
                            "--kernel", kernel, "--smp", str(smp), "--mem", mem, "--mode", "test",
                            "--timeout", "300", "--log", log, "--cmdline",
                            "ktest.filter=cmdline_applies_good_words bootdata.dump"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            with open(log, errors="replace") as f:
                extract(f, f"qemu-pc-smp{smp}-{mem}")


def main(argv):
    if len(argv) == 2 and argv[1] == "seeds":
        dtb_seeds()
        x86_seeds()
        return 0
    if len(argv) == 4 and argv[1] == "extract":
        with open(argv[2], errors="replace") as f:
            extract(f, argv[3])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
