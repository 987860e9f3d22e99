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
 *   - the page allocator refuses the map, with a message, exactly when
 *     the regions together leave out part of the kernel image;
 *   - otherwise it frees each page of the regions (above the kernel's
 *     end, below 4 GiB) exactly once, however they overlap and however
 *     much memory they list, but for the pages a module occupies, and
 *     hands out such a page;
 *   - nothing is read or written out of bounds (ASan, UBSan).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "x86.h"
#include "multiboot.h"
#include "shim/shim.h"

/* fuzz.py links the kernel image, __kernel_start to __kernel_end, here: */
#define KERNEL_START	0x100000ULL
#define KERNEL_END	0x180000ULL
#define MAX_PHYS	(1ULL << 32)

static int cmp_region(const void *a, const void *b)
{
	const struct mem_region *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/*
 * The pages of the union of the regions, clipped as page_alloc_init() clips
 * them (sorting and clipping r).
 */
static size_t union_pages(struct mem_region *r, int n)
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

/* Sorts v and merges what overlaps or touches, in place; the new count. */
static int merge(struct mem_region *v, int n)
{
	int k = 0;

	qsort(v, n, sizeof(*v), cmp_region);
	for (int i = 0; i < n; i++) {
		if (v[i].end <= v[i].start)
			continue;
		if (k && v[i].start <= v[k - 1].end) {
			if (v[i].end > v[k - 1].end)
				v[k - 1].end = v[i].end;
			continue;
		}
		v[k++] = v[i];
	}
	return k;
}

/*
 * The pages of the (clipped) regions that a module occupies: the
 * allocator keeps them (reserve_boot_data() reserves every page a module
 * touches).
 */
static size_t module_pages(const struct mem_region *clipped, int n)
{
	struct mem_region r[MB2_MAX_REGIONS], m[MB2_MAX_MODULES];
	int nm = arch_reserved_regions(m, MB2_MAX_MODULES), i = 0, j = 0;
	size_t pages = 0;

	memcpy(r, clipped, n * sizeof(*r));
	n = merge(r, n);
	for (int k = 0; k < nm; k++) {
		m[k].start = ALIGN_DOWN(m[k].start, PAGE_SIZE);
		m[k].end = ALIGN_UP(m[k].end, PAGE_SIZE);
	}
	nm = merge(m, nm);
	while (i < n && j < nm) {	/* both sorted and disjoint: walk them side by side */
		u64 s = r[i].start > m[j].start ? r[i].start : m[j].start;
		u64 e = r[i].end < m[j].end ? r[i].end : m[j].end;

		if (e > s)
			pages += (e - s) / PAGE_SIZE;
		if (r[i].end < m[j].end)
			i++;
		else
			j++;
	}
	return pages;
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

/* The model: does the union of the regions cover the image?  (Pages, sorted.) */
static bool covers_image(const struct mem_region *sorted, int n)
{
	u64 covered = KERNEL_START;

	for (int i = 0; i < n; i++)
		if (sorted[i].start <= covered && sorted[i].end > covered)
			covered = sorted[i].end;
	return covered >= KERNEL_END;
}

static void check_pages(void)
{
	struct mem_region r[MB2_MAX_REGIONS], raw[MB2_MAX_REGIONS];
	int n = arch_mem_regions(r, MB2_MAX_REGIONS);
	bool whole_image, accepted;
	size_t want;
	void *page;

	memcpy(raw, r, sizeof(r));
	qsort(raw, n, sizeof(*raw), cmp_region);
	whole_image = covers_image(raw, n);
	want = union_pages(r, n);
	want -= module_pages(r, n);
	accepted = page_alloc_init();
	CHECK(accepted == whole_image, "the allocator %s a map that %s the kernel image",
	      accepted ? "took" : "refused", whole_image ? "covers" : "leaves out part of");
	CHECK(accepted || shim_count_lines("mm: the memory map leaves out part of the kernel image"),
	      "the map was refused without a word");
	if (!accepted)
		return;
	CHECK(page_free_count() == want, "the allocator has %zu free pages, the regions hold %zu",
	      page_free_count(), want);
	page = page_alloc(1);
	CHECK(!want || (page && in_regions(r, n, (uintptr_t)page)),
	      "page_alloc() gave %p with %zu pages free in the regions", page, want);
	CHECK(want || !page, "page_alloc() gave %p with no page free", page);
	if (page)
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
	if (total >= 8 && total < len)
		buf = shim_exact(buf, total);
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
