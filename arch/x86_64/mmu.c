/*
 * The kernel's page tables, built once the page allocator works, replacing
 * the boot tables (boot/x86_64/entry.S: 4 GiB of writable, executable
 * 2 MiB pages).  Only RAM -- the pages the memory map calls available --
 * is mapped as RAM, with 4 KiB pages so each can carry its own protection:
 *
 *	page 0			not present: a NULL dereference faults
 *	kernel text		read-only, executable (CR0.WP: even for the kernel)
 *	rodata, .ksyms		read-only, not executable
 *	data, bss, free RAM	writable, not executable (EFER.NXE)
 *	stack guard pages	not present: a stack overflow faults (the
 *				double-fault and NMI stacks' too: cpu_tables.c)
 *
 * Everything else below 4 GiB -- the legacy hole below 1 MiB (VGA, BIOS),
 * firmware tables, the PCI hole under 4 GiB with the local APIC -- is
 * uncached and not executable: 2 MiB pages where a block holds no RAM,
 * 4 KiB pages beside RAM.  Write-back caching of device registers, or of
 * addresses where nothing answers, is what hardware does not forgive.
 */
#include "x86.h"

#define PTE_P		(1ULL << 0)
#define PTE_W		(1ULL << 1)
#define PTE_PWT		(1ULL << 3)
#define PTE_PCD		(1ULL << 4)
#define PTE_PS		(1ULL << 7)
#define PTE_NX		(1ULL << 63)
#define PTE_ADDR	0x000ffffffffff000ULL
#define EFER_NXE	(1ULL << 11)
#define MAP_LIMIT	(1ULL << 32)

extern char __kernel_start[], __text_end[], __data_start[], __kernel_end[];
extern char boot_stack_guard[];
static u64 *kernel_pml4;
static u64 nx_bit;

static u64 *zeroed_page(void)
{
	u64 *p = page_alloc(1);

	if (!p)
		panic("mmu: out of memory for page tables");
	memset(p, 0, PAGE_SIZE);
	return p;
}

#define SZ_2M		(2ULL << 20)
#define MAX_REGIONS	64
#define PAGE_DEVICE	(PTE_P | PTE_W | PTE_PCD | PTE_PWT)	/* uncached */

static struct mem_region ram[MAX_REGIONS];
static int nr_ram;

/* Is [start, end) inside one available region? */
static bool all_ram(uintptr_t start, uintptr_t end)
{
	for (int i = 0; i < nr_ram; i++)
		if (start >= ram[i].start && end <= ram[i].end)
			return true;
	return false;
}

/* Does [start, end) overlap any available region? */
static bool any_ram(uintptr_t start, uintptr_t end)
{
	for (int i = 0; i < nr_ram; i++)
		if (start < ram[i].end && end > ram[i].start)
			return true;
	return false;
}

/* The protection of one 4 KiB page of RAM. */
static u64 page_flags(uintptr_t a)
{
	if (a == 0)
		return 0;
	int cpu;

	if (a == (uintptr_t)boot_stack_guard || x86_ist_guard(a, &cpu))
		return 0;
	if (a >= (uintptr_t)__kernel_start && a < (uintptr_t)__text_end)
		return PTE_P;
	if (a >= (uintptr_t)__text_end && a < (uintptr_t)__data_start)
		return PTE_P | nx_bit;
	return PTE_P | PTE_W | nx_bit;
}

static u64 *pte_of(uintptr_t a)
{
	u64 *pdpt = (u64 *)(kernel_pml4[0] & PTE_ADDR);
	u64 *pd = (u64 *)(pdpt[a >> 30] & PTE_ADDR);
	u64 pde = pd[(a >> 21) & 511];

	if (pde & PTE_PS)
		return NULL;
	return (u64 *)(pde & PTE_ADDR) + ((a >> 12) & 511);
}

/* The kernel's top-level table, which every CPU loads into CR3. */
uintptr_t mmu_kernel_tables(void)
{
	return (uintptr_t)kernel_pml4;
}

void mmu_cpu_init(void)
{
	u32 a, b, c, d;

	cpuid(0x80000001, &a, &b, &c, &d);
	if (d & (1u << 20))
		wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
	if (kernel_pml4)
		__asm__ __volatile__("mov %0, %%cr3" : : "r"(kernel_pml4) : "memory");
}

/* The 4 KiB pages of the 2 MiB block at base: RAM as page_flags() says, the rest uncached. */
static u64 *block_page_table(uintptr_t base)
{
	u64 *pt = zeroed_page();
	bool whole = all_ram(base, base + SZ_2M);

	for (int k = 0; k < 512; k++) {
		uintptr_t a = base + ((uintptr_t)k << 12);

		if (whole || all_ram(a, a + PAGE_SIZE))
			pt[k] = a | page_flags(a);
		else
			pt[k] = a | PAGE_DEVICE | nx_bit;
	}
	return pt;
}

void mmu_init(void)
{
	u64 *pdpt = zeroed_page();
	u32 a, b, c, d;

	nr_ram = arch_mem_regions(ram, MAX_REGIONS);
	cpuid(0x80000001, &a, &b, &c, &d);
	nx_bit = (d & (1u << 20)) ? PTE_NX : 0;
	if (!nx_bit)
		printk("mmu: this CPU has no NX bit: data stays executable\n");
	kernel_pml4 = zeroed_page();
	kernel_pml4[0] = (uintptr_t)pdpt | PTE_P | PTE_W;
	for (int g = 0; g < 4; g++) {
		u64 *pd = zeroed_page();

		pdpt[g] = (uintptr_t)pd | PTE_P | PTE_W;
		for (int i = 0; i < 512; i++) {
			uintptr_t base = ((uintptr_t)g << 30) | ((uintptr_t)i << 21);

			if (any_ram(base, base + SZ_2M))
				pd[i] = (uintptr_t)block_page_table(base) | PTE_P | PTE_W;
			else	/* no RAM at all: one uncached 2 MiB page */
				pd[i] = base | PAGE_DEVICE | PTE_PS | nx_bit;
		}
	}
	mmu_cpu_init();
	printk("mmu: page 0 unmapped, text read-only, data %sexecutable, stack guard pages\n",
	       nx_bit ? "not " : "");
}

