/*
 * User address spaces on AArch64: four-level tables through TTBR0 (T0SZ
 * 16: 48-bit addresses), one level-0 table per address space, loaded with
 * its ASID (kernel/user/mm.c decides what is mapped, kernel/user/pgtable.c
 * walks the levels; this file writes the entries and manages ASIDs).
 *
 *	L0[0]		the kernel's: the same level-1 table in every L0
 *			(mmu.c), so the kernel is mapped identically
 *			everywhere; closed to EL0 at level 0 already
 *			(APTable, UXNTable) and in every page (AP[1] clear);
 *			global, so its TLB entries serve every ASID
 *	L0[1..255]	user space, 512 GiB to 128 TiB (lib/user_layout.h):
 *			table entries with PXNTable (the kernel never executes
 *			there); pages non-global (nG: tagged with the ASID),
 *			open to EL0 (AP[1]), read-only unless writable (AP[2]),
 *			never executable at EL1 (PXN), executable at EL0 only
 *			if asked (UXN clear); never writable and executable
 *			both (mm.c refuses W+X)
 *	L0[256..511]	unused: TTBR0 reaches 256 TiB, user space stops at
 *			128 TiB as on x86-64
 *
 * With PAN on (arch/aarch64/user.c) the kernel's own loads and stores to a
 * page EL0 may touch fault: only the unprivileged ldtr/sttr of
 * uaccess.S reach user memory.
 *
 * ASIDs.  Each address space gets its own (8 or 16 bits, as the CPU has:
 * TCR_EL1.AS, boot/aarch64/entry.S), so loading one keeps the TLB entries
 * of the others, tagged apart, instead of flushing them: a task switched
 * back in finds its translations still there.  ASID 0 is the kernel's
 * tables'; the last one is shared by every address space created while
 * all others are taken, and flushed at each load.  An ASID is freed with
 * its address space and given out again, next-fit.
 *
 * Entries kept across switches are what kernel/user/tlb.c's rule "only
 * the CPUs that have it loaded hold its translations" must not miss: a CPU
 * that ran an address space, left it and will load it again may still
 * hold translations of pages unmapped meanwhile (tlb.c asked only the CPUs
 * that had it loaded).  So each address space keeps a mask, `stale`: the
 * CPUs that must drop its ASID's entries before they next load it.  Every
 * unmap marks every CPU; a new address space starts all marked (its ASID
 * may have served one that died, whose entries linger); loading it clears
 * this CPU's bit and, if it was set, flushes the ASID on this CPU only
 * (tlbi aside1, never broadcast).  The race with an unmap, the same store
 * buffering as tlb.c's:
 *	unmapper: clear the PTE, [user_pte_dsb], mark stale, [tlb_unmap_mb],
 *		  read mm->cpus
 *	switcher: set its bit in mm->cpus, [tlb_switch_mb], test-and-clear
 *		  its stale bit, load
 * Either the unmapper sees the switcher in mm->cpus and asks it to flush,
 * or the switcher sees its stale bit and flushes before it loads.  Under
 * TCG, QEMU drops its whole TLB whenever the ASID changes, so the gain is
 * a real CPU's.
 */
#include "aarch64.h"
#include "user/pgtable.h"
#include "syscall.h"
#include "user_layout.h"
#include <asm/mm.h>
#include <errno.h>

#define PTE_VALID	(1ULL << 0)
#define PTE_TABLE	(1ULL << 1)	/* levels 0-2: a table; level 3: a page */
#define PTE_ATTR_NORMAL	(1ULL << 2)	/* MAIR_EL1 attribute 1 (entry.S) */
#define PTE_EL0		(1ULL << 6)	/* AP[1]: EL0 may access */
#define PTE_RDONLY	(1ULL << 7)	/* AP[2] */
#define PTE_INNER_SH	(3ULL << 8)
#define PTE_AF		(1ULL << 10)
#define PTE_NG		(1ULL << 11)	/* not global: tagged with the ASID */
#define PTE_PXN		(1ULL << 53)
#define PTE_UXN		(1ULL << 54)
#define TABLE_PXN	(1ULL << 59)	/* PXNTable: EL1 executes nothing below */
#define PTE_ADDR	0x0000fffffffff000ULL
#define USER_PAGE	(PTE_VALID | PTE_TABLE | PTE_ATTR_NORMAL | PTE_INNER_SH | PTE_AF | \
			 PTE_NG | PTE_EL0 | PTE_PXN)
