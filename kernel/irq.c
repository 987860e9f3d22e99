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
/* A slot of a CPU past its last interrupt: its compare-and-swap from NULL fails. */
#define IRQ_WORK_CLOSED		((struct irq_work *)1)

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

/* Takes the work waiting in slot, leaving `leave` there, and runs it; in an interrupt handler. */
static void irq_work_take(struct irq_work **slot, struct irq_work *leave)
{
	/*
	 * [irq_work_acquire] pairs [irq_work_release]: taking the work, we
	 * see what func reads.  (Closing the slot, the same exchange: a
	 * queuer either put its work in before us, and we run it here, or
	 * finds the slot closed and is told no.)
	 */
	struct irq_work *work = __atomic_exchange_n(slot, leave, __ATOMIC_ACQUIRE);

	if (work && work != IRQ_WORK_CLOSED)
		work->func(work);
}

/* Runs this CPU's waiting work of one kind; in an interrupt handler. */
static void irq_work_run(bool lazy)
{
	struct irq_work **slot = &irq_work_slot[smp_processor_id()][lazy];

	if (!READ_ONCE(*slot))
		return;		/* the common case: one load per interrupt */
	irq_work_take(slot, NULL);
}

/*
 * A CPU going down is online, and accepts work, until rcu_report_dead();
 * its interrupts are off for good before that.  So the work it accepted
 * meanwhile runs here, as its last interrupt would have run it (readers
 * in it are still waited for: the CPU is online), and the slots close: a
 * later irq_work_queue_on() is told no, instead of leaving work that
 * nobody runs until the CPU comes back, long after its caller's moment.
 */
void irq_work_cpu_dying(int cpu)
{
	irq_enter();
	irq_work_take(&irq_work_slot[cpu][0], IRQ_WORK_CLOSED);
	irq_work_take(&irq_work_slot[cpu][1], IRQ_WORK_CLOSED);
	irq_exit();
}

void irq_work_cpu_starting(int cpu)
{
	/* (A queuer that still reads the slot closed is told no: it tries again.) */
	WRITE_ONCE(irq_work_slot[cpu][0], NULL);
	WRITE_ONCE(irq_work_slot[cpu][1], NULL);
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
