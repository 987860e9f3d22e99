/*
 * Preemption, for the PREEMPT=1 build only (lab preempt,
 * docs/labs/preempt.md).  The kernel is non-preemptive: a task runs until
 * it blocks or yields, which is what makes classic RCU's read side free.
 * PREEMPT=1 makes the timer tick preempt the running task when the
 * interrupt returns, unless it is inside a region a preempt count
 * protects: preempt_disable() .. preempt_enable(), a held spinlock, or
 * interrupts off (no tick arrives there).
 *
 * In the default and production builds (PREEMPT=0) preempt_disable() and
 * preempt_enable() are compiler barriers: no instruction.
 *
 * The count is per CPU, not per task (Linux keeps it per task): nothing
 * may switch tasks with it above zero (might_sleep_check() says so), and
 * __schedule()'s run-queue lock is taken by one task and released by the
 * next on the same CPU, which a per-task count would unbalance.
 */
#ifndef KERNEL_PREEMPT_H
#define KERNEL_PREEMPT_H

#include "compiler.h"
#include "smp.h"

#ifndef CONFIG_PREEMPT
#define CONFIG_PREEMPT 0
#endif

static __always_inline void preempt_disable(void)
{
	if (CONFIG_PREEMPT)
		this_cpu()->preempt_count++;
	barrier();	/* the protected region's accesses stay after this */
}

static __always_inline void preempt_enable(void)
{
	barrier();	/* ...and before this */
	if (CONFIG_PREEMPT)
		this_cpu()->preempt_count--;
}

static inline int preempt_count(void)
{
	return CONFIG_PREEMPT ? this_cpu()->preempt_count : 0;
}

/*
 * At the return of an interrupt that interrupted task code: true when the
 * tick asked for a preemption and nothing forbids it; the arch then calls
 * preempt_schedule_irq() on the interrupted task's own stack.
 */
bool __preempt_wanted(void);
static inline bool preempt_wanted(void)
{
	return CONFIG_PREEMPT && __preempt_wanted();
}
/* Interrupts off, on the interrupted task's stack: switch to the next task. */
void preempt_schedule_irq(void);

#endif