#define USER_L0_FIRST	(USER_BASE >> 39)		/* 1 */
#define USER_L0_END	((USER_TOP - 1) / (1ULL << 39) + 1)	/* 256 */
#define FLUSH_ALL_PAGES	32		/* more: flush the ASID instead of page by page */
#define TTBR_ASID_SHIFT	48
#define TCR_AS		(1ULL << 36)
#define MAX_ASIDS	(1 << 16)

static const struct pt_bits bits = {
	.valid = PTE_VALID, .addr = PTE_ADDR, .table = PTE_VALID | PTE_TABLE | TABLE_PXN,
};
static DEFINE_SPINLOCK(asid_lock);
static unsigned long asid_map[BITS_TO_LONGS(MAX_ASIDS)];	/* asid_lock */
static unsigned int asid_next = 1;				/* asid_lock */
static unsigned int asid_limit;		/* asid_lock; 0: the CPU's (tests lower it) */
static DEFINE_PER_CPU(unsigned long, asid_flushes);

/* How many ASIDs there are, the kernel's 0 and the shared last one included. */
static unsigned int nr_asids(void)
{
	unsigned int n = read_sysreg(tcr_el1) & TCR_AS ? 1 << 16 : 1 << 8;

	return asid_limit && asid_limit < n ? asid_limit : n;
}

/* A free ASID for am, next-fit from the last one given, or the shared one. */
static void asid_alloc(struct arch_mm *am)
{
	unsigned long flags;
	unsigned int own, asid = 0;

	spin_lock_irqsave(&asid_lock, flags);
	own = nr_asids() - 2;		/* 1 .. own: one address space each */
	for (unsigned int i = 0; i < own && !asid; i++) {
		unsigned int a = (asid_next - 1 + i) % own + 1;

		if (!test_bit(a, asid_map)) {
			__set_bit(a, asid_map);
			asid = a;
			asid_next = a + 1;
		}
	}
	am->asid_shared = !asid;
	am->asid = asid ? asid : own + 1;
	spin_unlock_irqrestore(&asid_lock, flags);
}

static void asid_free(struct arch_mm *am)
{
	unsigned long flags;

	if (am->asid_shared)
		return;
	spin_lock_irqsave(&asid_lock, flags);
	__clear_bit(am->asid, asid_map);
	spin_unlock_irqrestore(&asid_lock, flags);
}

/* For tests: fewer ASIDs from now on (0: all the CPU has); the limit before. */
unsigned int arch_asid_limit(unsigned int n)
{
	unsigned long flags;
	unsigned int old;

	spin_lock_irqsave(&asid_lock, flags);
	old = asid_limit;
	asid_limit = n;
	spin_unlock_irqrestore(&asid_lock, flags);
	return old;
}

/* Every CPU must drop am's ASID entries before it next loads am (see above). */
static void mark_stale(struct arch_mm *am)
{
	int cpu;

	for_each_possible_cpu(cpu)
		cpumask_set_cpu(cpu, &am->stale);
}

int arch_mm_init(struct arch_mm *am, struct quota *q)
{
	am->table_pages = 0;
	am->quota = q;
	am->l0 = pt_alloc_table(&am->table_pages, q);
	if (!am->l0)
		return -ENOMEM;
	/* The kernel's 512 GiB, shared: closed to EL0, as the kernel's own L0 has it. */
	am->l0[0] = ((const u64 *)mmu_kernel_tables())[0];
	asid_alloc(am);
	cpumask_clear(&am->stale);
	mark_stale(am);		/* the ASID may have served an address space now dead */
	return 0;
}

static u64 *walk(struct arch_mm *am, uintptr_t va, bool create)
{
	return pt_walk(am->l0, va, create, &bits, &am->table_pages, am->quota);
}

