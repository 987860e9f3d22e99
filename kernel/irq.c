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

/* irq_work waiting for each CPU: [cpu][0] for its next IPI, [cpu][1] for its next tick. */
static struct irq_work *irq_work_slot[NR_CPUS][2];

bool irq_work_queue_on(struct irq_work *work, int cpu)
{
	struct irq_work *none = NULL;

	if (cpu < 0 || cpu >= NR_CPUS || (!work->lazy && cpu == smp_processor_id()))
		panic("BUG: irq_work_queue_on(CPU%d) from CPU%d: no such CPU, or an IPI to itself",
		      cpu, smp_processor_id());
	if (!cpu_online(cpu))
		return false;	/* down: no interrupt runs there */
	/*
	 * [irq_work_release] pairs [irq_work_acquire]: the caller's stores
	 * (what func reads) are visible before the slot holds work, or func
	 * could run on `cpu` with what they replaced.
	 */
	if (!__atomic_compare_exchange_n(&irq_work_slot[cpu][work->lazy], &none, work, false,
					 __ATOMIC_RELEASE, __ATOMIC_RELAXED))
		return false;
	if (!work->lazy)
		arch_send_ipi(cpu, IPI_RESCHEDULE);
	return true;
}

/* Runs this CPU's waiting work of one kind; in an interrupt handler. */
static void irq_work_run(bool lazy)
{
	struct irq_work **slot = &irq_work_slot[smp_processor_id()][lazy];
	struct irq_work *work;

	if (!READ_ONCE(*slot))
		return;		/* the common case: one load per interrupt */
	/* [irq_work_acquire] pairs [irq_work_release]: taking the work, we see what func reads. */
	work = __atomic_exchange_n(slot, NULL, __ATOMIC_ACQUIRE);
	if (work)
		work->func(work);
}

/*
 * The tick counts and wakes sleepers; only in the PREEMPT=1 build does it
 * ask for a preemption, which the arch performs at interrupt return.
 */
void irq_timer(void)
{
	struct cpu *c = this_cpu();

	c->ticks++;
	trace_record_sched(TR_IRQ, TRACE_IRQ_TICK);
	if (CONFIG_PREEMPT)
		c->preempt_tick = true;
	if (c->id == 0) {
		jiffies++;
		trace_stream_tick();	/* make web: the trace leaves while it runs */
	}
	sched_tick();
	rcu_check_stalls();
	hung_task_check();
	irq_work_run(true);
}

void irq_ipi(int kind)
{
	this_cpu()->ipis++;
	trace_record_sched(TR_IRQ, kind == IPI_CALL_FUNC ? TRACE_IRQ_CALL : TRACE_IRQ_RESCHED);
	if (kind == IPI_CALL_FUNC)
		smp_handle_call_ipi();
	irq_work_run(false);
	/* IPI_RESCHEDULE: taking the interrupt is the point; the idle loop rechecks. */
}
