/* The scheduler: kernel threads, completions, msleep, run_on, round-robin. */
#include "ktest.h"

static int report_cpu(void *arg)
{
	*(int *)arg = smp_processor_id();
	return 1000 + smp_processor_id();
}

KTEST(kthread_runs_on_its_cpu_and_returns_its_value)
{
	int cpu, where[NR_CPUS];
	struct task_struct *t[NR_CPUS];

	for_each_online_cpu(cpu) {
		where[cpu] = -1;
		t[cpu] = kthread_run_on_cpu(report_cpu, &where[cpu], cpu, "report_cpu");
		KASSERT(t[cpu] != NULL);
	}
	for_each_online_cpu(cpu) {
		KEXPECT_EQ(kthread_stop(t[cpu]), 1000 + cpu);
		KEXPECT_EQ(where[cpu], cpu);
	}
	KEXPECT(kthread_run_on_cpu(report_cpu, NULL, NR_CPUS, "nowhere") == NULL);
}

static int sleep_until_stopped(void *arg)
{
	atomic_t *loops = arg;

	while (!kthread_should_stop()) {
		atomic_inc(loops);
		msleep(1);
	}
	return atomic_read(loops);
}

KTEST(kthread_stop_ends_a_sleeping_loop)
{
	atomic_t loops = ATOMIC_INIT(0);
	struct task_struct *t = kthread_run_on_cpu(sleep_until_stopped, &loops,
						   num_online_cpus() - 1, "sleeper");
	u64 end = ktime_get_ns() + 10 * NSEC_PER_SEC;

	KASSERT(t != NULL);
	while (atomic_read(&loops) < 3 && ktime_get_ns() < end)
		msleep(1);
	KEXPECT(atomic_read(&loops) >= 3);
	KEXPECT(kthread_stop(t) >= 3);
}

KTEST(msleep_sleeps_at_least_as_long_as_asked)
{
	u64 t0 = ktime_get_ns();

	msleep(30);
	KEXPECT(ktime_get_ns() - t0 >= 30 * NSEC_PER_MSEC);
	t0 = ktime_get_ns();
	msleep(1);	/* rounded up to a tick */
	KEXPECT(ktime_get_ns() - t0 >= NSEC_PER_MSEC);
}

struct ping {
	struct completion go, done;
	int ran_on;
};

static int wait_then_answer(void *arg)
{
	struct ping *p = arg;

	wait_for_completion(&p->go);
	p->ran_on = smp_processor_id();
	complete(&p->done);
	return 0;
}

KTEST(completion_wakes_a_waiter_on_another_cpu)
{
	struct ping p;
	int target = num_online_cpus() - 1;
	struct task_struct *t;

	init_completion(&p.go);
	init_completion(&p.done);
	p.ran_on = -1;
	t = kthread_run_on_cpu(wait_then_answer, &p, target, "waiter");
	KASSERT(t != NULL);
	msleep(20);			/* let it block (it works either way) */
	KEXPECT_EQ(p.ran_on, -1);
	complete(&p.go);
	wait_for_completion(&p.done);
	KEXPECT_EQ(p.ran_on, target);
	KEXPECT(completion_done(&p.go) == false);	/* consumed by the waiter */
	kthread_stop(t);
}

KTEST(run_on_moves_the_task_to_every_cpu)
{
	int cpu, prev = smp_processor_id();

	for_each_online_cpu(cpu) {
		u64 before = sched_nr_switches(cpu);

		run_on(cpu);
		KEXPECT_EQ(smp_processor_id(), cpu);
		/* We arrived through a context switch on that CPU (a hop to ourselves has none to do). */
		if (cpu != prev)
			KEXPECT(sched_nr_switches(cpu) > before);
		prev = cpu;
	}
	run_on(0);
	KEXPECT_EQ(smp_processor_id(), 0);
}

static atomic_t busy_yields;
static bool busy_spinning;	/* inside its 20 ms, where it never yields */

/* Keeps its CPU busy, yielding only every 20 ms. */
static int busy_loop(void *arg)
{
	(void)arg;
	while (!kthread_should_stop()) {
		WRITE_ONCE(busy_spinning, true);
		mdelay(20);
		WRITE_ONCE(busy_spinning, false);
		atomic_inc(&busy_yields);
		cond_resched();
	}
	return 0;
}

KTEST(run_on_waits_for_the_running_task_to_yield)
{
	int target = num_online_cpus() - 1;
	struct task_struct *t;

	if (target == 0)
		KTEST_SKIP("needs two CPUs");
	if (CONFIG_PREEMPT)
		KTEST_SKIP("PREEMPT=1: the tick preempts the busy task, so run_on() need not wait for its yield");
	atomic_set(&busy_yields, 0);
	t = kthread_run_on_cpu(busy_loop, NULL, target, "busy");
	KASSERT(t != NULL);
	while (atomic_read(&busy_yields) < 1)
		msleep(1);
	run_on(target);
	/*
	 * We could only run there once the busy task called cond_resched(),
	 * outside its spin.  (Not a count taken before run_on(): the busy
	 * task may be between its count and its yield when we read it.)
	 * The same CPU wrote the flag before switching to us: no barrier.
	 */
	KEXPECT(!READ_ONCE(busy_spinning));
	KEXPECT_EQ(smp_processor_id(), target);
	run_on(0);
	kthread_stop(t);
}

#define RR_ROUNDS 10

static struct completion rr_start;
static int rr_log[2 * RR_ROUNDS];
static atomic_t rr_len;

static int rr_thread(void *arg)
{
	wait_for_completion(&rr_start);
	for (int i = 0; i < RR_ROUNDS; i++) {
		rr_log[atomic_fetch_add(1, &rr_len)] = (int)(uintptr_t)arg;
		cond_resched();
	}
	return 0;
}

KTEST(cond_resched_is_round_robin)
{
	int cpu = num_online_cpus() - 1, alternations = 0;
	struct task_struct *a, *b;

	init_completion(&rr_start);
	atomic_set(&rr_len, 0);
	a = kthread_run_on_cpu(rr_thread, (void *)1, cpu, "rr_a");
	b = kthread_run_on_cpu(rr_thread, (void *)2, cpu, "rr_b");
	KASSERT(a && b);
	msleep(20);
	complete_all(&rr_start);
	kthread_stop(a);
	kthread_stop(b);
	KEXPECT_EQ(atomic_read(&rr_len), 2 * RR_ROUNDS);
	/* Both on one CPU: each cond_resched() hands the CPU to the other. */
	for (int i = 1; i < 2 * RR_ROUNDS - 1; i++)
		alternations += rr_log[i] != rr_log[i - 1];
	KEXPECT(alternations >= 2 * RR_ROUNDS - 3);
}

KTEST(mutex_excludes_across_cpus)
{
	static DEFINE_MUTEX(m);

	KEXPECT(mutex_trylock(&m));
	KEXPECT(mutex_is_locked(&m));
	KEXPECT(!mutex_trylock(&m));
	mutex_unlock(&m);
	KEXPECT(!mutex_is_locked(&m));
}