int arch_mm_map(struct arch_mm *am, uintptr_t va, uintptr_t pa, int prot)
{
	u64 *pte = walk(am, va, true), attr = USER_PAGE;

	if (!pte)
		return -ENOMEM;
	if (prot & ARCH_PROT_DEVICE)	/* Device-nGnRnE (MAIR attribute 0), never executable */
		attr = (USER_PAGE & ~(PTE_ATTR_NORMAL | PTE_INNER_SH)) | PTE_UXN;
	WRITE_ONCE(*pte, pa | attr | (prot & SYS_PROT_WRITE ? 0 : PTE_RDONLY) |
			 (prot & SYS_PROT_EXEC ? 0 : PTE_UXN));
	/*
	 * [user_map_dsb] pairs [hw_table_walk]: the entry is visible to the
	 * walkers before any thread can learn of the page (the system
	 * call's return): an invalid entry is never cached, so no TLB
	 * maintenance is needed, only this.
	 */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	return 0;
}

uintptr_t arch_mm_unmap(struct arch_mm *am, uintptr_t va)
{
	u64 *pte = walk(am, va, false), old;

	if (!pte || !(*pte & PTE_VALID))
		return 0;
	old = *pte;
	WRITE_ONCE(*pte, 0);
	/*
	 * [user_pte_dsb] pairs [hw_table_walk]: the cleared entry is
	 * visible to every walker before we mark the CPUs stale and before
	 * tlb.c asks any CPU to flush (a flush before it could be refilled
	 * from the old entry).
	 */
	__asm__ __volatile__("dsb ishst" ::: "memory");
	mark_stale(am);
	return old & PTE_ADDR;
}

uintptr_t arch_mm_lookup(struct arch_mm *am, uintptr_t va)
{
	u64 *pte = walk(am, va, false);

	return pte && (*pte & PTE_VALID) ? (*pte & PTE_ADDR) : 0;
}

void arch_mm_destroy(struct arch_mm *am)
{
	pt_free(am->l0, USER_L0_FIRST, USER_L0_END, &bits, &am->table_pages, am->quota);
	am->l0 = NULL;
	asid_free(am);
}

/* Drops this CPU's TLB entries of asid, the kernel's global ones kept. */
static void flush_asid_local(u16 asid)
{
	/*
	 * [user_tlbi_dsb] pairs [hw_table_walk]: the invalidation is complete
	 * on this CPU (nsh: it is local) before we go on, or a later access
	 * could still translate through an entry it drops.
	 */
	__asm__ __volatile__("tlbi aside1, %0\n\t"
			     "dsb nsh" : : "r"((u64)asid << TTBR_ASID_SHIFT) : "memory");
	this_cpu_inc(asid_flushes);
}

void arch_mm_switch(struct arch_mm *am)
{
	u64 ttbr = mmu_kernel_tables();		/* ASID 0: no user entry ever carries it */

	if (am) {
		/* (fully ordered: after [tlb_switch_mb]'s bit in mm->cpus, see above) */
		if (am->asid_shared ||
		    cpumask_test_and_clear_cpu(smp_processor_id(), &am->stale))
			flush_asid_local(am->asid);
		ttbr = (uintptr_t)am->l0 | (u64)am->asid << TTBR_ASID_SHIFT;
	}
	write_sysreg(ttbr0_el1, ttbr);
	isb();
}

void arch_flush_tlb_user(struct arch_mm *am, uintptr_t start, uintptr_t end)
{
	u64 asid = (u64)am->asid << TTBR_ASID_SHIFT;

	if ((end - start) / PAGE_SIZE > FLUSH_ALL_PAGES) {
		flush_asid_local(am->asid);
	} else {
		for (uintptr_t a = start; a < end; a += PAGE_SIZE)
			__asm__ __volatile__("tlbi vae1, %0" : : "r"(asid | a >> PAGE_SHIFT)
					     : "memory");
		/* [user_tlbi_pages_dsb] pairs [hw_table_walk]: as [user_tlbi_dsb]. */
		__asm__ __volatile__("dsb nsh" ::: "memory");
	}
	isb();
}

long arch_mm_table_pages(void)
{
	return pt_table_pages();
}

/* For tests and ps: how often this CPU dropped an ASID's entries before loading it. */
unsigned long arch_asid_flushes(int cpu)
{
	return READ_ONCE(per_cpu(asid_flushes, cpu));
}

/* AArch64 has no I/O ports: its devices are memory-mapped. */
int arch_io_grant(struct arch_mm *am, unsigned int base, unsigned int n)
{
	(void)am, (void)base, (void)n;
	return -ENOTSUP;
}

void arch_io_revoke(struct arch_mm *am, unsigned int base, unsigned int n)
{
	(void)am, (void)base, (void)n;
}
