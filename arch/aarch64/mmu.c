/*
 * The kernel's page tables, built once the page allocator works, replacing
 * the boot map (boot/aarch64/entry.S: 2 MiB blocks of RAM, executable and
 * writable).  The same identity map, with RAM in 4 KiB pages so each can
 * carry its own protection, as on x86-64 (arch/x86_64/mmu.c):
 *
 *	0 - 2 MiB		not mapped: a NULL dereference faults
 *	rest of 0 - 1 GiB	devices: 2 MiB blocks, device-nGnRnE, never executable
 *	kernel text		read-only, executable
 *	rodata, .ksyms		read-only, not executable
 *	data, bss, free RAM	writable, not executable
 *	stack guard pages	not mapped: a stack overflow faults (exception
 *				stacks' too: exception_stack.h)
 *	beyond RAM		not mapped
 *
 * 4 KiB granule, 48-bit virtual addresses: the walk starts at level 0,
 * whose entry 0 (the first 512 GiB) is the kernel's, shared by every user
 * address space (arch/aarch64/user_mm.c) and closed to EL0 at that level
 * already (APTable, UXNTable); its level-1 table has four 1 GiB entries in
 * use, then level 2 (2 MiB), then level 3 (4 KiB).  Every kernel mapping
 * is global (nG clear): its TLB entries serve every ASID, so switching
 * address spaces keeps them.  RAM is normal write-back memory, inner
 * shareable: the exclusive loads and stores of spinlocks and atomics need it.
 *
 * The boot CPU moves from the boot map to these tables with a break (the
 * MMU off) in between: mmu_switch_ttbr0() in entry.S.  The other CPUs start
 * on these tables (secondary_entry).
 */
#include "aarch64.h"

#define PTE_VALID	(1ULL << 0)
#define PTE_TABLE	(1ULL << 1)	/* levels 1-2: next-level table; level 3: page */
#define PTE_ATTR_DEVICE	(0ULL << 2)	/* MAIR_EL1 attribute 0 (entry.S) */
#define PTE_ATTR_NORMAL	(1ULL << 2)	/* MAIR_EL1 attribute 1 */
#define PTE_ATTR_MASK	(7ULL << 2)
#define PTE_RDONLY	(1ULL << 7)	/* AP[2] */
#define PTE_INNER_SH	(3ULL << 8)
#define PTE_AF		(1ULL << 10)
#define PTE_PXN		(1ULL << 53)
#define PTE_UXN		(1ULL << 54)
#define PTE_ADDR	0x0000fffffffff000ULL
/* Table descriptors: limits on everything below them. */
#define TABLE_UXN	(1ULL << 60)	/* UXNTable: EL0 executes nothing below */
#define TABLE_AP_NO_EL0	(1ULL << 61)	/* APTable = 01: EL0 accesses nothing below */

#define PTE_NORMAL	(PTE_VALID | PTE_TABLE | PTE_ATTR_NORMAL | PTE_INNER_SH | PTE_AF)
#define PAGE_TEXT	(PTE_NORMAL | PTE_RDONLY | PTE_UXN)
#define PAGE_RODATA	(PTE_NORMAL | PTE_RDONLY | PTE_PXN | PTE_UXN)
#define PAGE_DATA	(PTE_NORMAL | PTE_PXN | PTE_UXN)
#define BLOCK_DEVICE	(PTE_VALID | PTE_ATTR_DEVICE | PTE_AF | PTE_PXN | PTE_UXN)

#define SZ_2M		(2UL << 20)
#define SZ_1G		(1UL << 30)
#define MAP_LIMIT	(1ULL << 32)

