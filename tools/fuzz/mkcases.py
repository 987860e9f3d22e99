#!/usr/bin/env python3
"""The hostile boot data of issue 19, one regression case each.

    tools/fuzz/mkcases.py      (re)writes tools/fuzz/regress/TARGET/NAME.bin
                               and NAME.expect

Each case is built here, readable, rather than kept only as bytes.  The
.expect file lists text the console (the kernel's messages, and the
harness's "harness:" summary) must show when tools/fuzz/fuzz.py replay
runs the target on the case with FUZZ_VERBOSE=1; the target's own
properties (tools/fuzz/fuzz_TARGET.c) are checked too.
"""

import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fuzz import NR_CPUS  # noqa: E402  (the kernel's, kernel/param.h)

FUZZ = os.path.dirname(os.path.abspath(__file__))
REGRESS = os.path.join(FUZZ, "regress")
CASES = []


def case(target, name, data, *expect):
    CASES.append((target, name, bytes(data), expect))


# ------------------------------------------------------------ multiboot2

def tag(type_, body, size=None):
    """A tag: type, size (its true size unless given), body, padded to 8."""
    t = struct.pack("<II", type_, 8 + len(body) if size is None else size) + body
    return t + bytes(-len(t) % 8)


def mmap(entries, entry_size=24):
    body = struct.pack("<II", entry_size, 0)
    for base, length, kind in entries:
        body += struct.pack("<QQII", base, length, kind, 0)
    return tag(6, body)


def info(*tags, end=True, total=None):
    body = b"".join(tags) + (tag(0, b"") if end else b"")
    return struct.pack("<II", 8 + len(body) if total is None else total, 0) + body


RAM = [(0, 0x9fc00, 1), (0x100000, 0x7ee0000, 1)]
CMDLINE = tag(1, b"rcu_cpu_stall_timeout=30\0")

case("multiboot", "tag-size-0", info(CMDLINE, struct.pack("<II", 1, 0) + bytes(8), end=False),
     "multiboot: tag 1 at offset 48 has size 0", "end tag not seen")
case("multiboot", "mmap-entry-size-0", info(mmap(RAM, entry_size=0)),
     "multiboot: memory map entries of 0 bytes (at least 24 expected): ignoring the map",
     "harness: 0 regions")
case("multiboot", "cmdline-tag-shorter-than-its-header",
     info(struct.pack("<II", 1, 4) + b"abcd"), "multiboot: tag 1 at offset 8 has size 4")
case("multiboot", "tag-past-total-size",
     info(tag(1, b"hello\0", size=400)), "has size 400 (", "ending the walk there")
case("multiboot", "total-size-below-header", struct.pack("<II", 4, 0) + CMDLINE,
     "multiboot: boot information of 4 bytes")
case("multiboot", "no-end-tag", info(CMDLINE, end=False), "multiboot: no end tag")
case("multiboot", "more-than-32-regions",
     info(mmap([(0x100000 * (i + 1), 0x80000, 1) for i in range(40)])),
     "multiboot: 8 available memory regions beyond the first 32", "harness: 32 regions (8 dropped)")
case("multiboot", "overlapping-regions-counted-once",
     info(mmap([(0x100000, 0x80000, 1), (0x180000, 0x100000, 1), (0x200000, 0x100000, 1),
                (0x180000, 0x40000, 1)])),
     "mm: 1 MiB free for the kernel (384 pages)",
     "mm: the memory map lists 192 pages more than once: each counted once")
case("multiboot", "region-wraps-around",
     info(mmap([(0xfffffffffffff000, 0x2000, 1), (0x100000, 0x180000, 1)])),
     "wraps around: clipped", "mm: 1 MiB free for the kernel (256 pages)")
# The harness's kernel image is [1 MiB, 1.5 MiB) (tools/fuzz/fuzz.py).
case("multiboot", "memory-map-leaves-out-the-kernel",
     info(mmap([(0, 0x9fc00, 1), (0x140000, 0x7ec0000, 1)])),
     "mm: the memory map leaves out part of the kernel image (0x100000-0x180000)")
case("multiboot", "memory-map-split-around-the-kernel",
     info(mmap([(0x100000, 0x40000, 1), (0x140000, 0x100000, 1)])),
     "mm: 0 MiB free for the kernel (192 pages)")
