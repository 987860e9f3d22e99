/*
 * The ELF loader's checks (elf.h).  An executable is a header, a table of
 * program headers, and the bytes they point at; the kernel needs only the
 * PT_LOAD entries (what to map where, with which protection) and the
 * entry point.  Every field is read with an explicit size from a checked
 * offset, and every sum that could overflow is checked as a difference.
 * The first thing wrong ends the parse with a sentence naming it.
 */
#include "user/elf.h"
#include "syscall.h"
#include "unaligned.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define EHDR_SIZE	64
#define PHDR_SIZE	56
#define MAX_PHNUM	64
#define ELF_PAGE	4096ULL

/* e_ident and the header's fields (the ELF-64 object file format). */
#define EI_CLASS	4
#define EI_DATA		5
#define EI_VERSION	6
#define ELFCLASS64	2
#define ELFDATA2LSB	1
#define EV_CURRENT	1
#define ET_EXEC		2
#define ET_DYN		3
#define E_TYPE		16
#define E_MACHINE	18
#define E_VERSION	20
#define E_ENTRY		24
#define E_PHOFF		32
#define E_EHSIZE	52
#define E_PHENTSIZE	54
#define E_PHNUM		56

#define PT_LOAD		1
#define PT_DYNAMIC	2
#define PT_INTERP	3
#define PT_TLS		7
#define PF_X		1
#define PF_W		2
#define PF_R		4
#define P_TYPE		0
#define P_FLAGS		4
#define P_OFFSET	8
#define P_VADDR		16
#define P_FILESZ	32
#define P_MEMSZ		40

