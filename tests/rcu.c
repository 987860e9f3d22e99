/*
 * RCU's grace periods: synchronize_rcu() and call_rcu() wait for a reader
 * that was already inside its critical section; callbacks run once, after
 * a grace period; rcu_barrier(); the polled API; idle CPUs never delay a
 * grace period; the checking build's warnings.
 */
#include "ktest.h"

/* A reader held inside rcu_read_lock() on another CPU, busy-waiting. */
static struct {
	int in_reader;		/* it entered its critical section */
	int left;		/* it left */
	int hold_ms;
} held;

static int held_reader(void *arg)
{
	(void)arg;
	rcu_read_lock();
	WRITE_ONCE(held.in_reader, 1);
	mdelay(held.hold_ms);		/* busy: no quiescent state on this CPU */
	WRITE_ONCE(held.left, 1);
	rcu_read_unlock();
	return 0;
}

/* Starts the held reader on the last CPU and waits until it is inside. */
static struct task_struct *start_held_reader(int hold_ms)
{
	struct task_struct *t;

	held.in_reader = held.left = 0;
	held.hold_ms = hold_ms;
	t = kthread_run_on_cpu(held_reader, NULL, num_online_cpus() - 1, "held_reader");
	while (t && !READ_ONCE(held.in_reader))
		msleep(1);
	return t;
}

KTEST(synchronize_rcu_waits_for_a_held_reader)
{
	struct task_struct *t;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader can be running during synchronize_rcu()");
	t = start_held_reader(200);
	KASSERT(t != NULL);
	synchronize_rcu();
	/* The reader began before the grace period: it must have ended. */
	KEXPECT_WHY(READ_ONCE(held.left) == 1, "the reader on CPU%d was still inside "
		    "rcu_read_lock() when synchronize_rcu() returned: the grace period did not "
		    "wait for it", num_online_cpus() - 1);
	kthread_stop(t);
}

KTEST(synchronize_rcu_expedited_waits_for_a_held_reader)
{
	struct task_struct *t;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader can be running during the call");
	t = start_held_reader(200);
	KASSERT(t != NULL);
	synchronize_rcu_expedited();
	KEXPECT_WHY(READ_ONCE(held.left) == 1, "the reader on CPU%d was still inside "
		    "rcu_read_lock() when synchronize_rcu_expedited() returned: the grace "
		    "period did not wait for it", num_online_cpus() - 1);
	kthread_stop(t);
}

static struct completion cb_done;
static int left_when_cb_ran;

static void note_reader_state(struct rcu_head *head)
{
	(void)head;
	left_when_cb_ran = READ_ONCE(held.left);
	complete(&cb_done);
}

KTEST(call_rcu_waits_for_a_held_reader)
{
	static struct rcu_head rh;
	struct task_struct *t;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader can be running during the grace period");
	init_completion(&cb_done);
	left_when_cb_ran = -1;
	t = start_held_reader(200);
	KASSERT(t != NULL);
	call_rcu(&rh, note_reader_state);
	wait_for_completion(&cb_done);
	KEXPECT_WHY(left_when_cb_ran == 1, "the reader on CPU%d was still inside "
		    "rcu_read_lock() when the call_rcu() callback ran: its grace period did not "
		    "wait for it", num_online_cpus() - 1);
	kthread_stop(t);
}

#define NCB 64

static struct {
	struct rcu_head rh;
	atomic_t runs;
} cbs[NR_CPUS][NCB];

static void count_run(struct rcu_head *head)
{
	atomic_inc(&container_of(head, typeof(cbs[0][0]), rh)->runs);
}

