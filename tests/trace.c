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
}
