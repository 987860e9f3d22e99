/*
 * The kernel's page tables map as RAM (normal write-back memory) only
 * what the memory map calls RAM, and never map RAM as a device.  The
 * legacy hole below 1 MiB, firmware tables and the PCI hole below 4 GiB
 * (where the local APIC lives; `make test MEM=5G` on x86-64 puts RAM on
 * both sides of it) must not be write-back memory: TCG ignores caching
 * attributes, hardware does not.  The tables are read, not trusted.
 */
#include "ktest.h"

#define MAP_LIMIT	(1ULL << 32)	/* what the kernel maps */
#define SZ_2M		(2ULL << 20)
#define SZ_1M		(1ULL << 20)
#define MAX_REGIONS	64

static struct mem_region regions[MAX_REGIONS];
static int nregions, ram_wrong, hole_wrong;

/* A page is RAM when one region holds all of it (as the page allocator counts). */
static bool page_is_ram(uintptr_t a)
{
	for (int i = 0; i < nregions; i++)
		if (a >= regions[i].start && a + PAGE_SIZE <= regions[i].end)
			return true;
	return false;
}

static void check_page(uintptr_t a)
{
	enum arch_mapping m;

	a = ALIGN_DOWN(a, PAGE_SIZE);
	if (a >= MAP_LIMIT)
		return;
	m = arch_mapping_of(a);
	if (page_is_ram(a) && m == ARCH_MAP_DEVICE) {
		if (!ram_wrong++)
			ktest_info("RAM page %#lx is mapped as a device", (unsigned long)a);
	} else if (!page_is_ram(a) && m == ARCH_MAP_RAM) {
		if (!hole_wrong++)
			ktest_info("page %#lx is not RAM but is mapped as RAM", (unsigned long)a);
	}
}

KTEST(mmu_maps_only_ram_as_ram)
{
	nregions = arch_mem_regions(regions, MAX_REGIONS);
	ram_wrong = hole_wrong = 0;
	KASSERT(nregions > 0);
	/* Every page below 1 MiB, then the first and last page of each 2 MiB block... */
	for (uintptr_t a = 0; a < SZ_1M; a += PAGE_SIZE)
		check_page(a);
	for (uintptr_t a = SZ_1M; a < MAP_LIMIT; a += SZ_2M) {
		check_page(a);
		check_page(a + SZ_2M - PAGE_SIZE);
	}
	/* ...and the pages on both sides of each region's ends. */
	for (int i = 0; i < nregions; i++) {
		check_page(regions[i].start - PAGE_SIZE);
		check_page(regions[i].start);
		check_page(regions[i].end - 1);
		check_page(regions[i].end);
	}
	KEXPECT_EQ(ram_wrong, 0);
	KEXPECT_EQ(hole_wrong, 0);
	/* The kernel's own data is RAM. */
	KEXPECT_EQ(arch_mapping_of((uintptr_t)regions), ARCH_MAP_RAM);
}