case("multiboot", "a-map-of-4-gib-is-checked-whole",
     info(mmap([(0x100000, 0xfff00000, 1), (0x80000000, 0x1000, 1)])),
     "mm: 4094 MiB free for the kernel (1048192 pages)",
     "mm: the memory map lists 1 pages more than once")
def module(start, end, cmdline):
    return tag(3, struct.pack("<II", start, end) + cmdline)


case("multiboot", "modules-good-and-bad",
     info(mmap(RAM), module(0x200000, 0x210000, b"user/hello a b\0"),
          module(0x300000, 0x2ff000, b"tests/user/backwards\0"),
          module(0x400000, 0x401000, b"x" * 300 + b"\0"),
          module(0x500000, 0x501000, b"no-terminator"), tag(3, b"\0\0\0\0")),
     "multiboot: module at 0x300000-0x2ff000 ignored: it ends before it starts",
     "ignored: command line longer than 255 bytes",
     "ignored: command line not terminated inside its tag",
     "multiboot: module tag of 12 bytes is shorter than its header",
     "1 modules (4 dropped), the first: user/hello a b",
     "mm: 64 KiB kept for what the boot loader loaded (1 region)")
case("multiboot", "acpi-tag-too-small-for-an-rsdp", info(tag(15, b"RSD PTR \0" + bytes(11))),
     "multiboot: ACPI tag of 28 bytes cannot hold an RSDP of 36: ignored", "RSDP none")


# ------------------------------------------------------------ ACPI

IMAGE_BASE = 0x1000


def sdt(sig, body, length=None, good_sum=True):
    t = bytearray(sig + struct.pack("<I", 36 + len(body) if length is None else length)
                  + b"\x01\x00QUIESCQUIESCNT" + bytes(12) + body)
    if good_sum:
        t[9] = (-sum(t)) & 0xff
    return bytes(t)


def lapic(apic_id, enabled=True):
    return struct.pack("<BBBBI", 0, 8, apic_id, apic_id, 1 if enabled else 0)


def x2apic(apic_id, enabled=True):
    return struct.pack("<BBHIII", 9, 16, 0, apic_id, 1 if enabled else 0, apic_id)


def madt(entries, lapic_base=0xfee00000, **kw):
    return sdt(b"APIC", struct.pack("<II", lapic_base, 1) + b"".join(entries), **kw)


def rsdp(rsdt=0, xsdt=None):
    r = bytearray(b"RSD PTR \0QUIESC" + bytes([2 if xsdt is not None else 0])
                  + struct.pack("<I", rsdt))
    r[8] = (-sum(r)) & 0xff
    if xsdt is not None:
        r += struct.pack("<IQ", 36, xsdt) + bytes(4)
        r[32] = (-sum(r)) & 0xff
    return bytes(r.ljust(36, b"\0"))


def acpi(tables, root_sig=b"RSDT", root_len=None, flags=0, xsdt=False):
    """flags, RSDP, then the root at IMAGE_BASE and the tables after it."""
    entry = 8 if xsdt else 4
    addrs, image = [], bytearray()
    start = 36 + entry * len(tables)
    for t in tables:
        addrs.append(IMAGE_BASE + start + len(image))
        image += t
    fmt = "<Q" if xsdt else "<I"
    root = sdt(root_sig, b"".join(struct.pack(fmt, a) for a in addrs), length=root_len)
    r = rsdp(xsdt=IMAGE_BASE) if xsdt else rsdp(rsdt=IMAGE_BASE)
    return bytes([flags, 0, 0, 0]) + r + root + image


QEMU_CPUS = [lapic(i) for i in range(4)]

case("acpi", "rsdt-length-below-its-header", acpi([madt(QEMU_CPUS)], root_len=20),
     "acpi: RSDT at 0x1000 has length 20 (expected 36 to", "acpi: no valid RSDT or XSDT")
case("acpi", "xsdt-length-below-its-header",
     acpi([madt(QEMU_CPUS)], root_sig=b"XSDT", root_len=8, xsdt=True),
     "acpi: XSDT at 0x1000 has length 8", "acpi: the XSDT cannot be used: trying the RSDT")
case("acpi", "madt-entry-of-length-0", acpi([madt([lapic(0), b"\x00\x00" + bytes(6)])]),
     "acpi: MADT entry at offset 52 has length 0", "harness: 1 CPUs kept of 1 found")
