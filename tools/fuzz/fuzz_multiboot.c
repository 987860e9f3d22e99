/*
 * Fuzz target: arch/x86_64/multiboot.c, the multiboot2 boot information,
 * and the region handling of kernel/page_alloc.c that uses its memory map.
 *
 * The input is the information block.  Its total_size word is all the
 * kernel has to know where the block ends, so the harness makes it true
 * (no larger than the input) and places the block at the end of its
 * allocation: ASan then catches any read past the size the kernel trusts.
 * Properties:
 *   - the walk ends (libFuzzer's -timeout catches a loop), at the end tag
 *     or with a "multiboot:" message saying why not;
 *   - every region kept is non-empty (start < end), at most
 *     MB2_MAX_REGIONS of them, and dropping more is reported;
 *   - the command line is a terminated string, and only marked truncated
 *     when it fills the buffer; the RSDP copy lies inside the block;
 *   - boot modules: at most MB2_MAX_MODULES kept, each ending no earlier
 *     than it starts, its command line terminated and shorter than 256;
 *     every module refused or beyond the maximum is reported;
 *   - the page allocator then frees each page of the regions (above the
 *     kernel's end, below 4 GiB) exactly once, however they overlap, but
 *     for the pages the modules occupy, and hands out such a page;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "x86.h"
#include "multiboot.h"
#include "shim/shim.h"

#define KERNEL_END	0x100000ULL	/* fuzz.py links __kernel_end here */
#define MAX_PHYS	(1ULL << 32)
/*
 * Above this many pages, counted region by region (overlaps too: the
 * allocator visits each), the allocator's check is skipped: one input
 * would take milliseconds, and the fuzzer, rewarded for new counts of
 * overlapping pages, would soon spend all its time there.
 */
#define MAX_CHECKED	1024

