/*
 * The multiboot2 boot information GRUB hands us: command line, memory map
 * and the ACPI RSDP.  We copy what we need at once, because the memory it
 * sits in is about to become free memory.
 */
#include "x86.h"

#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_MMAP		6
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_MMAP_AVAILABLE	1
#define MAX_REGIONS		32

struct mb2_tag {
	u32 type;
	u32 size;
};

struct mb2_mmap_entry {
	u64 base, len;
	u32 type, reserved;
};

static char cmdline[4096];
static bool cmdline_truncated;
static struct mem_region regions[MAX_REGIONS];
static int nregions;
static u64 rsdp_phys;

static void parse_mmap(const struct mb2_tag *tag)
{
	const u8 *p = (const u8 *)tag;
	u32 entry_size = *(const u32 *)(p + 8);
	const u8 *e = p + 16;

	for (; e + entry_size <= p + tag->size; e += entry_size) {
		const struct mb2_mmap_entry *m = (const void *)e;

		if (m->type != MB2_MMAP_AVAILABLE || nregions == MAX_REGIONS)
			continue;
		regions[nregions].start = m->base;
		regions[nregions].end = m->base + m->len;
		nregions++;
	}
}

void multiboot_parse(u32 info_addr)
{
	const u8 *info = (const u8 *)(uintptr_t)info_addr;
	u32 total = *(const u32 *)info;
	const u8 *p = info + 8;

	while (p < info + total) {
		const struct mb2_tag *tag = (const void *)p;

		switch (tag->type) {
		case MB2_TAG_END:
			return;
		case MB2_TAG_CMDLINE: {
			const char *s = (const char *)(p + 8);
			size_t n = strnlen(s, tag->size - 8);

			cmdline_truncated = n >= sizeof(cmdline);
			if (cmdline_truncated)
				n = sizeof(cmdline) - 1;
			memcpy(cmdline, s, n);
			cmdline[n] = '\0';
			break;
		}
		case MB2_TAG_MMAP:
			parse_mmap(tag);
			break;
		case MB2_TAG_ACPI_OLD:
		case MB2_TAG_ACPI_NEW:
			/* The tag holds a copy of the RSDP; prefer the ACPI 2.0 one. */
			if (!rsdp_phys || tag->type == MB2_TAG_ACPI_NEW)
				rsdp_phys = (uintptr_t)(p + 8);
			break;
		}
		p += ALIGN_UP(tag->size, 8);
	}
}

u64 multiboot_rsdp(void)
{
	return rsdp_phys;
}

const char *arch_cmdline(void)
{
	if (cmdline_truncated)
		printk("cmdline: longer than %zu bytes: the rest is ignored\n",
		       sizeof(cmdline) - 1);
	cmdline_truncated = false;
	return cmdline;
}

int arch_mem_regions(struct mem_region *out, int max)
{
	int n = min(nregions, max);

	memcpy(out, regions, n * sizeof(*out));
	return n;
}
