/*
 * Boot modules on AArch64: the initrd.  The boot loader (QEMU's -initrd
 * for an Image, U-Boot, GRUB) loads one file and names where it put it in
 * the device tree's /chosen (fdt.c reads linux,initrd-start/-end); that
 * file holds every program with its command line, in the format
 * tools/arm64_image.py writes (docs/user.md, "Boot modules"):
 *
 *	header	"QMODULES", u32 version (1), u32 count
 *	count x	u32 cmdline_size (with its NUL), u32 reserved (0), u64 file_size,
 *		the command line, zeros to a multiple of 8,
 *		the file, zeros to a multiple of 8
 *
 * little-endian, and nothing after the last module: what a multiboot2
 * module tag says on x86-64 (arch/x86_64/multiboot.c), as a file.
 *
 * The initrd is input the kernel did not write.  Its place is checked
 * against RAM and the kernel before it is reserved or read, every size in
 * it against what is left of it before anything it describes is believed,
 * and the first record that does not fit ends the walk with a message
 * (the modules before it are kept).  initrd_parse() reads only the bytes
 * it is handed and writes only out[], so tools/fuzz/ runs it on the host.
 * What makes a program runnable (an ELF, a sane command line) is
 * kernel/user/module.c's and elf.c's to check.
 */
#include "aarch64.h"
#include "unaligned.h"

#define INITRD_MAGIC		"QMODULES"
#define INITRD_VERSION		1
#define INITRD_HEADER		16	/* magic, u32 version, u32 count */
#define INITRD_RECORD		16	/* u32 cmdline_size, u32 reserved, u64 file_size */
#define INITRD_ALIGN		8

extern char __kernel_start[], __kernel_end[];

/* Advances *off past n bytes and their padding; false if they are not all there. */
static bool take(size_t size, size_t *off, u64 n)
{
	if (n > size - *off)
		return false;
	*off += n;
	if (ALIGN_UP(*off, INITRD_ALIGN) > size)
		return false;
	*off = ALIGN_UP(*off, INITRD_ALIGN);
	return true;
}

/* Why record i at off cannot be read (NULL: it can): fills *d. */
static const char *parse_record(const u8 *p, size_t size, size_t *off,
				struct boot_module_desc *d)
{
	u32 cmdline_size;
	u64 file_size;
	const char *cmdline;

	if (size - *off < INITRD_RECORD)
		return "its header runs past the end";
	cmdline_size = get_unaligned_le32(p + *off);
	file_size = get_unaligned_le64(p + *off + 8);
	if (get_unaligned_le32(p + *off + 4))
		return "its reserved word is not 0";
	*off += INITRD_RECORD;
	cmdline = (const char *)p + *off;
	if (!cmdline_size || !take(size, off, cmdline_size))
		return "its command line runs past the end";
	if (strnlen(cmdline, cmdline_size) != cmdline_size - 1)
		return "its command line is not one string ending at its NUL";
	d->start = (uintptr_t)p + *off;
	d->end = d->start + file_size;
	d->cmdline = cmdline;
	if (!take(size, off, file_size))
		return "its file runs past the end";
	return NULL;
}

int initrd_parse(const void *initrd, size_t size, struct boot_module_desc *out, int max)
{
	const u8 *p = initrd;
	size_t off = INITRD_HEADER;
	u32 count;
	int n = 0;

	if (size < INITRD_HEADER || memcmp(p, INITRD_MAGIC, 8)) {
		printk("initrd: %zu bytes without the \"" INITRD_MAGIC "\" header "
		       "(tools/arm64_image.py): no boot modules\n", size);
		return 0;
	}
	if (get_unaligned_le32(p + 8) != INITRD_VERSION) {
		printk("initrd: version %u, this kernel reads version %d: no boot modules\n",
		       get_unaligned_le32(p + 8), INITRD_VERSION);
		return 0;
	}
	count = get_unaligned_le32(p + 12);
	for (u32 i = 0; i < count; i++) {
		struct boot_module_desc d;
		size_t at = off;
		const char *why;

		if (n == max) {
			printk("initrd: %u modules, this kernel takes %d: the rest are ignored\n",
			       count, max);
			return n;
		}
		why = parse_record(p, size, &off, &d);
		if (why) {
			printk("initrd: module %u at offset %zu: %s: it and the %u after it are "
			       "ignored\n", i, at, why, count - i - 1);
			return n;
		}
		out[n++] = d;
	}
	if (off != size)
		printk("initrd: %zu bytes after its last module: ignored\n", size - off);
	return n;
}

/*
 * Where the initrd lies, if the device tree said and the place makes
 * sense: inside RAM, outside the kernel.  Said once, at the first call.
 */
static bool initrd_region(struct mem_region *r)
{
	static int checked;	/* 0: not yet, 1: good, -1: refused */
	u64 s = dt.initrd_start, e = dt.initrd_end, ram_end = dt.ram_start + dt.ram_size;
	const char *why = NULL;

	if (!dt.initrd_found)
		return false;
	if (!checked) {
		if (s >= e)
			why = "it is empty, or ends before it starts";
		else if (s < dt.ram_start || e > ram_end)
			why = "it is not inside RAM";
		else if (s < (uintptr_t)__kernel_end && e > (uintptr_t)__kernel_start)
			why = "it overlaps the kernel";
		if (why)
			printk("initrd: %#llx-%#llx from the device tree is refused: %s\n",
			       (unsigned long long)s, (unsigned long long)e, why);
		checked = why ? -1 : 1;
	}
	r->start = s;
	r->end = e;
	return checked > 0;
}

int arch_boot_modules(struct boot_module_desc *out, int max)
{
	struct mem_region r;

	if (!initrd_region(&r))
		return 0;
	return initrd_parse((const void *)r.start, r.end - r.start, out, max);
}

/* The initrd and the device tree: the page allocator leaves them alone. */
int arch_reserved_regions(struct mem_region *out, int max)
{
	struct mem_region r;
	int n = 0;

	if (n < max && dt.fdt_size) {
		out[n].start = dt.fdt_start;
		out[n++].end = dt.fdt_start + dt.fdt_size;
	}
	if (n < max && initrd_region(&r))
		out[n++] = r;
	return n;
}
