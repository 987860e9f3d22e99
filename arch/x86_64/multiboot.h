/*
 * The multiboot2 boot information parser (multiboot.c).  It fills the
 * struct mb2_info it is handed from the bytes GRUB left in memory and
 * touches nothing else, so the host fuzzer (tools/fuzz/) runs this same
 * code on arbitrary bytes.
 */
#ifndef ARCH_X86_64_MULTIBOOT_H
#define ARCH_X86_64_MULTIBOOT_H

#include "types.h"
#include "arch.h"	/* struct mem_region */

#define MB2_MAX_REGIONS		32
/* GRUB's information is a few KiB; a larger size word is not believed. */
#define MB2_INFO_MAX		(1U << 20)
#define MB2_CMDLINE_SIZE	4096
/* Boot modules (the programs GRUB's module2 lines load): how many, and each command line's room. */
#define MB2_MAX_MODULES		128
#define MB2_MODULE_CMDLINE	256

struct mb2_module {
	u32 start, end;				/* the bytes GRUB loaded: [start, end) */
	char cmdline[MB2_MODULE_CMDLINE];	/* NUL-terminated */
};

struct mb2_info {
	char cmdline[MB2_CMDLINE_SIZE];
	bool cmdline_truncated;
	struct mem_region regions[MB2_MAX_REGIONS];	/* available RAM, as listed */
	int nregions;
	int regions_dropped;	/* available regions beyond MB2_MAX_REGIONS */
	const void *rsdp;	/* the copy of the ACPI RSDP inside the information */
	size_t rsdp_len;	/* the bytes of it the tag holds */
	bool end_seen;		/* the walk reached the end tag */
	struct mb2_module modules[MB2_MAX_MODULES];
	int nmodules;
	int modules_dropped;	/* beyond MB2_MAX_MODULES, or refused (a message says why) */
};

/* Parses the boot information at info; every size in it is checked first. */
void mb2_parse(struct mb2_info *mb, const void *info);

/* The kernel's own boot (multiboot.c): parses once, then answers. */
void multiboot_parse(const void *info);
u64 multiboot_rsdp(void);
size_t multiboot_rsdp_len(void);

/* "bootdata: WHAT ADDR LEN" and the bytes in hex, for tools/fuzz/bootdata.py. */
void bootdata_dump(const char *what, u64 addr, const void *p, size_t len);
/* The RSDP, the RSDT/XSDT and every table they list, dumped so. */
void acpi_dump(const void *rsdp, size_t rsdp_len);

#endif