static int refuse(char *why, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int refuse(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_header(const u8 *e, size_t size, u16 machine, char *why, size_t len)
{
	static const u8 magic[4] = { 0x7f, 'E', 'L', 'F' };
	u16 type;

	if (size < EHDR_SIZE)
		return refuse(why, len, "%zu bytes: too short for an ELF header (64)", size);
	if (memcmp(e, magic, sizeof(magic)))
		return refuse(why, len, "not an ELF file (no \\x7fELF magic)");
	if (e[EI_CLASS] != ELFCLASS64 || e[EI_DATA] != ELFDATA2LSB || e[EI_VERSION] != EV_CURRENT)
		return refuse(why, len, "not a little-endian ELF64 file of version 1 "
			      "(class %u, data %u, version %u)", e[EI_CLASS], e[EI_DATA],
			      e[EI_VERSION]);
	type = get_unaligned_le16(e + E_TYPE);
	if (type == ET_DYN)
		return refuse(why, len, "a position-independent executable (ET_DYN): "
			      "programs are linked static, not PIE, at their address (user/user.ld)");
	if (type != ET_EXEC)
		return refuse(why, len, "ELF type %u is not an executable (ET_EXEC)", type);
	if (get_unaligned_le16(e + E_MACHINE) != machine)
		return refuse(why, len, "built for machine %u, not this one (%u)",
			      get_unaligned_le16(e + E_MACHINE), machine);
	if (get_unaligned_le32(e + E_VERSION) != EV_CURRENT)
		return refuse(why, len, "ELF version %u (expected 1)",
			      get_unaligned_le32(e + E_VERSION));
	if (get_unaligned_le16(e + E_EHSIZE) < EHDR_SIZE)
		return refuse(why, len, "header size %u is below 64",
			      get_unaligned_le16(e + E_EHSIZE));
	return 0;
}

static int prot_of(u32 flags)
{
	return (flags & PF_R ? SYS_PROT_READ : 0) | (flags & PF_W ? SYS_PROT_WRITE : 0) |
	       (flags & PF_X ? SYS_PROT_EXEC : 0);
}

/* One PT_LOAD entry, checked on its own; appended to out. */
static int add_segment(const u8 *ph, int i, size_t size, u64 lo, u64 hi,
		       struct elf_image *out, char *why, size_t len)
{
	u64 off = get_unaligned_le64(ph + P_OFFSET), vaddr = get_unaligned_le64(ph + P_VADDR);
	u64 filesz = get_unaligned_le64(ph + P_FILESZ), memsz = get_unaligned_le64(ph + P_MEMSZ);
	int prot = prot_of(get_unaligned_le32(ph + P_FLAGS));
	struct elf_segment *s;

	if (!memsz)
		return 0;	/* nothing to map */
	if (filesz > memsz)
		return refuse(why, len, "segment %d: %#llx bytes in the file but only %#llx in "
			      "memory", i, (unsigned long long)filesz, (unsigned long long)memsz);
	if (off > size || filesz > size - off)
		return refuse(why, len, "segment %d: bytes %#llx+%#llx lie beyond the file's "
			      "end (%#zx)", i, (unsigned long long)off,
			      (unsigned long long)filesz, size);
	if (vaddr < lo || vaddr > hi || memsz > hi - vaddr)
		return refuse(why, len, "segment %d: %#llx+%#llx is outside user space "
			      "[%#llx, %#llx)", i, (unsigned long long)vaddr,
			      (unsigned long long)memsz, (unsigned long long)lo,
			      (unsigned long long)hi);
	if (!(prot & SYS_PROT_READ))
		return refuse(why, len, "segment %d is not readable", i);
	if ((prot & SYS_PROT_WRITE) && (prot & SYS_PROT_EXEC))
		return refuse(why, len, "segment %d is writable and executable: user memory "
			      "never is both", i);
	if (out->nsegs == ELF_MAX_SEGMENTS)
		return refuse(why, len, "more than %d loadable segments", ELF_MAX_SEGMENTS);
	s = &out->segs[out->nsegs++];
	s->vaddr = vaddr;
	s->memsz = memsz;
	s->offset = off;
	s->filesz = filesz;
	s->prot = prot;
	return 0;
}

/* Pages are mapped with one protection each: no two segments may share one. */
static int check_overlaps(const struct elf_image *img, char *why, size_t len)
{
	u64 total = 0;

	for (int i = 0; i < img->nsegs; i++) {
		const struct elf_segment *a = &img->segs[i];
		u64 a0 = a->vaddr & ~(ELF_PAGE - 1), a1 = a->vaddr + a->memsz;

		total += a->memsz;	/* each below 2^47: no overflow */
		for (int j = 0; j < i; j++) {
			const struct elf_segment *b = &img->segs[j];
			u64 b0 = b->vaddr & ~(ELF_PAGE - 1), b1 = b->vaddr + b->memsz;

			if (a0 < b1 && b0 < a1)
				return refuse(why, len, "segments at %#llx and %#llx share a page "
					      "(each page has one protection)",
					      (unsigned long long)b->vaddr,
					      (unsigned long long)a->vaddr);
		}
	}
	if (total > ELF_MAX_MEMSZ)
		return refuse(why, len, "segments of %llu MiB in all (at most %lu)",
			      (unsigned long long)(total >> 20), ELF_MAX_MEMSZ >> 20);
	return 0;
}

static int check_entry(const struct elf_image *img, char *why, size_t len)
{
	for (int i = 0; i < img->nsegs; i++) {
		const struct elf_segment *s = &img->segs[i];

		if ((s->prot & SYS_PROT_EXEC) && img->entry >= s->vaddr &&
		    img->entry - s->vaddr < s->memsz)
			return 0;
	}
	return refuse(why, len, "entry point %#llx is not in an executable segment",
		      (unsigned long long)img->entry);
}

int elf_parse(const void *image, size_t size, u16 machine, u64 lo, u64 hi,
	      struct elf_image *out, char *why, size_t len)
{
	const u8 *e = image;
	u64 phoff;
	u16 phnum, phentsize;

	memset(out, 0, sizeof(*out));
	if (check_header(e, size, machine, why, len))
		return -1;
	phoff = get_unaligned_le64(e + E_PHOFF);
	phnum = get_unaligned_le16(e + E_PHNUM);
	phentsize = get_unaligned_le16(e + E_PHENTSIZE);
	if (phentsize != PHDR_SIZE)
		return refuse(why, len, "program headers of %u bytes (expected %d)", phentsize,
			      PHDR_SIZE);
	if (!phnum || phnum > MAX_PHNUM)
		return refuse(why, len, "%u program headers (expected 1 to %d)", phnum, MAX_PHNUM);
	if (phoff > size || (u64)phnum * PHDR_SIZE > size - phoff)
		return refuse(why, len, "program headers at %#llx run past the file's end (%#zx)",
			      (unsigned long long)phoff, size);
	for (int i = 0; i < phnum; i++) {
		const u8 *ph = e + phoff + (size_t)i * PHDR_SIZE;
		u32 type = get_unaligned_le32(ph + P_TYPE);

		if (type == PT_INTERP || type == PT_DYNAMIC)
			return refuse(why, len, "dynamically linked (program header %d asks for "
				      "%s): programs are linked static", i,
				      type == PT_INTERP ? "an interpreter" : "dynamic linking");
		if (type == PT_TLS)
			return refuse(why, len, "has thread-local storage (PT_TLS), which the "
				      "runtime does not set up");
		if (type == PT_LOAD && add_segment(ph, i, size, lo, hi, out, why, len))
			return -1;
	}
	if (!out->nsegs)
		return refuse(why, len, "nothing to load (no PT_LOAD segment)");
	out->entry = get_unaligned_le64(e + E_ENTRY);
	if (check_overlaps(out, why, len) || check_entry(out, why, len))
		return -1;
	return 0;
}
