/*
 * The multiboot2 boot information GRUB hands us: command line, memory map
 * and the ACPI RSDP.  We copy what we need at once, because the memory it
 * sits in is about to become free memory.
 *
 * The information is input the kernel did not write, so no size in it is
 * believed before it is checked against the sizes around it: the total
 * against a sane maximum, each tag against what is left of the total, each
 * memory map entry against its tag.  The first tag that does not fit ends
 * the walk, with a message: a tag of size 0 would otherwise be read again
 * forever.  mb2_parse() fills the struct it is handed and reads nothing
 * else, which is what lets tools/fuzz/ run this file on the host.
 */
#include "x86.h"
#include "multiboot.h"
#include "unaligned.h"

#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_MODULE		3
#define MB2_TAG_MMAP		6
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_MMAP_AVAILABLE	1

#define MB2_INFO_HEADER		8	/* u32 total_size, u32 reserved */
#define MB2_TAG_HEADER		8	/* u32 type, u32 size */
#define MB2_TAG_ALIGN		8	/* tags start 8-byte aligned */
#define MB2_MMAP_HEADER		16	/* tag header, u32 entry_size, u32 entry_version */
#define MB2_MMAP_ENTRY		24	/* u64 base, u64 length, u32 type, u32 reserved */
#define MB2_MODULE_HEADER	16	/* tag header, u32 mod_start, u32 mod_end */
#define RSDP_V1_SIZE		20	/* ACPI 1.0's RSDP */
#define RSDP_V2_SIZE		36	/* ACPI 2.0's, with the XSDT */

static void parse_cmdline(struct mb2_info *mb, const u8 *s, u32 len)
{
	size_t n = strnlen((const char *)s, len);

	mb->cmdline_truncated = n >= sizeof(mb->cmdline);
	if (mb->cmdline_truncated)
		n = sizeof(mb->cmdline) - 1;
	memcpy(mb->cmdline, s, n);
	mb->cmdline[n] = '\0';
}

static void add_region(struct mb2_info *mb, u64 base, u64 len)
{
	u64 end = base + len;

	if (!len)
		return;
	if (end < base) {
		printk("multiboot: memory region at %#llx of %#llx bytes wraps around: "
		       "clipped at the top of the address space\n",
		       (unsigned long long)base, (unsigned long long)len);
		end = UINT64_MAX;
		if (end == base)
			return;		/* nothing left once clipped */
	}
	if (mb->nregions == MB2_MAX_REGIONS) {
		mb->regions_dropped++;
		return;
	}
	mb->regions[mb->nregions].start = base;
	mb->regions[mb->nregions].end = end;
	mb->nregions++;
}

/* tag: the whole tag, size bytes, already checked to lie inside the information. */
static void parse_mmap(struct mb2_info *mb, const u8 *tag, u32 size)
{
	u32 entry_size;

	if (size < MB2_MMAP_HEADER) {
		printk("multiboot: memory map tag of %u bytes is shorter than its header: "
		       "no memory map\n", size);
		return;
	}
	entry_size = get_unaligned_le32(tag + 8);
	if (entry_size < MB2_MMAP_ENTRY) {
		printk("multiboot: memory map entries of %u bytes (at least %d expected): "
		       "ignoring the map\n", entry_size, MB2_MMAP_ENTRY);
		return;
	}
	/* size >= MB2_MMAP_HEADER and entry_size <= what is left: no overflow. */
	for (u32 off = MB2_MMAP_HEADER; entry_size <= size - off; off += entry_size) {
		const u8 *e = tag + off;

		if (get_unaligned_le32(e + 16) == MB2_MMAP_AVAILABLE)
			add_region(mb, get_unaligned_le64(e), get_unaligned_le64(e + 8));
	}
}

/*
 * A module: where GRUB put it and its command line (the program's argv).
 * The command line is kept only whole: a truncated argv would run the
 * program with other arguments than it was given.
 */
static void parse_module(struct mb2_info *mb, const u8 *tag, u32 size)
{
	struct mb2_module *m;
	u32 start, end;
	size_t n;

	if (size < MB2_MODULE_HEADER) {
		printk("multiboot: module tag of %u bytes is shorter than its header: ignored\n",
		       size);
		mb->modules_dropped++;
		return;
	}
	start = get_unaligned_le32(tag + 8);
	end = get_unaligned_le32(tag + 12);
	n = strnlen((const char *)tag + MB2_MODULE_HEADER, size - MB2_MODULE_HEADER);
	if (n == size - MB2_MODULE_HEADER || n >= MB2_MODULE_CMDLINE || start > end ||
	    mb->nmodules == MB2_MAX_MODULES) {
		printk("multiboot: module at %#x-%#x ignored: %s\n", start, end,
		       mb->nmodules == MB2_MAX_MODULES ? "too many modules" :
		       start > end ? "it ends before it starts" :
		       n >= MB2_MODULE_CMDLINE ? "command line longer than 255 bytes" :
		       "command line not terminated inside its tag");
		mb->modules_dropped++;
		return;
	}
	m = &mb->modules[mb->nmodules++];
	m->start = start;
	m->end = end;
	memcpy(m->cmdline, tag + MB2_MODULE_HEADER, n);
	m->cmdline[n] = '\0';
}