KTEST(call_rcu_callbacks_run_once_and_rcu_barrier_waits_for_them)
{
	int cpu, total = 0, never = 0, twice = 0;

	for_each_online_cpu(cpu) {
		run_on(cpu);
		for (int i = 0; i < NCB; i++) {
			atomic_set(&cbs[cpu][i].runs, 0);
			call_rcu(&cbs[cpu][i].rh, count_run);
			if (i % 8 == 0)
				cond_resched();
		}
	}
	run_on(0);
	rcu_barrier();
	for_each_online_cpu(cpu)
		for (int i = 0; i < NCB; i++) {
			int runs = atomic_read(&cbs[cpu][i].runs);

			never += runs == 0;
			twice += runs > 1;
			total += runs;
		}
	KEXPECT_WHY(never == 0, "%d of %d callbacks had not run when rcu_barrier() returned",
		    never, NCB * num_online_cpus());
	KEXPECT_WHY(twice == 0, "%d of %d callbacks ran more than once: a callback leaves "
		    "its segment when it moves on (to done, then to rcuc)", twice,
		    NCB * num_online_cpus());
	KEXPECT_EQ(total, NCB * num_online_cpus());
	rcu_barrier();		/* nothing queued: returns, and runs nothing twice */
	KEXPECT_EQ(atomic_read(&cbs[0][0].runs), 1);
}

struct rcu_obj {
	int payload;
	struct rcu_head rh;	/* not first: kfree_rcu() must find the start */
};

KTEST(kfree_rcu_frees_after_a_grace_period)
{
	long live = kmalloc_live_objects();
	struct rcu_obj *p[8];

	for (int i = 0; i < 8; i++) {
		p[i] = kmalloc(sizeof(*p[i]), GFP_KERNEL);
		KASSERT(p[i] != NULL);
	}
	KEXPECT_EQ(kmalloc_live_objects(), live + 8);
	for (int i = 0; i < 8; i++)
		kfree_rcu(p[i], rh);
	rcu_barrier();
	KEXPECT_EQ(kmalloc_live_objects(), live);
}

KTEST(polled_grace_periods)
{
	unsigned long c;
	struct task_struct *t;
	u64 end;

	/* A cookie taken before synchronize_rcu() is complete once it returns. */
	c = get_state_synchronize_rcu();
	synchronize_rcu();
	KEXPECT(poll_state_synchronize_rcu(c));

	/* start_poll_synchronize_rcu() makes sure a grace period starts by itself. */
	c = start_poll_synchronize_rcu();
	end = ktime_get_ns() + 10 * NSEC_PER_SEC;
	while (!poll_state_synchronize_rcu(c) && ktime_get_ns() < end)
		msleep(1);
	KEXPECT(poll_state_synchronize_rcu(c));

	if (num_online_cpus() < 2)
		return;
	/* While a reader is held, no grace period can end. */
	t = start_held_reader(100);
	KASSERT(t != NULL);
	c = start_poll_synchronize_rcu();
	KEXPECT(!poll_state_synchronize_rcu(c));
	cond_synchronize_rcu(c);
	KEXPECT_EQ(READ_ONCE(held.left), 1);
	KEXPECT(poll_state_synchronize_rcu(c));
	kthread_stop(t);
}

static struct completion idle_cb_done;

static void idle_cb(struct rcu_head *head)
{
	(void)head;
	complete(&idle_cb_done);
}

KTEST(grace_period_completes_while_other_cpus_sit_idle)
{
	static struct rcu_head rh;
	u64 switches[NR_CPUS];
	struct rcu_stats before, after;
	int cpu;

	msleep(20);	/* let earlier tests' threads settle */
	init_completion(&idle_cb_done);
	rcu_get_stats(&before);
	for_each_online_cpu(cpu)
		switches[cpu] = sched_nr_switches(cpu);
	call_rcu(&rh, idle_cb);
	wait_for_completion(&idle_cb_done);
	rcu_get_stats(&after);
	KEXPECT(after.gps_completed > before.gps_completed);
	/* The idle CPUs were never woken to report: no context switch there. */
	for_each_online_cpu(cpu)
		if (cpu != smp_processor_id())
			KEXPECT_EQ(sched_nr_switches(cpu), switches[cpu]);
}

static int *gp_int;

