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
 *   switcher: set its bit in mm->cpus, [switch_mm_mb], load mm (its
 *             table walker reads the PTEs from then on)
 * A store then a load on each side, a full barrier between: either the
 * unmapper sees the bit and asks that CPU to flush, or the switcher's
 * walks see the PTE already cleared.  Never neither.
 *
 * membarrier() (membarrier.c) reads the other thing a switch announces:
 * loaded_mm, each CPU's current address space, which it compares with
 * the caller's to find the CPUs that may run the caller's threads.  The
 * same full barrier follows that store, before the CPU runs any code of
 * the new address space's: the same race, with what the membarrier()
 * caller did before its call in place of the cleared PTE.
 */
#include "user/mm.h"
#include "user/membarrier.h"

DEFINE_PER_CPU(struct mm_struct *, loaded_mm);
static DEFINE_PER_CPU(unsigned long, flush_ipis_taken);
/* Checking build: this CPU stored a new loaded_mm and has not passed [switch_mm_mb] yet. */
static DEFINE_PER_CPU(bool, switch_mb_owed);

struct mm_struct *current_mm_loaded(void)
{
	return this_cpu_read(loaded_mm);
}

struct mm_struct *mm_loaded_on(int cpu)
{
	return READ_ONCE(per_cpu(loaded_mm, cpu));
}

/* After announcing that this CPU runs next: the barrier before anything of next's runs. */
static void switch_mm_barrier(int cpu, struct mm_struct *next)
{
	WRITE_ONCE(per_cpu(switch_mb_owed, cpu), CONFIG_RCU_CHECKING);
	if (membarrier_injected(MEMBARRIER_INJECT_SWITCH_NO_MB) &&
	    READ_ONCE(next->membarrier_registered))
		return;		/* fault injection: the barrier the issue found missing */
	/*
	 * [switch_mm_mb] pairs [tlb_unmap_mb], [membarrier_begin_mb]: our
	 * bit in next->cpus and loaded_mm are visible before our table walks
	 * read next's entries, and before any code of next's runs here (ERET
	 * and ISB are no barriers on AArch64).  So an unmapper sees our bit
	 * or we see its cleared PTE; and a membarrier() caller in next sees
	 * us in next (and interrupts us), or our accesses in next see what
	 * it did before its call.  Store buffering both, a full barrier on
	 * each side: [schedule_mb], before the switch's stores, cannot
	 * order them before what follows.
	 */
	smp_mb();
	WRITE_ONCE(per_cpu(switch_mb_owed, cpu), false);
	membarrier_note_barrier(cpu);
}

void __switch_mm(struct mm_struct *prev, struct mm_struct *next, int cpu)
{
	/*
	 * What this CPU runs from now on, for the CPUs that ask (interrupts
	 * are off, so our own flush IPIs see it once the switch is over).
	 * Leaving prev takes no barrier here: [schedule_mb], or
	 * [membarrier_exit_mb] on a thread's way out, came before.
	 */
	if (next)
		cpumask_set_cpu(cpu, &next->cpus);
	WRITE_ONCE(per_cpu(loaded_mm, cpu), next);
	if (next)
		switch_mm_barrier(cpu, next);
	arch_mm_switch(next ? &next->arch : NULL);
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

	this_cpu_inc(flush_ipis_taken);
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
	 * [tlb_unmap_mb] pairs [switch_mm_mb]: the cleared PTEs are visible
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

void switch_mm_check_user_return(void)
{
	if (CONFIG_RCU_CHECKING && unlikely(this_cpu_read(switch_mb_owed)))
		panic("BUG: CPU%d returns to user mode in %s after loading its address space "
		      "with no full barrier since: a membarrier() may miss what it does "
		      "([switch_mm_mb], kernel/user/tlb.c)", smp_processor_id(), current->comm);
}