static void parse_acpi(struct mb2_info *mb, u32 type, const u8 *tag, u32 size)
{
	u32 need = type == MB2_TAG_ACPI_NEW ? RSDP_V2_SIZE : RSDP_V1_SIZE;

	if (size - MB2_TAG_HEADER < need) {
		printk("multiboot: ACPI tag of %u bytes cannot hold an RSDP of %u: ignored\n",
		       size, need);
		return;
	}
	/* The tag holds a copy of the RSDP; prefer the ACPI 2.0 one. */
	if (!mb->rsdp || type == MB2_TAG_ACPI_NEW) {
		mb->rsdp = tag + MB2_TAG_HEADER;
		mb->rsdp_len = size - MB2_TAG_HEADER;
	}
}

void mb2_parse(struct mb2_info *mb, const void *info)
{
	const u8 *base = info;
	u32 total = get_unaligned_le32(base);
	u32 off = MB2_INFO_HEADER;

	memset(mb, 0, sizeof(*mb));
	if (total < MB2_INFO_HEADER || total > MB2_INFO_MAX) {
		printk("multiboot: boot information of %u bytes (expected %d to %u): ignoring it\n",
		       total, MB2_INFO_HEADER, MB2_INFO_MAX);
		return;
	}
	/* total <= MB2_INFO_MAX, so off + anything below stays far from overflow. */
	for (;;) {
		const u8 *tag;
		u32 type, size;

		if (off > total || total - off < MB2_TAG_HEADER) {
			printk("multiboot: no end tag in the %u bytes of boot information\n", total);
			break;
		}
		tag = base + off;
		type = get_unaligned_le32(tag);
		size = get_unaligned_le32(tag + 4);
		if (size < MB2_TAG_HEADER || size > total - off) {
			printk("multiboot: tag %u at offset %u has size %u (%u bytes left): "
			       "ending the walk there\n", type, off, size, total - off);
			break;
		}
		if (type == MB2_TAG_END) {
			mb->end_seen = true;
			break;
		}
		if (type == MB2_TAG_CMDLINE)
			parse_cmdline(mb, tag + MB2_TAG_HEADER, size - MB2_TAG_HEADER);
		else if (type == MB2_TAG_MMAP)
			parse_mmap(mb, tag, size);
		else if (type == MB2_TAG_MODULE)
			parse_module(mb, tag, size);
		else if (type == MB2_TAG_ACPI_OLD || type == MB2_TAG_ACPI_NEW)
			parse_acpi(mb, type, tag, size);
		off += ALIGN_UP(size, MB2_TAG_ALIGN);
	}
	if (mb->regions_dropped)
		printk("multiboot: %d available memory regions beyond the first %d: "
		       "their memory is not used\n", mb->regions_dropped, MB2_MAX_REGIONS);
}

/* The kernel's boot: the information is parsed once, early, and kept here. */
static struct mb2_info boot_mb;
static const u8 *boot_info;

void multiboot_parse(const void *info)
{
	boot_info = info;
	mb2_parse(&boot_mb, info);
}

#define DUMP_LINE	32	/* bytes per line of a dump */

void bootdata_dump(const char *what, u64 addr, const void *p, size_t len)
{
	const u8 *b = p;

	printk("bootdata: %s %#llx %zu\n", what, (unsigned long long)addr, len);
	for (size_t off = 0; off < len; off += DUMP_LINE) {
		char hex[2 * DUMP_LINE + 1];
		size_t n = min(len - off, (size_t)DUMP_LINE);

		for (size_t i = 0; i < n; i++)
			snprintf(hex + 2 * i, 3, "%02x", b[off + i]);
		printk("bootdata: +%zx %s\n", off, hex);
	}
}

/*
 * bootdata.dump: hex-dumps the multiboot information and the ACPI tables
 * as the word is read, before the memory they sit in is reused, so that
 * tools/fuzz/bootdata.py can turn QEMU's into fuzzing seeds (QEMU cannot
 * dump its ACPI tables itself).
 */
static bool dump_boot_data(const struct kparam *p, const char *val)
{
	u32 total;

	(void)p;
	if (strcmp(val, "1") || !boot_info)
		return false;
	memcpy(&total, boot_info, sizeof(total));
	if (total <= MB2_INFO_MAX)
		bootdata_dump("multiboot", (uintptr_t)boot_info, boot_info, total);
	acpi_dump(boot_mb.rsdp, boot_mb.rsdp_len);
	return true;
}
KPARAM_CALL("bootdata.dump", dump_boot_data, "1: dump the multiboot information and ACPI tables");

u64 multiboot_rsdp(void)
{
	return (uintptr_t)boot_mb.rsdp;
}

size_t multiboot_rsdp_len(void)
{
	return boot_mb.rsdp_len;
}

const char *arch_cmdline(void)
{
	if (boot_mb.cmdline_truncated)
		printk("cmdline: longer than %zu bytes: the rest is ignored\n",
		       sizeof(boot_mb.cmdline) - 1);
	boot_mb.cmdline_truncated = false;
	return boot_mb.cmdline;
}

int arch_boot_modules(struct boot_module_desc *out, int max)
{
	int n = min(boot_mb.nmodules, max);

	for (int i = 0; i < n; i++) {
		out[i].start = boot_mb.modules[i].start;
		out[i].end = boot_mb.modules[i].end;
		out[i].cmdline = boot_mb.modules[i].cmdline;
	}
	return n;
}

/* The modules' bytes: the page allocator must never hand them out. */
int arch_reserved_regions(struct mem_region *out, int max)
{
	int n = min(boot_mb.nmodules, max);

	for (int i = 0; i < n; i++) {
		out[i].start = boot_mb.modules[i].start;
		out[i].end = boot_mb.modules[i].end;
	}
	return n;
}

int arch_mem_regions(struct mem_region *out, int max)
{
	int n = min(boot_mb.nregions, max);

	memcpy(out, boot_mb.regions, n * sizeof(*out));
	return n;
}
