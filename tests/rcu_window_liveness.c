/*
 * Callback liveness on an otherwise idle system: a callback whose grace
 * period has ended runs at once, not at some later event.  Counted in
 * ticks of the callback's own CPU (its rcuc thread runs there), so a
 * host that stalls our virtual CPUs does not count against the kernel:
 * a lost wake-up of rcuc (the callback would wait for some unrelated
 * event, for ever on a quiet system) runs past the bound, and so does any
 * path that leaves a woken thread waiting for the next tick more than
 * twice (the checking build also counts the idle loop's halts with a
 * task queued, sched_idle_halts_with_work(): none may happen here).  The callbacks are queued from a task and from an interrupt on
 * an idle CPU (whose rcuc needs an IPI), on every CPU.
 */
#include "rcu_window.h"

#define LIVE_BOUND_TICKS	3	/* the idle-halt race costs one */
#define LIVE_GIVE_UP_TICKS	100	/* then the callback is lost: stop waiting */
#define LIVE_ROUNDS		3

static struct rcu_head live_rh;
static struct irq_work live_work;
static int live_ran;
static u64 live_ticks_queued, live_ticks_ran;

static void live_cb(struct rcu_head *rh)
{
	(void)rh;
	live_ticks_ran = this_cpu()->ticks;
	smp_store_release(&live_ran, 1);
}

static void live_queue(void)
{
	live_ticks_queued = this_cpu()->ticks;
	call_rcu(&live_rh, live_cb);
}

static void live_queue_irq(struct irq_work *work)
{
	(void)work;
	live_queue();
}

/* Queues the callback on cpu; returns the ticks it took there, or -1 if lost. */
static long live_round(int cpu)
{
	live_ran = 0;
	if (cpu == smp_processor_id()) {
		live_queue();
	} else {
		if (!WIN_WAIT(sched_cpu_idle(cpu)))
			return -1;
		live_work.func = live_queue_irq;
		while (!irq_work_queue_on(&live_work, cpu))
			msleep(1);
	}
	/* Sleeping: this CPU's quiescent state ends the grace period. */
	while (!smp_load_acquire(&live_ran)) {
		msleep(1);
		if (READ_ONCE(cpus[cpu].ticks) - READ_ONCE(live_ticks_queued) > LIVE_GIVE_UP_TICKS &&
		    READ_ONCE(live_ticks_queued))
			return -1;
	}
	return (long)(live_ticks_ran - live_ticks_queued);
}

KTEST(rcu_window_callback_runs_within_ticks_when_idle)
{
	int cpu, slow = 0;
	long worst = 0;
	unsigned long halts;

	run_on(0);
	msleep(20);	/* let the previous test's threads finish */
	halts = sched_idle_halts_with_work();
	for_each_online_cpu(cpu)
		for (int r = 0; r < LIVE_ROUNDS; r++) {
			long t;

			live_ticks_queued = 0;
			t = live_round(cpu);
			rcu_barrier();
			if (t < 0 || t > LIVE_BOUND_TICKS) {
				ktest_info("callback queued on CPU%d ran after %ld ticks there%s", cpu, t,
					   t < 0 ? " (lost: gave up)" : "");
				slow++;
			}
			worst = max(worst, t);
		}
	ktest_info("worst: %ld ticks of the callback's CPU", worst);
	KEXPECT_EQ(slow, 0);
	KEXPECT_EQ(sched_idle_halts_with_work() - halts, 0);
}
