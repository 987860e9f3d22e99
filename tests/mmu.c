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

/*
 * A guard page made with interrupts off (arch_stack_guard() may be called
 * so) guards on every CPU: another CPU that wrote to the page just before
 * must fault on its next write, not write through the translation its
 * TLB still holds.  (x86-64 once skipped the other CPUs' TLB flush with
 * interrupts off; TCG keeps a per-vCPU TLB, so the stale entry shows.)
 */
static u8 *guard_test_page;
static bool guard_test_loaded, guard_test_guarded, guard_test_wrote;

static int write_before_and_after_guard(void *arg)
{
	volatile u8 *p = guard_test_page;

	(void)arg;
	*p = 1;				/* the translation, writable, in this CPU's TLB */
	smp_store_release(&guard_test_loaded, true);	/* pairs with the acquire below */
	while (!smp_load_acquire(&guard_test_guarded))	/* pairs with the release below */
		cpu_relax();
	*p = 2;				/* must fault: the page is a guard page now */
	WRITE_ONCE(guard_test_wrote, true);
	return 0;
}

KTEST_EXPECT_PANIC(mmu_guard_page_made_with_interrupts_off_guards_every_cpu,
		   "BUG: unable to handle")
{
	unsigned long flags;
	u64 end;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	guard_test_page = page_alloc(1);
	KASSERT(guard_test_page != NULL);
	KASSERT(kthread_run_on_cpu(write_before_and_after_guard, NULL, num_online_cpus() - 1,
				   "guard_writer") != NULL);
	while (!smp_load_acquire(&guard_test_loaded))	/* pairs with the release above */
		cpu_relax();
	local_irq_save(flags);
	arch_stack_guard(guard_test_page, true);
	local_irq_restore(flags);
	smp_store_release(&guard_test_guarded, true);	/* pairs with the acquire above */
	end = ktime_get_ns() + ktest_budget_ns(10, 1);
	while (!READ_ONCE(guard_test_wrote) && ktime_get_ns() < end)
		msleep(1);
	/* Still here: the write went through (or nothing happened at all). */
	KEXPECT(!READ_ONCE(guard_test_wrote));
}

/*
 * The symbol table (.ksyms) is data: it starts on a page after the last
 * one of the kernel's text, which the page tables map executable ([start
 * of the image, __text_end) rounded out to pages).  It once followed the
 * text 16-byte aligned, on that executable page.
 */
extern const char __text_end[], __ksyms_start[];

KTEST(protect_symbol_table_is_not_on_a_text_page)
{
	KEXPECT((uintptr_t)__ksyms_start % PAGE_SIZE == 0);
	KEXPECT((uintptr_t)__ksyms_start >= ALIGN_UP((uintptr_t)__text_end, PAGE_SIZE));
	KEXPECT_EQ(arch_mapping_of((uintptr_t)__ksyms_start), ARCH_MAP_RAM);
}
