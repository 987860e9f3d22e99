/*
 * The kernel's page tables, built once the page allocator works, replacing
 * the boot map (boot/aarch64/entry.S: 1 GiB blocks, RAM executable and
 * writable).  The same identity map, with RAM in 4 KiB pages so each can
 * carry its own protection, as on x86-64 (arch/x86_64/mmu.c):
 *
 *	0 - 2 MiB		not mapped: a NULL dereference faults
 *	rest of 0 - 1 GiB	devices: 2 MiB blocks, device-nGnRnE, never executable
 *	kernel text		read-only, executable
 *	rodata, .ksyms		read-only, not executable
 *	data, bss, free RAM	writable, not executable
 *	stack guard pages	not mapped: a stack overflow faults
 *
 * 4 KiB granule, 32-bit addresses: the walk starts at level 1 (four 1 GiB
 * entries), then level 2 (2 MiB), then level 3 (4 KiB).  RAM is normal
 * write-back memory, inner shareable: the exclusive loads and stores of
 * spinlocks and atomics need it.
 */
#include "aarch64.h"

#define PTE_VALID	(1ULL << 0)
#define PTE_TABLE	(1ULL << 1)	/* levels 1-2: next-level table; level 3: page */
#define PTE_ATTR_DEVICE	(0ULL << 2)	/* MAIR_EL1 attribute 0 (entry.S) */
#define PTE_ATTR_NORMAL	(1ULL << 2)	/* MAIR_EL1 attribute 1 */
#define PTE_RDONLY	(1ULL << 7)	/* AP[2] */
#define PTE_INNER_SH	(3ULL << 8)
#define PTE_AF		(1ULL << 10)
#define PTE_PXN		(1ULL << 53)
#define PTE_UXN		(1ULL << 54)
#define PTE_ADDR	0x0000fffffffff000ULL

#define PTE_NORMAL	(PTE_VALID | PTE_TABLE | PTE_ATTR_NORMAL | PTE_INNER_SH | PTE_AF)
#define PAGE_TEXT	(PTE_NORMAL | PTE_RDONLY | PTE_UXN)
#define PAGE_RODATA	(PTE_NORMAL | PTE_RDONLY | PTE_PXN | PTE_UXN)
#define PAGE_DATA	(PTE_NORMAL | PTE_PXN | PTE_UXN)
#define BLOCK_DEVICE	(PTE_VALID | PTE_ATTR_DEVICE | PTE_AF | PTE_PXN | PTE_UXN)

#define SZ_2M		(2UL << 20)
#define SZ_1G		(1UL << 30)
#define MAP_LIMIT	(1ULL << 32)
#define DEVICE_END	0x40000000UL	/* virt: devices below 1 GiB, RAM above */

extern char __kernel_start[], __text_end[], __data_start[];
static u64 *kernel_l1;

static u64 *zeroed_page(void)
{
	u64 *p = page_alloc(1);

	if (!p)
		panic("mmu: out of memory for page tables");
	memset(p, 0, PAGE_SIZE);
	return p;
}

/* The descriptor of one 4 KiB page of RAM. */
static u64 page_desc(uintptr_t a)
{
	if (a == boot_stack_guard)
		return 0;
	if (a >= (uintptr_t)__kernel_start && a < (uintptr_t)__text_end)
		return a | PAGE_TEXT;
	if (a >= (uintptr_t)__text_end && a < (uintptr_t)__data_start)
		return a | PAGE_RODATA;
	return a | PAGE_DATA;
}

static u64 *next_table(u64 desc)
{
	if ((desc & (PTE_VALID | PTE_TABLE)) != (PTE_VALID | PTE_TABLE))
		return NULL;
	return (u64 *)(uintptr_t)(desc & PTE_ADDR);
}

/* The level-3 descriptor of a RAM page, NULL outside the 4 KiB-mapped RAM. */
static u64 *pte_of(uintptr_t a)
{
	u64 *l2, *l3;

	if (!kernel_l1 || a >= MAP_LIMIT)
		return NULL;
	l2 = next_table(kernel_l1[a >> 30]);
	l3 = l2 ? next_table(l2[(a >> 21) & 511]) : NULL;
	return l3 ? &l3[(a >> 12) & 511] : NULL;
}

/*
 * [hw_table_walk] pairs [mmu_tables_dsb], [local_tlbi_dsb], [guard_tlbi_dsb]: the hardware
 * side: the MMU's table walker reads the page tables with no barrier of
 * its own and caches what it read in the TLB, so a table written without
 * a dsb, or a stale TLB entry, gives a CPU an old or half-written mapping.
 */

/* Switches this CPU to the kernel's tables (same mappings: no break needed). */
void mmu_cpu_init(void)
{
	if (!kernel_l1)
		return;
	/* [mmu_tables_dsb] pairs [hw_table_walk]: or the walker could read a table before it is written. */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	write_sysreg(ttbr0_el1, kernel_l1);
	isb();
	/* [local_tlbi_dsb] pairs [hw_table_walk]: or a translation cached from the boot tables could survive. */
	__asm__ __volatile__("tlbi vmalle1\n\tdsb nsh\n\tisb" ::: "memory");
}

void mmu_init(void)
{
	uintptr_t ram_start = ALIGN_DOWN(dt.ram_start, SZ_2M);
	uintptr_t ram_end = min(dt.ram_start + dt.ram_size, (u64)MAP_LIMIT);
	u64 *dev = zeroed_page();

	kernel_l1 = zeroed_page();
	kernel_l1[0] = (uintptr_t)dev | PTE_VALID | PTE_TABLE;
	for (int i = 1; i < 512; i++)	/* dev[0] stays invalid: page 0 */
		dev[i] = ((uintptr_t)i * SZ_2M) | BLOCK_DEVICE;

	for (uintptr_t base = max(ram_start, DEVICE_END); base < ram_end; base += SZ_2M) {
		u64 *l2 = next_table(kernel_l1[base >> 30]);
		u64 *l3 = zeroed_page();

		if (!l2) {
			l2 = zeroed_page();
			kernel_l1[base >> 30] = (uintptr_t)l2 | PTE_VALID | PTE_TABLE;
		}
		for (int k = 0; k < 512; k++) {
			uintptr_t a = base + ((uintptr_t)k << 12);

			l3[k] = a < ram_end ? page_desc(a) : 0;
		}
		l2[(base >> 21) & 511] = (uintptr_t)l3 | PTE_VALID | PTE_TABLE;
	}
	mmu_cpu_init();
	printk("mmu: page 0 unmapped, text read-only, data not executable, stack guard pages\n");
}

/*
 * Makes a page a guard page (invalid) or ordinary memory again.  AArch64
 * broadcasts TLB invalidation in hardware (tlbi ...is reaches every CPU
 * in the inner-shareable domain), so unlike x86 no IPI is needed: the
 * dsb ish waits until every CPU has dropped the old translation.
 */
void arch_stack_guard(void *page, bool guard)
{
	u64 *pte = pte_of((uintptr_t)page);

	if (!pte)
		return;
	WRITE_ONCE(*pte, guard ? 0 : page_desc((uintptr_t)page));
	/*
	 * [guard_tlbi_dsb] pairs [hw_table_walk]: the new entry is visible
	 * to the walkers before the invalidation, and the invalidation is
	 * complete on every CPU before we go on: otherwise a CPU could keep
	 * using the old translation and write through a guard page.
	 */
	__asm__ __volatile__("dsb ishst\n\t"
			     "tlbi vaae1is, %0\n\t"
			     "dsb ish\n\t"
			     "isb" : : "r"((uintptr_t)page >> 12) : "memory");
}
