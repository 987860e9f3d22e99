"""Flattened device tree blobs, as the tools need them: QEMU's own dumped
(-machine dumpdtb), packed so QEMU takes them back with -dtb, and edited in
place (a property's value replaced by one of the same length).

QEMU reserves 1 MiB for the tree it builds and dumps all of it; given such
a blob back with -dtb for an ELF kernel (ours), it finds no room for it
below the kernel (QEMU virt puts the tree at the start of RAM, 2 MiB under
our image) and the kernel finds no tree.  packed() cuts totalsize to the
end of the last block.
"""

import struct
import subprocess

MAGIC = 0xd00dfeed
BEGIN_NODE, END_NODE, PROP, NOP, END = 1, 2, 3, 4, 9


def fields(blob):
    """The header's ten words, by name."""
    names = ("magic", "totalsize", "off_dt_struct", "off_dt_strings", "off_mem_rsvmap",
             "version", "last_comp_version", "boot_cpuid_phys", "size_dt_strings",
             "size_dt_struct")
    return dict(zip(names, struct.unpack(">10I", blob[:40])))


def packed(blob):
    """The blob with totalsize cut to the end of its last block."""
    h = fields(blob)
    if h["magic"] != MAGIC:
        raise ValueError("not a flattened device tree (bad magic)")
    end = max(h["off_dt_strings"] + h["size_dt_strings"],
              h["off_dt_struct"] + h["size_dt_struct"], h["off_mem_rsvmap"] + 16)
    out = bytearray(blob[:end])
    struct.pack_into(">I", out, 4, end)
    return bytes(out)


def properties(blob):
    """Yields (node path, property name, value offset, value length)."""
    h = fields(blob)
    s, strings = h["off_dt_struct"], h["off_dt_strings"]
    off, end, path = s, s + h["size_dt_struct"], []
    while off < end:
        tok = struct.unpack_from(">I", blob, off)[0]
        off += 4
        if tok == BEGIN_NODE:
            name_end = blob.index(b"\0", off)
            path.append(blob[off:name_end].decode())
            off = (name_end + 4) & ~3
        elif tok == END_NODE:
            path.pop()
        elif tok == PROP:
            length, nameoff = struct.unpack_from(">II", blob, off)
            name_at = strings + nameoff
            name = blob[name_at:blob.index(b"\0", name_at)].decode()
            yield "/" + "/".join(p for p in path if p), name, off + 8, length
            off = (off + 8 + length + 3) & ~3
        elif tok == END:
            return


def set_prop(blob, path, name, value):
    """A copy of blob with property `name` of node `path` set to value
    (bytes of its old length)."""
    for p, n, at, length in properties(blob):
        if p == path and n == name:
            if len(value) != length:
                raise ValueError(f"{path}:{name} is {length} bytes, not {len(value)}")
            return blob[:at] + value + blob[at + length:]
    raise KeyError(f"no property {name} in {path}")


def get_prop(blob, path, name):
    for p, n, at, length in properties(blob):
        if p == path and n == name:
            return blob[at:at + length]
    raise KeyError(f"no property {name} in {path}")


def cells(*values):
    """Big-endian 32-bit cells."""
    return b"".join(struct.pack(">I", v) for v in values)


def qemu_virt(smp=2, mem="128M"):
    """QEMU virt's own tree (GICv3, as tools/run.py boots it), packed."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "virt.dtb")
        subprocess.run(["qemu-system-aarch64", "-M", f"virt,gic-version=3,dumpdtb={path}",
                        "-cpu", "cortex-a72", "-smp", str(smp), "-m", mem, "-display", "none"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        with open(path, "rb") as f:
            return packed(f.read())
