/* The RCU trace: a grace period, its hops and a reader show up as events. */
#include "ktest.h"

static int trace_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	mdelay(20);
	rcu_read_unlock();
	return 0;
}

KTEST(trace_records_readers_hops_and_a_grace_period)
{
	struct task_struct *t;
	bool was_on = READ_ONCE(trace_enabled);
	u64 hops;

	trace_start();
	trace_clear();
	trace_mark("trace test");
	t = kthread_run_on_cpu(trace_reader, NULL, num_online_cpus() - 1, "trace_reader");
	KASSERT(t != NULL);
	synchronize_rcu();
	kthread_stop(t);
	trace_stop();
	hops = trace_count(TR_HOP);
	KEXPECT_EQ(trace_count(TR_SYNC_BEGIN), 1);
	KEXPECT_EQ(trace_count(TR_SYNC_END), 1);
	KEXPECT(hops >= (u64)num_online_cpus() - 1);	/* a hop to each other CPU and back */
	KEXPECT(trace_count(TR_SWITCH) >= hops);
	KEXPECT_EQ(trace_count(TR_MARK), 1);
	if (CONFIG_RCU_CHECKING)
		KEXPECT(trace_count(TR_READ_LOCK) >= 1);
	else
		KEXPECT_EQ(trace_count(TR_READ_LOCK), 0);	/* production: no reader events */
	trace_clear();
	if (was_on)
		trace_start();	/* as it was (trace=rcu, make web's stream) */
}

/*
 * trace_ring_read() against a CPU recording as fast as it can (the trace
 * stream's drain, kernel/trace_stream.c): every event it returns is whole
 * (b is ~a, as written), in order, and what it skipped is what it counts
 * lost -- never an event twice, never one torn by its overwrite.
 */
#define RING_READ_EVENTS	30000

static int ring_writer(void *arg)
{
	(void)arg;
	for (u32 i = 1; i <= RING_READ_EVENTS; i++) {
		trace_record(TR_PUBLISH, i, ~(u64)i);
		if (i % 1000 == 0)
			cond_resched();
	}
	return 0;
}

KTEST(trace_ring_read_sees_whole_events_in_order_and_counts_the_rest)
{
	static struct trace_event out[64];
	int cpu = num_online_cpus() - 1, pid;
	u64 next = 0, lost = 0, lost_at_last = 0, seen = 0, torn = 0, disorder = 0;
	u32 last = 0;
	struct task_struct *t;
	bool was_on = READ_ONCE(trace_enabled);

	trace_start();
	for (int n; (n = trace_ring_read(cpu, &next, out, 64, &lost)); )
		;	/* start after what the ring holds already */
	lost = 0;
	t = kthread_run_on_cpu(ring_writer, NULL, cpu, "ring_writer");
	KASSERT(t != NULL);
	pid = t->pid;
	for (;;) {
		bool done = READ_ONCE(t->state) == TASK_DEAD;
		int n = trace_ring_read(cpu, &next, out, 64, &lost);

		for (int i = 0; i < n; i++) {
			if (out[i].type != TR_PUBLISH || out[i].pid != (u16)pid)
				continue;
			torn += out[i].b != ~(u64)out[i].a;
			/* a gap is at most the events counted lost since the last one */
			disorder += out[i].a <= last || out[i].a - last - 1 > lost - lost_at_last;
			last = out[i].a;
			lost_at_last = lost;
			seen++;
		}
		if (done && !n)
			break;
		if (!n)
			cond_resched();
	}
	kthread_stop(t);
	printk("# trace_ring_read: %llu of %d events read, %llu lost\n",
	       (unsigned long long)seen, RING_READ_EVENTS, (unsigned long long)lost);
	KEXPECT_EQ(torn, 0);
	KEXPECT_EQ(disorder, 0);
	KEXPECT_EQ(last, RING_READ_EVENTS);
	KEXPECT(seen + lost >= RING_READ_EVENTS);
	KEXPECT(seen > 0);
	if (!was_on)
		trace_stop();	/* as it was (make web streams with tracing on) */
}

/*
 * A panic sends what the rings still hold into the trace stream
 * (trace.stream=1, docs/web.md): tools/test_web.py boots this test under
 * make web's server, whose page must then draw the last mark.  On CPU 0
 * with interrupts off no tick sends the marks; there are more of them
 * than a tick's budget, so the panic's drain must take no budget to send
 * the last one.
 */
#define PANIC_MARKS	200

KTEST_EXPECT_PANIC(trace_stream_panic_sends_the_last_events,
		   "trace: the panic sent the rings' last", "trace.stream=1")
{
	unsigned long flags;

	KASSERT(run_on(0) == 0);
	local_irq_save(flags);
	for (int i = 0; i < PANIC_MARKS; i++)
		trace_mark("before the panic");
	trace_mark("the last event before the panic");
	panic("on purpose: %d marks since CPU 0's last tick", PANIC_MARKS + 1);
	local_irq_restore(flags);
}