case("acpi", "madt-entry-past-the-table", acpi([madt([lapic(0), b"\x00\xc8" + bytes(6)])]),
     "acpi: MADT entry at offset 52 has length 200 (8 bytes left)")
case("acpi", "madt-entry-too-short-for-its-fields",
     acpi([madt([lapic(0), b"\x00\x04\x01\x01", b"\x09\x08" + bytes(6)])]),
     "acpi: 2 MADT CPU entries are too short for their fields: ignored")
case("acpi", "x2apic-cpus-reachable-and-not",
     acpi([madt([lapic(0), x2apic(1), x2apic(2), x2apic(300), x2apic(0xffffffff)])]),
     "acpi: 2 CPUs have x2APIC IDs the xAPIC cannot reach (255 and up; the first: 300)",
     "harness: 3 CPUs kept of 3 found")
case("acpi", "x2apic-only-firmware", acpi([madt([x2apic(i) for i in range(4)])]),
     "harness: 4 CPUs kept of 4 found")
case("acpi", "more-cpus-than-nr-cpus", acpi([madt([lapic(i) for i in range(NR_CPUS + 4)])]),
     f"smp: firmware lists {NR_CPUS + 4} CPUs, this kernel supports NR_CPUS={NR_CPUS}",
     f"harness: {NR_CPUS} CPUs kept of {NR_CPUS + 4} found")
case("acpi", "apic-id-listed-twice", acpi([madt([lapic(0), lapic(1), lapic(1), x2apic(0)])]),
     "acpi: 2 MADT CPU entries repeat an APIC ID already listed",
     "harness: 2 CPUs kept of 2 found")
case("acpi", "apic-id-255-is-broadcast", acpi([madt([lapic(0), lapic(255)])]),
     "cannot reach", "harness: 1 CPUs kept of 1 found")
case("acpi", "madt-shorter-than-its-header",
     acpi([sdt(b"APIC", struct.pack("<I", 0xfee00000))]),
     "acpi: MADT of 40 bytes is shorter than its header")
case("acpi", "madt-length-below-a-table-header", acpi([madt([], length=30)]),
     "acpi: APIC at 0x1028 has length 30 (expected 36 to", "acpi: no MADT")
case("acpi", "madt-bad-checksum", acpi([madt(QEMU_CPUS, good_sum=False)]),
     "acpi: APIC at 0x1028 has a bad checksum: ignored", "acpi: no MADT")
case("acpi", "table-address-outside-memory",
     bytes(4) + rsdp(rsdt=0x7fe0000), "acpi: no valid RSDT or XSDT")
case("acpi", "acpi2-rsdp-cut-to-20-bytes", bytes(4) + rsdp(xsdt=IMAGE_BASE)[:20],
     "acpi: ACPI 2.0 RSDP without a valid XSDT part: using the RSDT")
# The harness's memory map is QEMU's with 128 MiB: 0 to 0x9fc00, 1 MiB to 0x7fe0000.
case("acpi", "madt-lapic-address-in-the-kernel-image", acpi([madt(QEMU_CPUS, lapic_base=0x100000)]),
     "acpi: the MADT's local APIC address 0x100000 is RAM in the memory map: using the "
     "architectural 0xfee00000", "local APIC at 0xfee00000")
case("acpi", "madt-lapic-address-not-page-aligned",
     acpi([madt(QEMU_CPUS, lapic_base=0xfee00010)]),
     "acpi: the MADT's local APIC address 0xfee00010 is not page-aligned")
case("acpi", "madt-lapic-address-0", acpi([madt(QEMU_CPUS, lapic_base=0)]),
     "acpi: the MADT's local APIC address 0 is in the first MiB")
case("acpi", "madt-lapic-address-elsewhere-outside-ram",
     acpi([madt(QEMU_CPUS, lapic_base=0xfec01000)]), "local APIC at 0xfec01000")
def ioapic(apic_id, base, gsi_base=0, length=12):
    return struct.pack("<BBBBII", 1, length, apic_id, 0, base, gsi_base)[:length]


def override(irq, gsi, flags=0, bus=0, length=10):
    return struct.pack("<BBBBIH", 2, length, bus, irq, gsi, flags)[:length]


QEMU_IRQS = [ioapic(0, 0xfec00000), override(0, 2), override(5, 5, 0xd), override(9, 9, 0xd),
             override(10, 10, 0xd), override(11, 11, 0xd)]

