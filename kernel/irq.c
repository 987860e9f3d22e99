/* Interrupt context bookkeeping and the kernel's handlers for the timer and IPIs. */
#include "irq.h"

void irq_enter(void)
{
	this_cpu()->irq_depth++;
	rcu_irq_enter();	/* leaves idle's extended quiescent state first */
}

void irq_exit(void)
{
	rcu_irq_exit();
	this_cpu()->irq_depth--;
}

/* The tick never preempts: it counts, and (later) wakes sleepers. */
void irq_timer(void)
{
	struct cpu *c = this_cpu();

	c->ticks++;
	if (c->id == 0)
		jiffies++;
	sched_tick();
	rcu_check_stalls();
	hung_task_check();
}

void irq_ipi(int kind)
{
	this_cpu()->ipis++;
	if (kind == IPI_CALL_FUNC)
		smp_handle_call_ipi();
	/* IPI_RESCHEDULE: taking the interrupt is the point; the idle loop rechecks. */
}