/* For tests (arch.h): how the kernel's tables map addr. */
enum arch_mapping arch_mapping_of(uintptr_t addr)
{
	u64 *pdpt, *pd, e;

	if (!kernel_pml4 || addr >= MAP_LIMIT)
		return ARCH_MAP_NONE;
	pdpt = (u64 *)(kernel_pml4[0] & PTE_ADDR);
	pd = (u64 *)(pdpt[addr >> 30] & PTE_ADDR);
	e = pd[(addr >> 21) & 511];
	if ((e & PTE_P) && !(e & PTE_PS))
		e = ((u64 *)(e & PTE_ADDR))[(addr >> 12) & 511];
	if (!(e & PTE_P))
		return ARCH_MAP_NONE;
	return (e & (PTE_PCD | PTE_PWT)) ? ARCH_MAP_DEVICE : ARCH_MAP_RAM;
}

/*
 * Does the page table this CPU runs on (CR3) map addr uncached?  Read,
 * not assumed: the boot tables map everything write-back.
 */
bool mmu_uncached(uintptr_t addr)
{
	u64 *t = (u64 *)(uintptr_t)(read_cr3() & PTE_ADDR), e;

	if (addr >= MAP_LIMIT)
		return false;
	t = (u64 *)(uintptr_t)(t[0] & PTE_ADDR);		/* PDPT */
	e = t[addr >> 30];
	if (!(e & PTE_P))
		return false;
	e = ((u64 *)(uintptr_t)(e & PTE_ADDR))[(addr >> 21) & 511];	/* PDE */
	if ((e & PTE_P) && !(e & PTE_PS))
		e = ((u64 *)(uintptr_t)(e & PTE_ADDR))[(addr >> 12) & 511];
	return (e & PTE_P) && (e & PTE_PCD);
}

/*
 * TLB shootdown by NMI.  A guard page must be absent from every CPU's
 * TLB, and arch_stack_guard() may run with interrupts off, where an IPI
 * (on_each_cpu()) could wait for a CPU that waits for us: an NMI reaches
 * a CPU whatever it masks.  Each shootdown takes a generation; a CPU
 * flushes in its NMI handler when it has not flushed for the latest yet.
 */
static int tlb_gen;			/* shootdowns asked for */
static int tlb_flushed[NR_CPUS];	/* the generation each CPU last flushed for */

/* From the NMI handler (trap.c), whatever the NMI was sent for. */
void mmu_nmi_tlb_flush(void)
{
	int me = smp_processor_id();
	/*
	 * [tlb_gen_acquire] pairs [tlb_gen_inc]: the flush below comes after
	 * the page-table write that this generation announces: or we could
	 * flush too early and keep the old entry.
	 */
	int gen = __atomic_load_n(&tlb_gen, __ATOMIC_ACQUIRE);

	if (gen == READ_ONCE(tlb_flushed[me]))
		return;
	__asm__ __volatile__("mov %%cr3, %%rax; mov %%rax, %%cr3" ::: "rax", "memory");
	/* [tlb_flushed_release] pairs [tlb_flushed_acquire]: our TLB is clean before we say so. */
	smp_store_release(&tlb_flushed[me], gen);
}

static void tlb_shootdown(void)
{
	int me = smp_processor_id(), cpu;
	/*
	 * [tlb_gen_inc] pairs [tlb_gen_acquire]: fully ordered after our
	 * page-table write: a CPU that sees this generation flushes after it.
	 */
	int gen = __atomic_add_fetch(&tlb_gen, 1, __ATOMIC_SEQ_CST);

	for_each_online_cpu(cpu)
		if (cpu != me)
			arch_send_nmi(cpu);
	for_each_online_cpu(cpu) {
		/*
		 * [tlb_flushed_acquire] pairs [tlb_flushed_release]: once it
		 * says it flushed, it did.  A CPU going offline (it halts and
		 * comes back through INIT, with an empty TLB) or stopped by a
		 * panic is not waited for.
		 */
		while (cpu != me && (int)((unsigned)smp_load_acquire(&tlb_flushed[cpu]) - gen) < 0 &&
		       cpu_online(cpu) && !panic_in_progress())
			cpu_relax();
	}
}

/*
 * Makes a page a guard page (not present) or ordinary memory again.  Other
 * CPUs may hold the old translation in their TLBs: a guard page they could
 * still write through would not guard, so they flush theirs too, with
 * interrupts on or off.  (Making it memory again needs no shootdown: a
 * stale "not present" only faults into a fresh walk.)
 */
void arch_stack_guard(void *page, bool guard)
{
	u64 *pte = kernel_pml4 ? pte_of((uintptr_t)page) : NULL;

	if (!pte)
		return;
	WRITE_ONCE(*pte, guard ? 0 : ((uintptr_t)page | PTE_P | PTE_W | nx_bit));
	__asm__ __volatile__("invlpg (%0)" : : "r"(page) : "memory");
	if (guard && num_online_cpus() > 1)
		tlb_shootdown();
}