case("acpi", "ioapic-and-overrides-as-qemu-has-them", acpi([madt(QEMU_CPUS + QEMU_IRQS)]),
     "1 I/O APICs kept (the first at 0xfec00000, GSI base 0), 0 refused; ISA IRQ 0 on GSI 2, "
     "IRQ 4 on GSI 4, 0 overrides refused")
case("acpi", "ioapic-in-ram", acpi([madt(QEMU_CPUS + [ioapic(0, 0x200000)])]),
     "acpi: the MADT's I/O APIC 0 at 0x200000 is RAM in the memory map: not used",
     "0 I/O APICs kept")
case("acpi", "ioapic-not-page-aligned", acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00010)])]),
     "acpi: the MADT's I/O APIC 0 at 0xfec00010 is not page-aligned: not used")
case("acpi", "ioapic-entry-too-short", acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000, length=8)])]),
     "acpi: a MADT I/O APIC entry of 8 bytes is too short for its fields: ignored")
case("acpi", "more-ioapics-than-kept",
     acpi([madt(QEMU_CPUS + [ioapic(i, 0xfec00000 + 0x1000 * i, 24 * i) for i in range(10)])]),
     "is one more than the kernel keeps (MAX_IOAPICS): not used", "8 I/O APICs kept")
case("acpi", "override-of-irq-16", acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000), override(16, 4)])]),
     "acpi: the MADT's override of bus 0 IRQ 16 (to GSI 4, flags 0) names an ISA interrupt above "
     "15: ignored", "1 overrides refused")
case("acpi", "override-of-another-bus",
     acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000), override(4, 9, bus=1)])]),
     "is not for the ISA bus: ignored", "IRQ 4 on GSI 4,")
case("acpi", "override-with-reserved-flags",
     acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000), override(4, 9, 0x2)])]),
     "has reserved polarity or trigger bits: ignored", "IRQ 4 on GSI 4,")
case("acpi", "override-repeated",
     acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000), override(4, 9, 0xd), override(4, 12)])]),
     "repeats an interrupt already overridden (the first one counts): ignored",
     "IRQ 4 on GSI 9 level")
case("acpi", "override-entry-too-short",
     acpi([madt(QEMU_CPUS + [ioapic(0, 0xfec00000), override(4, 9, length=6)])]),
     "acpi: a MADT override entry of 6 bytes is too short for its fields: ignored")
case("acpi", "many-refusals-counted", acpi([madt(QEMU_CPUS + [override(16, 1)] * 20)]),
     "acpi: 12 more I/O APIC and override entries refused (not listed)")
case("acpi", "no-enabled-cpu", acpi([madt([lapic(0, enabled=False)])]),
     "acpi: the MADT lists no enabled CPU we can use")


# ------------------------------------------------------------ device tree

def fdt(struct_block, strings, version=17, total=None, off_struct=None, off_strings=None,
        size_struct=None, size_strings=None):
    off_rsv = 40
    rsv = bytes(16)
    o_struct = off_rsv + len(rsv) if off_struct is None else off_struct
    o_strings = off_rsv + len(rsv) + len(struct_block) if off_strings is None else off_strings
    body = rsv + struct_block + strings
    t = 40 + len(body) if total is None else total
    head = struct.pack(">10I", 0xd00dfeed, t, o_struct, o_strings, off_rsv, version, 16, 0,
                       len(strings) if size_strings is None else size_strings,
                       len(struct_block) if size_struct is None else size_struct)
    return head + body


class Tree:
    """Builds a structure block and its strings."""

    def __init__(self):
        self.s = bytearray()
        self.strings = bytearray()
        self.names = {}

    def tok(self, v):
        self.s += struct.pack(">I", v)

    def begin(self, name):
        self.tok(1)
        n = name.encode() + b"\0"
        self.s += n + bytes(-len(n) % 4)

    def end(self):
        self.tok(2)

    def prop(self, name, value, nameoff=None, length=None):
        if name not in self.names:
            self.names[name] = len(self.strings)
            self.strings += name.encode() + b"\0"
        self.tok(3)
        self.s += struct.pack(">II", len(value) if length is None else length,
                              self.names[name] if nameoff is None else nameoff)
        self.s += value + bytes(-len(value) % 4)

    def u32(self, name, *vals):
        self.prop(name, b"".join(struct.pack(">I", v) for v in vals))

    def blob(self, **kw):
        return fdt(bytes(self.s) + struct.pack(">I", 9), bytes(self.strings), **kw)


