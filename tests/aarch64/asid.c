/*
 * AArch64 ASIDs (arch/aarch64/user_mm.c), shown with event counts: each
 * live address space has an ASID of its own, never the kernel's 0; a CPU
 * keeps an address space's TLB entries across switches, dropping them
 * (a local flush of its ASID) only before its first load of it and after
 * an unmap while it was not loaded there, on every CPU that did not flush
 * then; an address space beyond the ASIDs there are shares the last one,
 * flushed at every load.  (Under TCG QEMU flushes its whole TLB when the
 * ASID changes, so only the counts can show the protocol.)
 */
#include "ktest.h"
#include "aarch64.h"
#include "user/mm.h"

#define LIVE	32

static unsigned long flushes(void)
{
	return arch_asid_flushes(smp_processor_id());
}

/* Loads each of mms in turn on this CPU (interrupts off): the flushes it took. */
static unsigned long load_each(struct mm_struct **mms, int n)
{
	unsigned long flags, before;

	local_irq_save(flags);
	before = flushes();
	for (int i = 0; i < n; i++)
		switch_mm(mms[i]);
	switch_mm(NULL);
	before = flushes() - before;
	local_irq_restore(flags);
	return before;
}

KTEST(asid_own_per_address_space_and_flushed_only_when_stale)
{
	struct mm_struct *mm[LIVE] = { 0 };
	unsigned long first, again, after_unmap, other_after_unmap;
	long page;

	for (int i = 0; i < LIVE; i++) {
		mm[i] = mm_create(NULL);
		KASSERT(mm[i]);
		KEXPECT(mm[i]->arch.asid != 0);
		for (int j = 0; j < i; j++)
			KEXPECT(mm[i]->arch.asid != mm[j]->arch.asid);
	}
	first = load_each(mm, 2);		/* new: stale everywhere */
	again = load_each(mm, 2);		/* their entries kept, nothing to drop */
	page = mm_map(mm[0], 0, PAGE_SIZE, SYS_PROT_READ | SYS_PROT_WRITE, VM_ANON);
	KEXPECT(page > 0);
	KEXPECT_EQ(mm_unmap(mm[0], page, PAGE_SIZE), 0);
	after_unmap = load_each(mm, 1);		/* mm[0] lost a page meanwhile */
	other_after_unmap = load_each(mm + 1, 1);	/* mm[1] did not */
	for (int i = 0; i < LIVE; i++)
		mm_put(mm[i]);
	KEXPECT_EQ(first, 2);
	KEXPECT_EQ(again, 0);
	KEXPECT_EQ(after_unmap, 1);
	KEXPECT_EQ(other_after_unmap, 0);
}

KTEST(asid_beyond_the_last_is_shared_and_flushed_at_every_load)
{
	struct mm_struct *mm[4] = { 0 };
	unsigned int saved = arch_asid_limit(4);	/* ASIDs 1, 2 of their own, 3 shared */
	unsigned long first, again;

	for (int i = 0; i < 4; i++)
		mm[i] = mm_create(NULL);
	arch_asid_limit(saved);
	for (int i = 0; i < 4; i++)
		KASSERT(mm[i]);
	KEXPECT(mm[0]->arch.asid != mm[1]->arch.asid);
	KEXPECT_EQ(mm[2]->arch.asid, 3);
	KEXPECT_EQ(mm[3]->arch.asid, 3);
	first = load_each(mm, 4);
	again = load_each(mm, 4);
	for (int i = 0; i < 4; i++)
		mm_put(mm[i]);
	KEXPECT_EQ(first, 4);
	KEXPECT_EQ(again, 2);		/* the two sharing ASID 3, each time */
}