extern char __kernel_start[], __text_end[], __data_start[], __kernel_end[];
static u64 *kernel_l0, *kernel_l1;

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
	if (a == boot_stack_guard || exception_stack_guard(a))
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
 * [hw_table_walk] pairs [boot_map_dsb], [boot_block_dsb], [guard_tlbi_dsb],
 * [pt_table_wmb], [user_map_dsb], [user_pte_dsb], [user_tlbi_dsb],
 * [user_tlbi_pages_dsb]: the hardware side: the MMU's table
 * walker reads the page tables with no barrier of its own and caches what
 * it read in the TLB, so a table written without a dsb, or a stale TLB
 * entry, gives a CPU an old or half-written mapping.  (The switch to the
 * kernel's tables, with its own dsb and TLB invalidation, is
 * mmu_switch_ttbr0() in boot/aarch64/entry.S; user tables are
 * arch/aarch64/user_mm.c's.)
 */

/*
 * The boot map's tables (entry.S) and a level-3 table for a last 2 MiB
 * block that RAM only partly fills.
 */
extern u64 boot_l1[512], boot_l2[3][512];
static u64 boot_l3_tail[512] __aligned(PAGE_SIZE);

#define BLOCK_NORMAL	(PTE_VALID | PTE_ATTR_NORMAL | PTE_INNER_SH | PTE_AF)
#define RAM_BASE	DEVICE_WINDOW_END

/* Maps the 2 MiB block at a (RAM side, below MAP_LIMIT) as normal memory, unless it is. */
static void boot_map_block(uintptr_t a)
{
	u64 *l2 = boot_l2[(a - RAM_BASE) >> 30];

	boot_l1[a >> 30] = (uintptr_t)l2 | PTE_VALID | PTE_TABLE;
	if (!(l2[(a >> 21) & 511] & PTE_VALID))
		l2[(a >> 21) & 511] = a | BLOCK_NORMAL;
	/* [boot_block_dsb] pairs [hw_table_walk]: or the walker could read the entry before it is written. */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	isb();
}

/*
 * Maps the device tree the boot loader left at blob, before anything
 * says where RAM is: an Image's loader puts it above the kernel, where
 * the boot map has nothing yet.  The arm64 boot protocol (Linux's
 * Documentation/arm64/booting.rst) has the loader keep it 8-byte aligned,
 * at most 2 MiB, and the 2 MiB blocks around it mappable as normal
 * memory: so its block, then, once its header says how far it reaches,
 * the next one if it crosses.  False (nothing mapped) when blob is not
 * where RAM can be (1 to 4 GiB) or not aligned: the caller ignores it.
 */
bool boot_map_fdt(uintptr_t blob)
{
	uintptr_t block = ALIGN_DOWN(blob, SZ_2M), end;
	u32 total;

	if (blob % 8 || blob < RAM_BASE || blob >= MAP_LIMIT)
		return false;
	boot_map_block(block);
	total = __builtin_bswap32(*(const volatile u32 *)(blob + 4));	/* big-endian */
	end = blob + min(total, (u32)SZ_2M);
	if (end > block + SZ_2M && block + SZ_2M < MAP_LIMIT)
		boot_map_block(block + SZ_2M);
	return true;
}

/*
 * Adds the rest of RAM to the boot map once the device tree has said
 * where it ends: entry.S mapped only the image's 2 MiB blocks, but the
 * page allocator hands out pages above the image before mmu_init() runs.
 * Only invalid entries become valid, which needs no break-before-make: a
 * dsb makes the table writes visible to the walker, an isb to this CPU.
 * (So a block boot_map_fdt() mapped whole stays so, even where RAM ends
 * inside it: the boot protocol allows that much.)
 */
void boot_map_ram(void)
{
	uintptr_t image_end = ALIGN_UP((uintptr_t)__kernel_end, SZ_2M);
	uintptr_t ram_end = min(dt.ram_start + dt.ram_size, (u64)MAP_LIMIT);

	for (uintptr_t a = max(image_end, (uintptr_t)dt.ram_start); a < ram_end; a += SZ_2M) {
		u64 *l2 = boot_l2[(a - RAM_BASE) >> 30];

		boot_l1[a >> 30] = (uintptr_t)l2 | PTE_VALID | PTE_TABLE;
		if (l2[(a >> 21) & 511] & PTE_VALID)
			continue;	/* the device tree's (boot_map_fdt()) */
		if (a + SZ_2M <= ram_end) {
			l2[(a >> 21) & 511] = a | BLOCK_NORMAL;
			continue;
		}
		for (int k = 0; k < 512; k++) {	/* the last block, partly RAM */
			uintptr_t p = a + ((uintptr_t)k << 12);

			boot_l3_tail[k] = p < ram_end ? p | PTE_NORMAL : 0;
		}
		l2[(a >> 21) & 511] = (uintptr_t)boot_l3_tail | PTE_VALID | PTE_TABLE;
	}
	/* [boot_map_dsb] pairs [hw_table_walk]: or the walker could read an entry before it is written. */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	isb();
}

/*
 * Writes the cache lines of [addr, addr + size) back to memory (the point
 * of coherency), for a CPU that reads it with its MMU and caches off.
 */
void dcache_clean_poc(const void *addr, size_t size)
{
	uintptr_t line = 4UL << ((read_sysreg(ctr_el0) >> 16) & 0xf);	/* DminLine: words */
	uintptr_t a = ALIGN_DOWN((uintptr_t)addr, line);

	for (; a < (uintptr_t)addr + size; a += line)
		__asm__ __volatile__("dc cvac, %0" : : "r"(a) : "memory");
	/*
	 * [poc_clean_dsb] pairs [hw_cpu_start]: the cleaning (and every store
	 * before it) is complete before what follows, the PSCI call that
	 * starts a CPU among them: or it could read stale memory.
	 */
	__asm__ __volatile__("dsb sy" ::: "memory");
}

/*
 * What a CPU loads into TTBR0_EL1 to start on the kernel's tables
 * (secondary_entry), and whenever it runs no user address space: ASID 0.
 */
uintptr_t mmu_kernel_tables(void)
{
	return (uintptr_t)kernel_l0;
}

void mmu_init(void)
{
	uintptr_t ram_start = ALIGN_DOWN(dt.ram_start, SZ_2M);
	uintptr_t ram_end = min(dt.ram_start + dt.ram_size, (u64)MAP_LIMIT);
	u64 *dev = zeroed_page();

	kernel_l0 = zeroed_page();
	kernel_l1 = zeroed_page();
	kernel_l0[0] = (uintptr_t)kernel_l1 | PTE_VALID | PTE_TABLE | TABLE_AP_NO_EL0 | TABLE_UXN;
	kernel_l1[0] = (uintptr_t)dev | PTE_VALID | PTE_TABLE;
	for (int i = 1; i < 512; i++)	/* dev[0] stays invalid: page 0 */
		dev[i] = ((uintptr_t)i * SZ_2M) | BLOCK_DEVICE;

	for (uintptr_t base = max(ram_start, DEVICE_WINDOW_END); base < ram_end; base += SZ_2M) {
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
	mmu_switch_ttbr0((uintptr_t)kernel_l0);
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

/* For tests (arch.h): how the kernel's tables map addr. */
enum arch_mapping arch_mapping_of(uintptr_t addr)
{
	u64 desc, *table;
	int shift = 30;

	if (!kernel_l1 || addr >= MAP_LIMIT)
		return ARCH_MAP_NONE;
	desc = kernel_l1[addr >> 30];
	/* Down the table descriptors (levels 1-2) to a block or a page. */
	while ((table = next_table(desc)) && shift > 12) {
		shift -= 9;
		desc = table[(addr >> shift) & 511];
	}
	if (!(desc & PTE_VALID))
		return ARCH_MAP_NONE;
	return (desc & PTE_ATTR_MASK) == PTE_ATTR_NORMAL ? ARCH_MAP_RAM : ARCH_MAP_DEVICE;
}