def virt(ncpus=2, cpu_regs=None, mem=(0x40000000, 0x8000000), extra=None):
    t = Tree()
    t.begin("")
    t.u32("#address-cells", 2)
    t.u32("#size-cells", 2)
    t.begin("chosen")
    t.prop("bootargs", b"rcu_cpu_stall_timeout=30\0")
    t.end()
    t.begin("memory@40000000")
    t.prop("device_type", b"memory\0")
    t.u32("reg", mem[0] >> 32, mem[0] & 0xffffffff, mem[1] >> 32, mem[1] & 0xffffffff)
    t.end()
    t.begin("cpus")
    t.u32("#address-cells", 1)
    t.u32("#size-cells", 0)
    for i, reg in enumerate(cpu_regs if cpu_regs is not None else range(ncpus)):
        t.begin(f"cpu@{i}")
        t.prop("device_type", b"cpu\0")
        t.u32("reg", reg)
        t.end()
    t.end()
    if extra:
        extra(t)
    t.end()
    return t


def bad_prop_length(t):
    t.begin("x")
    t.prop("reg", b"", length=0x10000)
    t.end()


def bad_nameoff(t):
    t.begin("x")
    t.prop("reg", b"abcd", nameoff=0x7fffffff)
    t.end()


def deep(t):
    for i in range(10):
        t.begin(f"n{i}")
    for i in range(10):
        t.end()


def unterminated_strings(t):
    # device_type and compatible without their NUL, right before the end.
    t.begin("y")
    t.prop("compatible", b"arm,pl011")
    t.prop("device_type", b"cpux")
    t.end()


case("fdt", "qemu-like-tree", virt(4).blob(), "harness: 4 CPUs kept of 4 found, RAM 0x40000000")
case("fdt", "totalsize-below-its-header", virt().blob(total=20),
     "refused: its totalsize is not between the header's size and 2 MiB")
case("fdt", "version-16", virt().blob(version=16), "refused: its version is older than 17")
case("fdt", "structure-block-outside-the-blob", virt().blob(off_struct=0x100000),
     "refused: its structure block is not inside it")
case("fdt", "structure-size-past-the-blob", virt().blob(size_struct=0xfffffff0),
     "refused: its structure block is not inside it")
case("fdt", "strings-block-outside-the-blob", virt().blob(size_strings=0x7fffffff),
     "refused: its strings block is not inside it")
case("fdt", "property-length-past-the-block", virt(extra=bad_prop_length).blob(),
     "fdt: a property's length runs past the end")
case("fdt", "property-name-outside-strings", virt(extra=bad_nameoff).blob(),
     "fdt: a property name is outside the strings block")
case("fdt", "node-name-without-its-nul",
     fdt(struct.pack(">I", 1) + b"abcdefgh", b"x\0"), "fdt: a node name runs past the end")
case("fdt", "nodes-nested-too-deep", virt(extra=deep).blob(), "fdt: nodes nested too deep")
case("fdt", "more-cpus-than-nr-cpus", virt(NR_CPUS + 4).blob(),
     f"harness: {NR_CPUS} CPUs kept of {NR_CPUS + 4} found")
case("fdt", "cpu-listed-twice", virt(cpu_regs=[0, 1, 1, 2]).blob(),
     "fdt: 1 CPU nodes repeat an MPIDR", "harness: 3 CPUs kept of 3 found")
case("fdt", "memory-of-size-0", virt(mem=(0x40000000, 0)).blob(),
     "is not a memory range: ignored", "RAM 0x40000000 + 0x8000000")
case("fdt", "memory-wraps-around", virt(mem=(0xffffffff00000000, 0x200000000)).blob(),
     "is not a memory range: ignored")
case("fdt", "strings-without-nul-at-the-end", virt(extra=unterminated_strings).blob(),
     "harness: 2 CPUs kept of 2 found")
