/*
 * User address spaces on x86-64: four-level page tables, one PML4 per
 * address space (kernel/user/mm.c decides what is mapped,
 * kernel/user/pgtable.c walks the levels; this file only writes the
 * entries).
 *
 *	PML4[0]		the kernel's: the same PDPT in every PML4, so the
 *			kernel is mapped identically everywhere; without the
 *			U/S bit, so user mode can touch none of it
 *	PML4[1..255]	user space, 512 GiB to 128 TiB: U/S set on every
 *			level; each page writable or not, executable or not
 *			(NX), never both (mm.c refuses W+X)
 *	PML4[256..511]	the upper canonical half: unused
 *
 * No global pages and no PCIDs: loading CR3 drops every translation of
 * the address space loaded before, which is what kernel/user/tlb.c's
 * "only the CPUs that have it loaded" rests on.
 */
#include "x86.h"
#include "user/pgtable.h"
#include "syscall.h"
#include "user_layout.h"
#include <asm/mm.h>
#include <errno.h>

#define PTE_P		(1ULL << 0)
#define PTE_W		(1ULL << 1)
#define PTE_U		(1ULL << 2)
#define PTE_PWT		(1ULL << 3)
#define PTE_PCD		(1ULL << 4)	/* with PWT: uncached (PAT entry 3, the reset value) */
#define PTE_ADDR	0x000ffffffffff000ULL
#define USER_PML4_FIRST	(USER_BASE >> 39)	/* 1 */
#define USER_PML4_END	256			/* the lower half ends */
#define FLUSH_ALL_PAGES	32			/* more: reload CR3 instead of invlpg each */

/* Intermediate levels allow everything; the last level decides. */
static const struct pt_bits bits = {
	.valid = PTE_P, .addr = PTE_ADDR, .table = PTE_P | PTE_W | PTE_U,
};

int arch_mm_init(struct arch_mm *am, struct quota *q)
{
	am->table_pages = 0;
	am->quota = q;
	memset(am->io_ports, 0, sizeof(am->io_ports));
	am->pml4 = pt_alloc_table(&am->table_pages, q);
	if (!am->pml4)
		return -ENOMEM;
	/* The kernel's 512 GiB, shared: supervisor-only, as the kernel's own PML4 has it. */
	am->pml4[0] = ((u64 *)mmu_kernel_tables())[0];
	return 0;
}

static u64 *walk(struct arch_mm *am, uintptr_t va, bool create)
{
	return pt_walk(am->pml4, va, create, &bits, &am->table_pages, am->quota);
}

int arch_mm_map(struct arch_mm *am, uintptr_t va, uintptr_t pa, int prot)
{
	u64 *pte = walk(am, va, true);

	if (!pte)
		return -ENOMEM;
	WRITE_ONCE(*pte, pa | PTE_P | PTE_U | (prot & SYS_PROT_WRITE ? PTE_W : 0) |
			 (prot & ARCH_PROT_DEVICE ? PTE_PCD | PTE_PWT | mmu_nx_bit() : 0) |
			 (prot & SYS_PROT_EXEC ? 0 : mmu_nx_bit()));
	return 0;
}

uintptr_t arch_mm_unmap(struct arch_mm *am, uintptr_t va)
{
	u64 *pte = walk(am, va, false), old;

	if (!pte || !(*pte & PTE_P))
		return 0;
	old = *pte;
	WRITE_ONCE(*pte, 0);
	return old & PTE_ADDR;
}

uintptr_t arch_mm_lookup(struct arch_mm *am, uintptr_t va)
{
	u64 *pte = walk(am, va, false);

	return pte && (*pte & PTE_P) ? (*pte & PTE_ADDR) : 0;
}

void arch_mm_destroy(struct arch_mm *am)
{
	pt_free(am->pml4, USER_PML4_FIRST, USER_PML4_END, &bits, &am->table_pages, am->quota);
	am->pml4 = NULL;
}

void arch_mm_switch(struct arch_mm *am)
{
	uintptr_t cr3 = am ? (uintptr_t)am->pml4 : mmu_kernel_tables();

	__asm__ __volatile__("mov %0, %%cr3" : : "r"(cr3) : "memory");
	if (am)
		x86_io_load(am->io_ports);	/* (the kernel's tables: no user mode runs) */
}

/* mm->lock held (kernel/object/device.c): up to IO_RANGES ranges per address space. */
int arch_io_grant(struct arch_mm *am, unsigned int base, unsigned int n)
{
	u32 want = base | n << 16;
	unsigned long flags;
	int free = -1;

	if (!n || n > IO_BITMAP_PORTS || base > IO_BITMAP_PORTS - n)
		return -EINVAL;
	for (int i = 0; i < IO_RANGES; i++) {
		if (am->io_ports[i] == want) {
			am->io_grants[i]++;	/* granted already: one more grant stands for it */
			return 0;
		}
		if (!am->io_ports[i] && free < 0)
			free = i;
	}
	if (free < 0)
		return -ENOSPC;
	am->io_grants[free] = 1;
	WRITE_ONCE(am->io_ports[free], want);
	flags = arch_irq_save();	/* the caller's CPU has am loaded: its bitmap now */
	x86_io_load(am->io_ports);
	arch_irq_restore(flags);
	return 0;
}

/*
 * mm->lock held: one grant of the range goes -- the range itself with its
 * last; tlb_shootdown() then reloads each CPU's bitmap.
 */
void arch_io_revoke(struct arch_mm *am, unsigned int base, unsigned int n)
{
	for (int i = 0; i < IO_RANGES; i++)
		if (am->io_ports[i] == (base | n << 16) && !--am->io_grants[i])
			WRITE_ONCE(am->io_ports[i], 0);
}

/* Interrupts off, am loaded here (tlb_shootdown()). */
void arch_flush_tlb_user(struct arch_mm *am, uintptr_t start, uintptr_t end)
{
	x86_io_load(am->io_ports);	/* a revoked grant rides the shootdown */
	if ((end - start) / PAGE_SIZE > FLUSH_ALL_PAGES) {
		__asm__ __volatile__("mov %%cr3, %%rax; mov %%rax, %%cr3" ::: "rax", "memory");
		return;
	}
	for (uintptr_t a = start; a < end; a += PAGE_SIZE)
		__asm__ __volatile__("invlpg (%0)" : : "r"(a) : "memory");
}

long arch_mm_table_pages(void)
{
	return pt_table_pages();
}