static int cmp_region(const void *a, const void *b)
{
	const struct mem_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The pages of the union of the regions, clipped as page_alloc_init() clips
 * them; *listed: the pages of each region, added up.
 */
static size_t union_pages(struct mem_region *r, int n, size_t *listed)
{
	size_t pages = 0;
	u64 covered = 0;	/* every page below this is counted */

	for (int i = 0; i < n; i++) {
		u64 s = r[i].start > KERNEL_END ? r[i].start : KERNEL_END;
		u64 e = r[i].end < MAX_PHYS ? r[i].end : MAX_PHYS;

		s = s >= MAX_PHYS ? MAX_PHYS : ALIGN_UP(s, PAGE_SIZE);
		e = ALIGN_DOWN(e, PAGE_SIZE);
		r[i].start = s;
		r[i].end = e > s ? e : s;
	}
	*listed = 0;
	for (int i = 0; i < n; i++)
		*listed += (r[i].end - r[i].start) / PAGE_SIZE;
	qsort(r, n, sizeof(*r), cmp_region);
	for (int i = 0; i < n; i++) {
		u64 s = r[i].start > covered ? r[i].start : covered;

		if (r[i].end > s)
			pages += (r[i].end - s) / PAGE_SIZE;
		if (r[i].end > covered)
			covered = r[i].end;
	}
	return pages;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return (x > y) - (x < y);
}

/*
 * Of the pages of the (clipped) regions, those no module occupies: the
 * allocator keeps the modules' pages (reserve_boot_data()).  Called only
 * when the regions hold at most MAX_CHECKED pages, added up.
 */
static size_t pages_without_modules(const struct mem_region *r, int n)
{
	static u64 pages[MAX_CHECKED];
	struct mem_region mod[MB2_MAX_MODULES];
	int nmod = arch_reserved_regions(mod, MB2_MAX_MODULES);
	size_t np = 0, count = 0;

	for (int i = 0; i < n; i++)
		for (u64 a = r[i].start; a < r[i].end; a += PAGE_SIZE)
			pages[np++] = a;
	qsort(pages, np, sizeof(pages[0]), cmp_u64);
	for (size_t i = 0; i < np; i++) {
		bool in_mod = false;

		if (i && pages[i] == pages[i - 1])
			continue;
		for (int k = 0; k < nmod && !in_mod; k++)
			in_mod = pages[i] + PAGE_SIZE > mod[k].start && pages[i] < mod[k].end;
		count += !in_mod;
	}
	return count;
}

static bool in_regions(const struct mem_region *r, int n, u64 a)
{
	for (int i = 0; i < n; i++)
		if (a >= r[i].start && a + PAGE_SIZE <= r[i].end)
			return true;
	return false;
}

static void check_info(const struct mb2_info *mb, const u8 *buf, u32 total, bool total_ok)
{
	CHECK(mb->end_seen || shim_count_lines("multiboot:") > 0,
	      "the walk ended without the end tag and without a word");
	CHECK(mb->nregions >= 0 && mb->nregions <= MB2_MAX_REGIONS, "%d regions", mb->nregions);
	for (int i = 0; i < mb->nregions; i++)
		CHECK(mb->regions[i].start < mb->regions[i].end, "region %d is empty or reversed", i);
	CHECK(!mb->regions_dropped || shim_count_lines("multiboot: ") > 0,
	      "%d regions dropped silently", mb->regions_dropped);
	CHECK(memchr(mb->cmdline, '\0', sizeof(mb->cmdline)), "command line not terminated");
	CHECK(mb->nmodules >= 0 && mb->nmodules <= MB2_MAX_MODULES, "%d modules", mb->nmodules);
	for (int i = 0; i < mb->nmodules; i++) {
		CHECK(mb->modules[i].start <= mb->modules[i].end, "module %d ends before it starts", i);
		CHECK(strnlen(mb->modules[i].cmdline, MB2_MODULE_CMDLINE) < MB2_MODULE_CMDLINE,
		      "module %d's command line not terminated", i);
	}
	CHECK(shim_count_lines("multiboot: module") >= mb->modules_dropped,
	      "%d modules dropped, fewer said so", mb->modules_dropped);
	CHECK(!mb->cmdline_truncated || strlen(mb->cmdline) == sizeof(mb->cmdline) - 1,
	      "a short command line marked truncated");
	if (mb->rsdp) {
		const u8 *r = mb->rsdp;

		CHECK(total_ok && r >= buf + 8 && mb->rsdp_len >= 20 &&
		      r + mb->rsdp_len <= buf + total, "the RSDP copy is not inside the block");
	}
}

static void check_pages(void)
{
	struct mem_region r[MB2_MAX_REGIONS];
	int n = arch_mem_regions(r, MB2_MAX_REGIONS);
	size_t listed, want = union_pages(r, n, &listed);
	u64 lowest = MAX_PHYS;
	void *page;

	if (listed > MAX_CHECKED)
		return;
	want = pages_without_modules(r, n);	/* (r: clipped by union_pages()) */
	page_alloc_init();
	CHECK(page_free_count() == want, "the allocator has %zu free pages, the regions hold %zu",
	      page_free_count(), want);
	/*
	 * One page handed out and back, when free memory starts low: the
	 * allocator's first fit scans page by page from the kernel's end,
	 * which for a region near 4 GiB is a million steps per input.
	 */
	for (int i = 0; i < n; i++)
		if (r[i].end > r[i].start && r[i].start < lowest)
			lowest = r[i].start;
	if (!want || lowest > KERNEL_END + MAX_CHECKED * PAGE_SIZE)
		return;
	page = page_alloc(1);
	CHECK(page && in_regions(r, n, (uintptr_t)page),
	      "page_alloc() gave %p with %zu pages free in the regions", page, want);
	page_free(page, 1);
	CHECK(page_free_count() == want, "page_free() did not give the page back");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t len = size < 8 ? 8 : size;
	u8 *buf = calloc(1, len);
	struct mb2_info *mb = malloc(sizeof(*mb));
	u32 total;

	memcpy(buf, data, size);
	memcpy(&total, buf, 4);
	if (total > len) {
		total = len;
		memcpy(buf, &total, 4);
	}
	/* The block ends where its allocation does, so ASan guards its end. */
	if (total >= 8 && total < len) {
		u8 *exact = malloc(total);

		memcpy(exact, buf, total);
		free(buf);
		buf = exact;
	}
	shim_reset();
	mb2_parse(mb, buf);
	check_info(mb, buf, total, total >= 8 && total <= MB2_INFO_MAX);
	shim_summary("%d regions (%d dropped), command line '%s', RSDP %s (%zu bytes), end tag %s, "
		     "%d modules (%d dropped)%s%s", mb->nregions, mb->regions_dropped, mb->cmdline,
		     mb->rsdp ? "found" : "none", mb->rsdp_len, mb->end_seen ? "seen" : "not seen",
		     mb->nmodules, mb->modules_dropped, mb->nmodules ? ", the first: " : "",
		     mb->nmodules ? mb->modules[0].cmdline : "");

	/* The kernel's own path: the glue keeps the result, the allocator uses it. */
	multiboot_parse(buf);
	check_pages();
	free(mb);
	free(buf);
	return 0;
}