def devices(uart=0x9000000, gicd=0x8000000, gicr=(0x80a0000, 0xf60000), irq=(0, 1, 4)):
    """QEMU virt's UART and GICv3 nodes, at the addresses given; irq: the
    UART's interrupts cells (virt's SPI 1, level high; None: no property)."""
    def add(t):
        t.begin(f"pl011@{uart:x}")
        t.prop("compatible", b"arm,pl011\0arm,primecell\0")
        t.u32("reg", uart >> 32, uart & 0xffffffff, 0, 0x1000)
        if irq is not None:
            t.u32("interrupts", *irq)
        t.end()
        t.begin(f"intc@{gicd:x}")
        t.prop("compatible", b"arm,gic-v3\0")
        t.u32("reg", gicd >> 32, gicd & 0xffffffff, 0, 0x10000,
              gicr[0] >> 32, gicr[0] & 0xffffffff, gicr[1] >> 32, gicr[1] & 0xffffffff)
        t.end()
    return add


case("fdt", "devices-where-qemu-virt-has-them", virt(4, extra=devices()).blob(),
     "harness: 4 CPUs kept of 4 found", "UART 0x9000000 INTID 33 level, GIC 0x8000000 0x80a0000")
case("fdt", "uart-interrupt-spi-1-level", virt(extra=devices()).blob(),
     "UART 0x9000000 INTID 33 level")
case("fdt", "uart-interrupt-edge", virt(extra=devices(irq=(0, 7, 1))).blob(),
     "UART 0x9000000 INTID 39 edge")
case("fdt", "uart-without-interrupts", virt(extra=devices(irq=None)).blob(),
     "fdt: /pl011@9000000 has no interrupts property: console input polled",
     "UART 0x9000000 INTID 0")
case("fdt", "uart-interrupt-a-ppi", virt(extra=devices(irq=(1, 14, 4))).blob(),
     "fdt: /pl011@9000000: interrupt <1 14 0x4> is not an SPI the GIC has: console input polled",
     "INTID 0")
case("fdt", "uart-interrupt-beyond-the-gic", virt(extra=devices(irq=(0, 988, 4))).blob(),
     "is not an SPI the GIC has", "INTID 0")
case("fdt", "uart-interrupt-too-short", virt(extra=devices(irq=(0, 1))).blob(),
     "fdt: /pl011@9000000: interrupts is 8 bytes, not a GIC specifier (12): console input polled",
     "INTID 0")
case("fdt", "uart-outside-the-device-window", virt(extra=devices(uart=0x50000000)).blob(),
     "fdt: the UART at 0x50000000 (0x1000 bytes) is outside the device window the kernel "
     "maps (0x200000 to 0x40000000): refused, using QEMU virt's at 0x9000000",
     "UART 0x9000000")
case("fdt", "uart-in-page-0", virt(extra=devices(uart=0x1000)).blob(),
     "fdt: the UART at 0x1000 (0x1000 bytes) is outside the device window")
case("fdt", "uart-across-the-window-end", virt(extra=devices(uart=0x3ffff800)).blob(),
     "fdt: the UART at 0x3ffff800 (0x1000 bytes) is outside the device window")
case("fdt", "gic-distributor-above-4-gib", virt(extra=devices(gicd=0x100000000)).blob(),
     "fdt: the GIC distributor at 0x100000000 (0x10000 bytes) is outside the device window",
     "GIC 0x8000000 0x80a0000")
case("fdt", "redistributor-region-past-the-window",
     virt(extra=devices(gicr=(0x3ff00000, 0x200000))).blob(),
     "fdt: the GIC redistributor region at 0x3ff00000 (0x200000 bytes) is outside the device "
     "window", "GIC 0x8000000 0x80a0000")
case("fdt", "redistributor-region-without-a-frame",
     virt(extra=devices(gicr=(0x80a0000, 0x10000))).blob(),
     "fdt: the GIC redistributor region at 0x80a0000 (0x10000 bytes) holds no redistributor "
     "frame: refused")
# The 124-CPU case of QEMU virt (123 frames in the first region) in small:
# the kernel's NR_CPUS keeps it from listing 124 CPUs here.
case("fdt", "more-cpus-than-redistributor-frames",
     virt(4, extra=devices(gicr=(0x80a0000, 0x40000))).blob(),
     "fdt: the GIC's first redistributor region has frames for 2 CPUs; the other 2 need its "
     "second region, which this kernel does not map: bringing up the first 2",
     "harness: 2 CPUs kept of 4 found")