KTEST(rcu_dereference_outside_a_reader_warns_and_goes_on)
{
	static char out[512];
	static int x = 5;
	int *p;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no read-side checks");
	rcu_assign_pointer(gp_int, &x);
	rcu_read_lock();
	console_capture(out, sizeof(out));
	p = rcu_dereference(gp_int);		/* inside: no warning */
	console_capture(NULL, 0);
	rcu_read_unlock();
	KEXPECT(p == &x);
	KEXPECT(strstr(out, "suspicious RCU usage") == NULL);

	console_capture(out, sizeof(out));
	p = rcu_dereference(gp_int);		/* outside: a warning */
	console_capture(NULL, 0);
	KEXPECT(p == &x);			/* ... and the kernel goes on */
	KEXPECT(strstr(out, "WARNING: suspicious RCU usage") != NULL);
	KEXPECT(strstr(out, "tests/rcu.c:") != NULL);
}

KTEST(rcu_dereference_check_accepts_a_held_lock)
{
	static DEFINE_SPINLOCK(lock);
	static char out[256];
	static int x;
	int *p;

	rcu_assign_pointer(gp_int, &x);
	spin_lock(&lock);
	console_capture(out, sizeof(out));
	p = rcu_dereference_check(gp_int, lockdep_is_held(&lock));
	p = rcu_dereference_protected(gp_int, lockdep_is_held(&lock));
	console_capture(NULL, 0);
	spin_unlock(&lock);
	KEXPECT(p == &x);
	KEXPECT(strstr(out, "suspicious") == NULL);
}

KTEST(rcu_read_lock_nests)
{
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no nesting count");
	KEXPECT(!rcu_read_lock_held());
	rcu_read_lock();
	rcu_read_lock();
	KEXPECT_EQ(current->rcu_read_lock_nesting, 2);
	rcu_read_unlock();
	KEXPECT(rcu_read_lock_held());
	rcu_read_unlock();
	KEXPECT(!rcu_read_lock_held());
}

/*
 * rcu_dereference_sched(): for code whose reader is a region where nothing
 * switches (interrupts off, a spinlock held, rcu_read_lock_sched()).  No
 * warning there; plain task code is no such region.
 */
static int *sched_gp;

KTEST(rcu_dereference_sched_where_nothing_switches)
{
	static DEFINE_SPINLOCK(l);
	static char out[512];
	static int x = 7;
	unsigned long flags;
	int sum = 0;

	rcu_assign_pointer(sched_gp, &x);
	console_capture(out, sizeof(out));
	local_irq_save(flags);
	sum += *rcu_dereference_sched(sched_gp);
	local_irq_restore(flags);
	spin_lock(&l);
	sum += *rcu_dereference_sched(sched_gp);
	spin_unlock(&l);
	rcu_read_lock_sched();
	sum += *rcu_dereference_sched(sched_gp);
	rcu_read_unlock_sched();
	console_capture(NULL, 0);
	KEXPECT_EQ(sum, 21);
	KEXPECT(strstr(out, "suspicious RCU usage") == NULL);
	if (CONFIG_RCU_CHECKING)
		KEXPECT(!rcu_read_lock_sched_held());	/* task code, nothing held */
}

/*
 * A per-CPU thread may not leave its CPU, so it cannot tour: its
 * synchronize_rcu() waits for an asynchronous grace period instead
 * (sync.c), which must wait for the held reader just the same.
 */
static int per_cpu_synchronize(void *arg)
{
	*(int *)arg = READ_ONCE(held.left) ? -1 : 0;	/* -1: the reader left too early */
	synchronize_rcu();
	if (!*(int *)arg)
		*(int *)arg = READ_ONCE(held.left) ? 1 : 2;	/* 2: returned while it held */
	return 0;
}

KTEST(synchronize_rcu_from_a_per_cpu_thread_waits_for_a_held_reader)
{
	struct task_struct *t, *p;
	int result = -2;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader can be running during synchronize_rcu()");
	t = start_held_reader(200);
	KASSERT(t != NULL);
	p = kthread_run_percpu(per_cpu_synchronize, &result, 0, "pcpu_sync");
	KASSERT(p != NULL);
	kthread_stop(p);
	kthread_stop(t);
	if (result == 2)
		ktest_info("the reader on CPU%d was still inside rcu_read_lock() when a per-CPU "
			   "thread's synchronize_rcu() returned: the grace period did not wait for it",
			   num_online_cpus() - 1);
	KEXPECT_EQ(result, 1);
}
