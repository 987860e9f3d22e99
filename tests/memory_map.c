/*
 * The memory map is checked against the kernel image before anything
 * uses it (page_alloc_init()): a map that leaves out part of the image
 * stops the boot with a message.  Here the check itself, on this boot's
 * own map and on maps made from it.  (A forged map cannot reach a real
 * boot through QEMU: GRUB and QEMU's -dtb both write the true RAM; the
 * multiboot fuzz target feeds the boot path hostile maps, docs/fuzz.md.)
 */
#include "ktest.h"

extern char __kernel_start[], __kernel_end[];

KTEST(mm_memory_map_must_cover_the_kernel_image)
{
	static struct mem_region r[64];
	uintptr_t start = (uintptr_t)__kernel_start, end = ALIGN_UP((uintptr_t)__kernel_end, PAGE_SIZE);
	uintptr_t mid = ALIGN_DOWN(start + (end - start) / 2, PAGE_SIZE);
	int n = arch_mem_regions(r, ARRAY_SIZE(r));
	struct mem_region split[2] = { { start, mid }, { mid, end } };
	struct mem_region holed[2] = { { start, mid }, { mid + PAGE_SIZE, end } };
	struct mem_region above[1] = { { start + PAGE_SIZE, end + (64 << 20) } };
	struct mem_region below[1] = { { 0, end - PAGE_SIZE } };
	struct mem_region reversed[2] = { { mid, end }, { start, mid } };

	KASSERT(n > 0);
	KEXPECT(mem_regions_cover(r, n, start, end));	/* this boot's own map */
	KEXPECT(mem_regions_cover(split, 2, start, end));
	KEXPECT(mem_regions_cover(reversed, 2, start, end));
	KEXPECT(!mem_regions_cover(holed, 2, start, end));
	KEXPECT(!mem_regions_cover(above, 1, start, end));
	KEXPECT(!mem_regions_cover(below, 1, start, end));
	KEXPECT(!mem_regions_cover(r, 0, start, end));
}