def value_at_the_very_end():
    """A device_type value without its NUL as the blob's last bytes (the
    strings block comes first): a strcmp() on it reads past the blob."""
    strings = b"device_type\0"
    s = struct.pack(">I", 1) + b"\0\0\0\0" + struct.pack(">III", 3, 6, 0) + b"memory"
    off_strings = 40 + 16
    off_struct = off_strings + len(strings)
    head = struct.pack(">10I", 0xd00dfeed, off_struct + len(s), off_struct, off_strings, 40,
                       17, 16, 0, len(strings), len(s))
    return head + bytes(16) + strings + s


case("fdt", "unterminated-value-at-the-end-of-the-blob", value_at_the_very_end(),
     "fdt: the structure block ends without its end token")
case("fdt", "unknown-token", fdt(struct.pack(">II", 1, 0) + struct.pack(">I", 7), b""),
     "fdt: an unknown token at offset 8")


# ------------------------------------------------------------ ELF (kernel/user/elf.c)

USER_PROG = 0x8000400000	# lib/user_layout.h: USER_PROGRAM_BASE
PF_X, PF_W, PF_R = 1, 2, 4


def phdr(type_=1, flags=PF_R | PF_X, offset=0x1000, vaddr=USER_PROG, filesz=0x100, memsz=0x100):
    return struct.pack("<IIQQQQQQ", type_, flags, offset, vaddr, vaddr, filesz, memsz, 0x1000)


def elf(phdrs, etype=2, machine=62, entry=USER_PROG, size=0x2000, phentsize=56, magic=b"\x7fELF"):
    """An ELF64 header and program headers at offset 64, padded to size."""
    hdr = magic + bytes([2, 1, 1]) + bytes(9)
    hdr += struct.pack("<HHIQQQIHHHHHH", etype, machine, 1, entry, 64, 0, 0, 64, phentsize,
                       len(phdrs), 64, 0, 0)
    data = hdr + b"".join(phdrs)
    return data + bytes(max(0, size - len(data)))


# A program as user/user.ld lays one out: text R X, rodata R, data R W (+ .bss).
GOOD_ELF = elf([phdr(), phdr(flags=PF_R, offset=0x1200, vaddr=USER_PROG + 0x1000, filesz=0x80,
                          memsz=0x80),
                phdr(flags=PF_R | PF_W, offset=0x1400, vaddr=USER_PROG + 0x2000, filesz=0x40,
                     memsz=0x3000)])
case("elf", "a-good-program", GOOD_ELF, "accepted: 3 segments")
case("elf", "not-an-elf-file", elf([phdr()], magic=b"\x7fELG"), "not an ELF file")
case("elf", "position-independent", elf([phdr()], etype=3), "position-independent")
case("elf", "other-machine", elf([phdr()], machine=183), "built for machine 183")
case("elf", "no-program-headers", elf([]), "0 program headers")
case("elf", "program-header-size-wrong", elf([phdr()], phentsize=32), "program headers of 32 bytes")
case("elf", "segment-writable-and-executable", elf([phdr(flags=PF_R | PF_W | PF_X)]),
     "writable and executable")
case("elf", "segment-past-the-file", elf([phdr(offset=0x1f00, filesz=0x200, memsz=0x200)]),
     "lie beyond the file's end")
case("elf", "segment-offset-wraps", elf([phdr(offset=0xffffffffffffff00, filesz=0x200,
                                              memsz=0x200)]), "lie beyond the file's end")
case("elf", "segment-in-the-kernel", elf([phdr(vaddr=0x100000)], entry=0x100000),
     "outside user space")
case("elf", "segment-wraps-the-address-space", elf([phdr(vaddr=0x7ffffffff000,
                                                         memsz=0xffffffffffff0000)]),
     "outside user space")
case("elf", "more-file-than-memory", elf([phdr(filesz=0x200, memsz=0x100)]), "in the file but only")
case("elf", "two-segments-share-a-page",
     elf([phdr(), phdr(flags=PF_R | PF_W, offset=0x1100, vaddr=USER_PROG + 0x800)]),
     "share a page")
case("elf", "entry-not-executable", elf([phdr(flags=PF_R)]), "not in an executable segment")
case("elf", "dynamically-linked", elf([phdr(type_=3), phdr()]), "dynamically linked")
case("elf", "too-many-segments",
     elf([phdr(vaddr=USER_PROG + 0x1000 * i, flags=PF_R | (PF_X if i == 0 else 0))
          for i in range(9)]), "more than 8 loadable segments")
case("elf", "huge-bss", elf([phdr(), phdr(flags=PF_R | PF_W, vaddr=USER_PROG + 0x1000,
                                          memsz=1 << 40)]), "MiB in all")
