/*
 * The physical page allocator: one bit per 4 KiB page below 4 GiB (set =
 * in use), first fit for runs of contiguous pages.  Simple and slow
 * enough for a teaching kernel; kmalloc() sits on top for small objects.
 */
#include "kernel.h"

#define MAX_PHYS	(1ULL << 32)	/* the boot page tables map 4 GiB */
#define MAX_PAGES	(MAX_PHYS / PAGE_SIZE)
#define BITS		(8 * sizeof(unsigned long))

extern char __kernel_start[], __kernel_end[];

static unsigned long used[MAX_PAGES / BITS];
static DEFINE_SPINLOCK(page_lock);
static size_t free_pages, total_pages, search_hint;

static bool page_used(size_t pfn) { return used[pfn / BITS] & (1UL << (pfn % BITS)); }
static void mark_used(size_t pfn) { used[pfn / BITS] |= 1UL << (pfn % BITS); }
static void mark_free(size_t pfn) { used[pfn / BITS] &= ~(1UL << (pfn % BITS)); }

/*
 * Marks the pages [first, last) free a word at a time (a map of 4 GiB
 * is a million pages); returns how many of them were free already.
 */
static size_t free_range(size_t first, size_t last)
{
	size_t already = 0;

	while (first < last) {
		size_t bit = first % BITS, n = min(BITS - bit, last - first);
		unsigned long mask = (n == BITS ? ~0UL : (1UL << n) - 1) << bit;

		already += __builtin_popcountl(~used[first / BITS] & mask);
		used[first / BITS] &= ~mask;
		first += n;
	}
	return already;
}

/* Does the union of the regions cover [start, end)?  (Firmware may split RAM anywhere.) */
bool mem_regions_cover(const struct mem_region *r, int n, uintptr_t start, uintptr_t end)
{
	bool grew = true;

	while (start < end && grew) {
		grew = false;
		for (int i = 0; i < n; i++) {
			if (r[i].start <= start && start < r[i].end) {
				start = r[i].end;
				grew = true;
			}
		}
	}
	return start >= end;
}

bool page_alloc_init(void)
{
	struct mem_region r[32];
	int n = arch_mem_regions(r, ARRAY_SIZE(r));
	uintptr_t kend = ALIGN_UP((uintptr_t)__kernel_end, PAGE_SIZE);
	size_t twice = 0;
	bool above = false;

	/*
	 * The image is where we run: a map that leaves it out would have the
	 * page tables map our own code as a device or not at all (x86-64
	 * triple-faulted, AArch64 hung without a word).
	 */
	if (!mem_regions_cover(r, n, (uintptr_t)__kernel_start, kend)) {
		printk("mm: the memory map leaves out part of the kernel image (%#lx-%#lx): "
		       "refusing to boot on memory it does not call RAM\n",
		       (unsigned long)(uintptr_t)__kernel_start, (unsigned long)kend);
		return false;
	}
	memset(used, 0xff, sizeof(used));
	free_pages = 0;
	for (int i = 0; i < n; i++) {
		/* Nothing below the kernel's end: firmware data, the trampoline, us. */
		uintptr_t start = max(r[i].start, kend);
		uintptr_t end = ALIGN_DOWN(min(r[i].end, (uintptr_t)MAX_PHYS), PAGE_SIZE);
		size_t already;

		above |= r[i].end > MAX_PHYS;
		if (start >= MAX_PHYS)
			continue;	/* (and rounding it up could wrap to 0) */
		start = ALIGN_UP(start, PAGE_SIZE);
		if (start >= end)
			continue;
		/* Firmware's regions may overlap: a page is counted once. */
		already = free_range(start / PAGE_SIZE, end / PAGE_SIZE);
		twice += already;
		free_pages += (end - start) / PAGE_SIZE - already;
	}
	total_pages = free_pages;
	search_hint = kend / PAGE_SIZE;
	printk("mm: %zu MiB free for the kernel (%zu pages)\n",
	       free_pages * PAGE_SIZE >> 20, free_pages);
	if (twice)
		printk("mm: the memory map lists %zu pages more than once: each counted once\n",
		       twice);
	if (above)
		printk("mm: memory above 4 GiB is not mapped and not used\n");
	return true;
}

/* First fit from `from`; whole words of used pages are skipped at once. */
static long find_run(size_t from, size_t to, size_t npages)
{
	size_t run = 0;

	for (size_t pfn = from; pfn < to; pfn++) {
		if (!run && pfn % BITS == 0 && used[pfn / BITS] == ~0UL) {
			pfn += BITS - 1;
			continue;
		}
		run = page_used(pfn) ? 0 : run + 1;
		if (run == npages)
			return pfn + 1 - npages;
	}
	return -1;
}

void *page_alloc(size_t npages)
{
	unsigned long flags;
	long pfn;

	if (!npages)
		return NULL;
	spin_lock_irqsave(&page_lock, flags);
	pfn = -1;
	if (npages <= free_pages) {
		pfn = find_run(search_hint, MAX_PAGES, npages);
		if (pfn < 0)
			pfn = find_run(0, MAX_PAGES, npages);
	}
	if (pfn >= 0) {
		for (size_t i = 0; i < npages; i++)
			mark_used(pfn + i);
		free_pages -= npages;
		search_hint = pfn + npages;
	}
	spin_unlock_irqrestore(&page_lock, flags);
	return pfn < 0 ? NULL : (void *)(uintptr_t)(pfn * PAGE_SIZE);
}

void page_free(void *addr, size_t npages)
{
	size_t pfn = (uintptr_t)addr / PAGE_SIZE;
	unsigned long flags;

	if ((uintptr_t)addr % PAGE_SIZE || pfn + npages > MAX_PAGES)
		panic("BUG: page_free(%p, %zu): not a page the allocator handed out",
		      addr, npages);
	spin_lock_irqsave(&page_lock, flags);
	for (size_t i = 0; i < npages; i++) {
		if (!page_used(pfn + i))
			panic("BUG: page_free(%p, %zu): page %p is already free",
			      addr, npages, (void *)((pfn + i) * PAGE_SIZE));
		mark_free(pfn + i);
	}
	free_pages += npages;
	if (pfn < search_hint)
		search_hint = pfn;
	spin_unlock_irqrestore(&page_lock, flags);
}

size_t page_free_count(void)
{
	return READ_ONCE(free_pages);
}

size_t page_total_count(void)
{
	return total_pages;
}
