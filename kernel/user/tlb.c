/*
 * Switching address spaces, and TLB shootdowns.
 *
 * A CPU caches translations in its TLB, and nothing it does on its own
 * notices that a page-table entry changed.  So before a frame unmapped
 * from an address space is reused, every CPU that could still translate
 * to it must have dropped that translation: a TLB shootdown.  It is a
 * grace period of its own, beside RCU's (docs/user.md): the frame is
 * the removed element, the CPUs' TLBs its readers, and their flushes the
 * quiescent states that end it; the unmapping CPU waits for all of them
 * before page_free().
 *
 * Which CPUs?  A CPU that loaded another address space uses no
 * translation of mm again before dropping it (arch_mm_switch(): x86-64's
 * CR3 write drops them, no PCIDs; AArch64 keeps them tagged with mm's
 * ASID and flushes that ASID before loading mm again if an unmap marked
 * it stale meanwhile).  So only the CPUs that have mm loaded now need
 * asking, and mm->cpus is that set: set before loading, cleared once
 * another is loaded.  Asking only those CPUs matters under TCG, where an
 * IPI to a vCPU whose host thread sleeps costs milliseconds and a
 * broadcast invalidation stops every vCPU.
 *
 * The race: a CPU loading mm while another unmaps from it.
 *   unmapper: clear the PTE, [tlb_unmap_mb], read mm->cpus
 *   switcher: set its bit in mm->cpus, [tlb_switch_mb], load mm (its
 *             table walker reads the PTEs from then on)
 * A store then a load on each side, a full barrier between: either the
 * unmapper sees the bit and asks that CPU to flush, or the switcher's
 * walks see the PTE already cleared.  Never neither.
 */
#include "user/mm.h"

static DEFINE_PER_CPU(struct mm_struct *, loaded_mm);
static DEFINE_PER_CPU(unsigned long, flush_ipis_taken);

struct mm_struct *current_mm_loaded(void)
{
	return this_cpu_read(loaded_mm);
}

void switch_mm(struct mm_struct *next)
{
	int cpu = smp_processor_id();
	struct mm_struct *prev = per_cpu(loaded_mm, cpu);

	if (prev == next)
		return;
	if (next) {
		cpumask_set_cpu(cpu, &next->cpus);
		/*
		 * [tlb_switch_mb] pairs [tlb_unmap_mb]: our bit is visible
		 * before our table walks read next's entries (see above).
		 */
		smp_mb();
	}
	arch_mm_switch(next ? &next->arch : NULL);
	per_cpu(loaded_mm, cpu) = next;
	/*
	 * prev's translations are gone from this CPU (arch_mm_switch()
	 * flushed them, or they are tagged apart and never used again
	 * before a flush): an unmapper may skip us from now on.
	 */
	if (prev)
		cpumask_clear_cpu(cpu, &prev->cpus);
}

struct flush_info {
	struct mm_struct *mm;
	uintptr_t start, end;
};

/* On each CPU asked: drop the range's translations, if mm is still loaded here. */
static void flush_tlb_ipi(void *arg)
{
	struct flush_info *f = arg;

	this_cpu_write(flush_ipis_taken, this_cpu_read(flush_ipis_taken) + 1);
	if (this_cpu_read(loaded_mm) == f->mm)
		arch_flush_tlb_user(&f->mm->arch, f->start, f->end);
}

/* mm->lock held (so the counters need nothing more); interrupts on. */
void tlb_shootdown(struct mm_struct *mm, uintptr_t start, uintptr_t end)
{
	struct flush_info f = { .mm = mm, .start = start, .end = end };
	struct cpumask others;
	int me, n;

	/*
	 * [tlb_unmap_mb] pairs [tlb_switch_mb]: the cleared PTEs are visible
	 * before we read which CPUs have mm loaded (see above).
	 */
	smp_mb();
	local_irq_disable();
	me = smp_processor_id();
	if (this_cpu_read(loaded_mm) == mm)
		arch_flush_tlb_user(&mm->arch, start, end);
	cpumask_copy(&others, &mm->cpus);
	__cpumask_clear_cpu(me, &others);
	local_irq_enable();
	n = cpumask_weight(&others);
	if (!n)
		return;
	mm->tlb_shootdowns++;
	mm->tlb_ipis += n;
	cpumask_or(&mm->tlb_ipi_cpus, &mm->tlb_ipi_cpus, &others);
	/*
	 * wait: returns once every CPU asked has flushed (on_each_cpu_mask's
	 * completion orders their flushes before our page_free()).
	 */
	on_each_cpu_mask(&others, flush_tlb_ipi, &f, true);
}

unsigned long tlb_flush_ipis_taken(int cpu)
{
	return READ_ONCE(per_cpu(flush_ipis_taken, cpu));
}