case("elf", "shorter-than-a-header", GOOD_ELF[:40], "too short for an ELF header")


# ------------------------------------------------------------ monitor, command line

case("monitor", "line-longer-than-the-buffer", b"test " + b"x" * 300 + b"\n")
case("monitor", "too-many-words", b"help a b c d e f\n")
case("monitor", "unterminated-quote-and-escapes", b"test 'rcu_*\n\x1b[A\x1bOBtrace dump\n")
case("cmdline", "quoted-newline-stays-on-one-report-line", b'"bogus\nword" "x\ty"',
     "cmdline: ignoring 'bogus\\x0aword': unknown parameter",
     "cmdline: ignoring 'x\\x09y': unknown parameter")
case("cmdline", "path-only-first", b"/boot/kernel.elf test.num=3 /boot/again",
     "cmdline: ignoring '/boot/again': unknown parameter")


# ------------------------------------------------------------ initrd (AArch64's boot modules)

def initrd(modules, count=None, version=1, magic=b"QMODULES", tail=b""):
    """The format tools/arm64_image.py writes; modules: (cmdline bytes with
    or without its NUL, file bytes, cmdline_size or None, reserved, file_size or None)."""
    out = magic + struct.pack("<II", version, len(modules) if count is None else count)
    for cmd, data, csize, reserved, fsize in modules:
        out += struct.pack("<IIQ", len(cmd) if csize is None else csize, reserved,
                           len(data) if fsize is None else fsize)
        out += cmd + bytes(-len(cmd) % 8) + data + bytes(-len(data) % 8)
    return out + tail


def mod(cmd, data=b"\x7fELF", csize=None, reserved=0, fsize=None):
    return (cmd, data, csize, reserved, fsize)


case("initrd", "not-this-format", b"070701" + bytes(200),
     'initrd: 206 bytes without the "QMODULES" header')
case("initrd", "version-2", initrd([mod(b"a\0")], version=2),
     "initrd: version 2, this kernel reads version 1")
case("initrd", "cmdline-without-its-nul", initrd([mod(b"user/hello a"), mod(b"b\0")]),
     "initrd: module 0 at offset 16: its command line is not one string ending at its NUL: "
     "it and the 1 after it are ignored")
case("initrd", "cmdline-with-a-nul-inside", initrd([mod(b"a\0b\0")]),
     "its command line is not one string ending at its NUL")
case("initrd", "cmdline-size-0", initrd([mod(b"", csize=0)]),
     "its command line runs past the end")
case("initrd", "cmdline-size-past-the-end", initrd([mod(b"a\0", csize=0xffffffff)]),
     "its command line runs past the end")
case("initrd", "file-size-past-the-end", initrd([mod(b"a\0"), mod(b"b\0", fsize=2**64 - 1)]),
     "initrd: module 1 at offset 48: its file runs past the end", "harness: 1 modules kept")
case("initrd", "reserved-word-not-0", initrd([mod(b"a\0", reserved=1)]),
     "its reserved word is not 0")
case("initrd", "count-larger-than-its-modules", initrd([mod(b"a\0"), mod(b"b\0")], count=3),
     "initrd: module 2 at offset 80: its header runs past the end: it and the 0 after it",
     "harness: 2 modules kept")
case("initrd", "bytes-after-the-last-module", initrd([mod(b"a\0")], tail=b"junk"),
     "initrd: 4 bytes after its last module: ignored", "harness: 1 modules kept")
case("initrd", "more-modules-than-room", initrd([mod(b"m%d\0" % i) for i in range(20)]),
     "initrd: 20 modules, this kernel takes 16: the rest are ignored", "harness: 16 modules kept")


def main():
    seeds = os.path.join(FUZZ, "corpus", "elf")
    os.makedirs(seeds, exist_ok=True)
    with open(os.path.join(seeds, "a-good-program"), "wb") as f:
        f.write(GOOD_ELF)
    for target, name, data, expect in CASES:
        d = os.path.join(REGRESS, target)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, name + ".bin"), "wb") as f:
            f.write(data)
        with open(os.path.join(d, name + ".expect"), "w") as f:
            f.write("".join(e + "\n" for e in expect))
    print(f"mkcases: {len(CASES)} cases in {os.path.relpath(REGRESS)}")


if __name__ == "__main__":
    main()
