/*
 * CPU hotplug (kernel/hotplug.c): CPUs go down and come back, tasks move,
 * per-CPU threads park, and the calls' answers to bad input.  Every test
 * leaves every CPU online again.  RCU across hotplug: tests/hotplug_rcu.c.
 */
#include <errno.h>
#include "ktest.h"
#include "irq.h"
#include "monitor.h"

/* The highest-numbered online CPU: the one these tests take down. */
static int last_cpu(void)
{
	int cpu, last = 0;

	for_each_online_cpu(cpu)
		last = cpu;
	return last;
}

KTEST(hotplug_cpu_goes_offline_and_comes_back)
{
	int cpu = last_cpu(), n = num_online_cpus();
	unsigned long ops = cpu_hotplug_count();

	if (n < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(remove_cpu(cpu), 0);
	KEXPECT(!cpu_online(cpu));
	KEXPECT_EQ(num_online_cpus(), n - 1);
	KEXPECT(arch_cpu_is_dead(cpu));
	KASSERT_EQ(add_cpu(cpu), 0);
	KEXPECT(cpu_online(cpu));
	KEXPECT_EQ(num_online_cpus(), n);
	KEXPECT_EQ(cpu_hotplug_count(), ops + 2);
	/* It runs tasks again. */
	KEXPECT_EQ(run_on(cpu), 0);
	KEXPECT_EQ(smp_processor_id(), cpu);
	KEXPECT_EQ(run_on(0), 0);
}

static atomic_t hp_calls;

static void hp_count_call(void *info)
{
	(void)info;
	atomic_inc(&hp_calls);
}

KTEST(hotplug_offline_cpu_takes_no_ticks_and_no_ipis)
{
	int cpu = last_cpu();
	u64 ticks, ipis, ticks0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(remove_cpu(cpu), 0);
	ticks0 = READ_ONCE(cpus[0].ticks);
	ticks = READ_ONCE(cpus[cpu].ticks);
	ipis = READ_ONCE(cpus[cpu].ipis);
	while (READ_ONCE(cpus[0].ticks) < ticks0 + 10)	/* ten of our ticks */
		msleep(1);
	on_each_cpu(hp_count_call, NULL, true);		/* IPIs to every online CPU */
	KEXPECT_EQ(READ_ONCE(cpus[cpu].ticks), ticks);
	KEXPECT_EQ(READ_ONCE(cpus[cpu].ipis), ipis);
	KASSERT_EQ(add_cpu(cpu), 0);
	ticks = READ_ONCE(cpus[cpu].ticks);
	KEXPECT_EQ(run_on(cpu), 0);			/* an IPI wakes it */
	KEXPECT_EQ(smp_processor_id(), cpu);
	KEXPECT_EQ(run_on(0), 0);
	while (READ_ONCE(cpus[cpu].ticks) == ticks)	/* and it ticks again */
		msleep(1);
}

KTEST(hotplug_cpu_down_and_up_are_the_same_calls)
{
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(cpu_down(cpu), 0);
	KEXPECT(!cpu_online(cpu));
	KEXPECT_EQ(cpu_down(cpu), 1);		/* already offline: nothing to do */
	KASSERT_EQ(cpu_up(cpu), 0);
	KEXPECT(cpu_online(cpu));
	KEXPECT_EQ(cpu_up(cpu), 1);		/* already online */
}

KTEST(hotplug_bad_input_changes_nothing)
{
	int n = num_online_cpus();
	unsigned long ops = cpu_hotplug_count();

	KEXPECT_EQ(remove_cpu(0), -EPERM);		/* the boot CPU */
	KEXPECT_EQ(remove_cpu(nr_cpu_ids), -EINVAL);	/* no such CPU */
	KEXPECT_EQ(remove_cpu(-1), -EINVAL);
	KEXPECT_EQ(add_cpu(nr_cpu_ids), -EINVAL);
	KEXPECT_EQ(add_cpu(0), 1);			/* already online */
	KEXPECT_EQ(num_online_cpus(), n);
	KEXPECT_EQ(cpu_hotplug_count(), ops);
	KEXPECT(cpu_online(0));
}

/* A worker that counts its passes and where it ran; it yields between passes. */
struct hp_mover {
	atomic_t passes;
	int last_cpu;
	bool sleep;		/* msleep() between passes instead of cond_resched() */
	bool stop;
};

static int hp_mover_fn(void *arg)
{
	struct hp_mover *m = arg;

	while (!kthread_should_stop()) {
		WRITE_ONCE(m->last_cpu, smp_processor_id());
		atomic_inc(&m->passes);
		if (m->sleep)
			msleep(5);
		else
			cond_resched();
		msleep(1);
	}
	return 0;
}

/* Waits (bounded by a generous count of sleeps) until the worker passes `more` times. */
static bool hp_wait_passes(struct hp_mover *m, int more)
{
	int want = atomic_read(&m->passes) + more;

	for (int i = 0; i < 2000 * num_online_cpus(); i++) {
		if (atomic_read(&m->passes) >= want)
			return true;
		msleep(1);
	}
	return false;
}

KTEST(hotplug_tasks_move_to_a_cpu_that_stays)
{
	static struct hp_mover movers[2];
	struct task_struct *t[2];
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	memset(movers, 0, sizeof(movers));
	movers[1].sleep = true;		/* this one is asleep in msleep() when its CPU goes */
	for (int i = 0; i < 2; i++) {
		t[i] = kthread_run_on_cpu(hp_mover_fn, &movers[i], cpu, "hp_mover");
		KASSERT(t[i] != NULL);
	}
	KEXPECT(hp_wait_passes(&movers[0], 3));
	KEXPECT(hp_wait_passes(&movers[1], 3));
	KEXPECT_EQ(READ_ONCE(movers[0].last_cpu), cpu);
	KASSERT_EQ(remove_cpu(cpu), 0);
	/* Both go on elsewhere: the one that yielded and the one that slept. */
	for (int i = 0; i < 2; i++) {
		KEXPECT(hp_wait_passes(&movers[i], 3));
		KEXPECT(READ_ONCE(movers[i].last_cpu) != cpu);
		KEXPECT(t[i]->cpu != cpu);
	}
	KEXPECT_EQ(add_cpu(cpu), 0);
	for (int i = 0; i < 2; i++)
		KEXPECT_EQ(kthread_stop(t[i]), 0);
}

struct hp_lookup {
	const char *comm;
	struct task_struct *found;
};

static void hp_match_task(struct task_struct *t, void *arg)
{
	struct hp_lookup *q = arg;

	if (!strcmp(t->comm, q->comm))
		q->found = t;
}

static struct task_struct *hp_find_task(const char *comm)
{
	struct hp_lookup q = { comm, NULL };

	for_each_task(hp_match_task, &q);
	return q.found;
}

static int hp_cb_cpu = -1;
static char hp_cb_comm[TASK_COMM_LEN];

static void hp_record_cb(struct rcu_head *head)
{
	(void)head;
	WRITE_ONCE(hp_cb_cpu, smp_processor_id());
	strncpy(hp_cb_comm, current->comm, sizeof(hp_cb_comm) - 1);
}

KTEST(hotplug_per_cpu_thread_parks_and_comes_back)
{
	static struct rcu_head rh;
	int cpu = last_cpu();
	char name[TASK_COMM_LEN], want[TASK_COMM_LEN];
	struct task_struct *rcuc;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	snprintf(name, sizeof(name), "rcuc/%d", cpu);
	rcuc = hp_find_task(name);
	KASSERT(rcuc != NULL);
	KEXPECT(rcuc->per_cpu);
	KASSERT_EQ(remove_cpu(cpu), 0);
	/* Parked: blocked, still its CPU's, and a wake-up does not move it. */
	KEXPECT_EQ(rcuc->state, TASK_BLOCKED);
	KEXPECT_EQ(rcuc->cpu, cpu);
	wake_up_process(rcuc);
	KEXPECT_EQ(rcuc->state, TASK_BLOCKED);
	KEXPECT_EQ(rcuc->cpu, cpu);
	KASSERT_EQ(add_cpu(cpu), 0);
	/* Back: a callback queued there is invoked there, by rcuc/N. */
	hp_cb_cpu = -1;
	memset(hp_cb_comm, 0, sizeof(hp_cb_comm));
	KASSERT_EQ(run_on(cpu), 0);
	call_rcu(&rh, hp_record_cb);
	KASSERT_EQ(run_on(0), 0);
	rcu_barrier();
	KEXPECT_EQ(READ_ONCE(hp_cb_cpu), cpu);
	strncpy(want, name, sizeof(want));
	KEXPECT(!strcmp(hp_cb_comm, want));
}

KTEST(hotplug_run_on_an_offline_cpu_returns_enodev)
{
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(remove_cpu(cpu), 0);
	KEXPECT_EQ(run_on(cpu), -ENODEV);
	KEXPECT(smp_processor_id() != cpu);
	KEXPECT_EQ(run_on(NR_CPUS + 5), -ENODEV);
	KEXPECT_EQ(add_cpu(cpu), 0);
	KEXPECT_EQ(run_on(cpu), 0);
	KEXPECT_EQ(run_on(0), 0);
}

/*
 * run_on() to a CPU that goes offline while the task is queued there: a
 * hog keeps the CPU busy (it never yields), a task queues itself behind
 * it, remove_cpu() starts, and only then the hog ends.  The queued task
 * must come back with -ENODEV, on another CPU, not run there.
 */
static bool hp_hog_running, hp_hog_release;

static int hp_hog_fn(void *arg)
{
	(void)arg;
	WRITE_ONCE(hp_hog_running, true);
	while (!READ_ONCE(hp_hog_release))
		cpu_relax();
	return 0;
}

struct hp_call {
	int cpu;
	int ret;
	int ran_on;
	bool done;
};

static int hp_run_on_fn(void *arg)
{
	struct hp_call *c = arg;

	c->ret = run_on(c->cpu);
	c->ran_on = smp_processor_id();
	WRITE_ONCE(c->done, true);
	return 0;
}

static int hp_remove_fn(void *arg)
{
	struct hp_call *c = arg;

	c->ret = remove_cpu(c->cpu);
	WRITE_ONCE(c->done, true);
	return 0;
}

static bool hp_wait_for(bool *flag)
{
	for (int i = 0; i < 2000 * num_online_cpus(); i++) {
		if (READ_ONCE(*flag))
			return true;
		msleep(1);
	}
	return false;
}

KTEST(hotplug_run_on_a_cpu_going_offline_while_queued_returns_enodev)
{
	static struct hp_call hop, rm;
	struct task_struct *hog, *hopper, *remover;
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	if (CONFIG_PREEMPT)
		KTEST_SKIP("PREEMPT=1: the tick preempts the hog, so nothing stays queued behind it");
	memset(&hop, 0, sizeof(hop));
	memset(&rm, 0, sizeof(rm));
	hop.cpu = rm.cpu = cpu;
	hp_hog_running = hp_hog_release = false;
	hog = kthread_run_on_cpu(hp_hog_fn, NULL, cpu, "hp_hog");
	KASSERT(hog != NULL);
	KASSERT(hp_wait_for(&hp_hog_running));
	hopper = kthread_run_on_cpu(hp_run_on_fn, &hop, 0, "hp_hopper");
	KASSERT(hopper != NULL);
	while (READ_ONCE(hopper->cpu) != cpu)	/* the hopper queued behind the hog */
		msleep(1);
	remover = kthread_run_on_cpu(hp_remove_fn, &rm, 0, "hp_remover");
	KASSERT(remover != NULL);
	while (!sched_cpu_dying_now(cpu))
		msleep(1);
	KEXPECT(!READ_ONCE(hop.done));		/* still queued behind the hog */
	WRITE_ONCE(hp_hog_release, true);
	KEXPECT(hp_wait_for(&rm.done));
	KEXPECT(hp_wait_for(&hop.done));
	KEXPECT_EQ(rm.ret, 0);
	KEXPECT_EQ(hop.ret, -ENODEV);
	KEXPECT(hop.ran_on != cpu);
	kthread_stop(hog);
	kthread_stop(hopper);
	kthread_stop(remover);
	KEXPECT_EQ(add_cpu(cpu), 0);
}

KTEST(hotplug_cross_cpu_calls_and_backtraces_skip_offline_cpus)
{
	static struct irq_work work;
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(remove_cpu(cpu), 0);
	atomic_set(&hp_calls, 0);
	on_each_cpu(hp_count_call, NULL, true);
	KEXPECT_EQ(atomic_read(&hp_calls), num_online_cpus());
	KEXPECT_EQ(smp_call_function_single(cpu, hp_count_call, NULL, true), -ENXIO);
	KEXPECT_EQ(atomic_read(&hp_calls), num_online_cpus());
	KEXPECT(!trigger_cpu_backtrace(cpu));
	work.func = (void (*)(struct irq_work *))hp_count_call;
	KEXPECT(!irq_work_queue_on(&work, cpu));
	KEXPECT_EQ(add_cpu(cpu), 0);
	atomic_set(&hp_calls, 0);
	on_each_cpu(hp_count_call, NULL, true);
	KEXPECT_EQ(atomic_read(&hp_calls), num_online_cpus());
}

KTEST(hotplug_monitor_cpu_commands)
{
	int cpu = last_cpu(), n = num_online_cpus();
	char line[32];

	KEXPECT_EQ(monitor_exec("cpu off 0"), MON_ERROR);
	KEXPECT_EQ(monitor_exec("cpu off 999"), MON_ERROR);
	KEXPECT_EQ(monitor_exec("cpu off x"), MON_ERROR);
	KEXPECT_EQ(monitor_exec("cpu off"), MON_ERROR);
	KEXPECT_EQ(monitor_exec("cpu sideways 1"), MON_ERROR);
	KEXPECT_EQ(monitor_exec("cpu on 0"), MON_ERROR);	/* already online */
	KEXPECT_EQ(num_online_cpus(), n);
	if (n < 2)
		KTEST_SKIP("needs two CPUs for the rest: the boot CPU never goes offline");
	snprintf(line, sizeof(line), "cpu off %d", cpu);
	KEXPECT_EQ(monitor_exec(line), MON_OK);
	KEXPECT(!cpu_online(cpu));
	KEXPECT_EQ(monitor_exec(line), MON_ERROR);		/* twice: already offline */
	KEXPECT_EQ(monitor_exec("cpus"), MON_OK);
	KEXPECT_EQ(num_online_cpus(), n - 1);
	snprintf(line, sizeof(line), "cpu on %d", cpu);
	KEXPECT_EQ(monitor_exec(line), MON_OK);
	KEXPECT(cpu_online(cpu));
	KEXPECT_EQ(num_online_cpus(), n);
}

KTEST(hotplug_offline_cpu_stays_down_after_an_nmi)
{
	int cpu = last_cpu();
	u64 ticks0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(remove_cpu(cpu), 0);
	/* x86-64: the NMI wakes its hlt; the handler returns and it halts again. */
	for (int i = 0; i < 3; i++)
		arch_send_nmi(cpu);
	ticks0 = READ_ONCE(cpus[0].ticks);
	while (READ_ONCE(cpus[0].ticks) < ticks0 + 5)
		msleep(1);
	KEXPECT(!cpu_online(cpu));
	KEXPECT(arch_cpu_is_dead(cpu));
	KEXPECT_EQ(add_cpu(cpu), 0);
	KEXPECT_EQ(run_on(cpu), 0);
	KEXPECT_EQ(run_on(0), 0);
}

/*
 * A cross-CPU call to a CPU that goes offline in the middle of it: the
 * leaving CPU (in the test's cpu_dying_late_hook, interrupts off for good, its
 * calls already flushed) waits until our on_each_cpu() has addressed it
 * and is running the function here, then goes.  on_each_cpu() must not
 * wait for it forever: it takes its request back once the CPU is offline.
 */
static bool hp_hook_entered, hp_caller_inside;

static void hp_wait_for_caller_hook(int cpu)
{
	u64 end = ktime_get_ns() + 60 * NSEC_PER_SEC;	/* only a broken test gets here */

	(void)cpu;
	WRITE_ONCE(hp_hook_entered, true);
	while (!READ_ONCE(hp_caller_inside) && ktime_get_ns() < end)
		cpu_relax();
}

static void hp_mark_inside(void *info)
{
	(void)info;
	WRITE_ONCE(hp_caller_inside, true);
	atomic_inc(&hp_calls);
}

KTEST(hotplug_cross_cpu_call_to_a_cpu_dying_mid_call_returns)
{
	static struct hp_call rm;
	struct task_struct *remover;
	int cpu = last_cpu(), n = num_online_cpus();

	if (n < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	memset(&rm, 0, sizeof(rm));
	rm.cpu = cpu;
	hp_hook_entered = hp_caller_inside = false;
	atomic_set(&hp_calls, 0);
	WRITE_ONCE(cpu_dying_late_hook, hp_wait_for_caller_hook);
	remover = kthread_run_on_cpu(hp_remove_fn, &rm, 0, "hp_remover");
	KASSERT(remover != NULL);
	KEXPECT(hp_wait_for(&hp_hook_entered));
	on_each_cpu(hp_mark_inside, NULL, true);	/* cpu is still online: addressed */
	KEXPECT(hp_wait_for(&rm.done));
	WRITE_ONCE(cpu_dying_late_hook, NULL);
	KEXPECT_EQ(rm.ret, 0);
	KEXPECT_EQ(atomic_read(&hp_calls), n - 1);	/* everywhere but on the CPU that left */
	kthread_stop(remover);
	KEXPECT_EQ(add_cpu(cpu), 0);
}

/*
 * irq_work for a CPU going down, accepted after its interrupts went off for
 * good (the leaving CPU waits in the test's cpu_dying_late_hook until both
 * kinds are queued there): it runs on that CPU before the CPU goes offline
 * -- not never, and not stale when the CPU comes back -- and once the CPU
 * is gone, irq_work_queue_on() says no.  Back online, the CPU takes work
 * again, and nothing from before runs twice.
 */
static struct {
	bool hook_entered, queued;
	struct irq_work work[2];	/* [0] by IPI, [1] lazy */
	int ran[2], ran_on[2];
	bool ran_online[2], ran_again;
} hw;

static void hw_wait_for_queued_hook(int cpu)
{
	u64 end = ktime_get_ns() + 60 * NSEC_PER_SEC;	/* only a broken test gets here */

	(void)cpu;
	WRITE_ONCE(hw.hook_entered, true);
	while (!READ_ONCE(hw.queued) && ktime_get_ns() < end)
		cpu_relax();
}

static void hw_work_fn(struct irq_work *work)
{
	int i = work - hw.work;

	hw.ran_on[i] = smp_processor_id();
	hw.ran_online[i] = cpu_online(smp_processor_id());
	WRITE_ONCE(hw.ran[i], hw.ran[i] + 1);
	if (hw.ran[i] > 1)
		WRITE_ONCE(hw.ran_again, true);
}

KTEST(hotplug_irq_work_for_a_dying_cpu_runs_before_it_goes)
{
	static struct hp_call rm;
	struct task_struct *remover;
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	KASSERT_EQ(run_on(0), 0);
	memset(&rm, 0, sizeof(rm));
	memset(&hw, 0, sizeof(hw));
	rm.cpu = cpu;
	for (int i = 0; i < 2; i++) {
		hw.work[i].func = hw_work_fn;
		hw.work[i].lazy = i;
	}
	WRITE_ONCE(cpu_dying_late_hook, hw_wait_for_queued_hook);
	remover = kthread_run_on_cpu(hp_remove_fn, &rm, 0, "hp_remover");
	KASSERT(remover != NULL);
	KEXPECT(hp_wait_for(&hw.hook_entered));
	KEXPECT(irq_work_queue_on(&hw.work[0], cpu));	/* still online: accepted */
	KEXPECT(irq_work_queue_on(&hw.work[1], cpu));
	WRITE_ONCE(hw.queued, true);
	KEXPECT(hp_wait_for(&rm.done));
	WRITE_ONCE(cpu_dying_late_hook, NULL);
	kthread_stop(remover);
	KEXPECT_EQ(rm.ret, 0);
	for (int i = 0; i < 2; i++) {
		if (READ_ONCE(hw.ran[i]) != 1)
			ktest_info("the %s irq_work accepted for the dying CPU%d ran %d times before it "
				   "went", i ? "lazy" : "IPI", cpu, READ_ONCE(hw.ran[i]));
		KEXPECT_EQ(READ_ONCE(hw.ran[i]), 1);
		KEXPECT_EQ(hw.ran_on[i], cpu);
		KEXPECT(hw.ran_online[i]);
	}
	KEXPECT(!irq_work_queue_on(&hw.work[0], cpu));	/* gone: no */
	KEXPECT_EQ(add_cpu(cpu), 0);
	KEXPECT(irq_work_queue_on(&hw.work[0], cpu));	/* back: yes */
	KEXPECT(hp_wait_for(&hw.ran_again));
	KEXPECT_EQ(READ_ONCE(hw.ran[0]), 2);
	for (int i = 0; i < 4; i++)
		msleep(1);	/* (a stale lazy one would run in these ticks) */
	KEXPECT_EQ(READ_ONCE(hw.ran[1]), 1);
}

/*
 * cpu_hotplug_lock is a reader-writer lock: two readers hold it at once,
 * a writer waits for both, and a reader that comes while the writer waits
 * queues behind it.  With more than one CPU the writer is remove_cpu()
 * itself, which must not take the CPU down while a reader holds it.
 */
struct hp_locker {
	bool write;		/* cpus_write_lock(), or remove_cpu(cpu) if cpu > 0 */
	int cpu, ret;
	bool holding, release, done;
};

static int hp_locker_fn(void *arg)
{
	struct hp_locker *l = arg;

	if (l->write && l->cpu > 0) {
		l->ret = remove_cpu(l->cpu);	/* (takes it and drops it) */
		WRITE_ONCE(l->holding, true);
	} else {
		if (l->write)
			cpus_write_lock();
		else
			cpus_read_lock();
		WRITE_ONCE(l->holding, true);
		while (!READ_ONCE(l->release))
			msleep(1);
		if (l->write)
			cpus_write_unlock();
		else
			cpus_read_unlock();
	}
	WRITE_ONCE(l->done, true);
	return 0;
}

/* Gives a lock that is wrongly granted time to show it: fifty of our ticks. */
static void hp_settle(void)
{
	for (int i = 0; i < 50; i++)
		msleep(1);
}

KTEST(hotplug_lock_readers_share_and_a_writer_waits_for_both)
{
	static struct hp_locker r1, r2, w, r3;
	struct task_struct *t[4];
	int cpu = last_cpu();
	unsigned long ops = cpu_hotplug_count();

	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	memset(&w, 0, sizeof(w));
	memset(&r3, 0, sizeof(r3));
	w.write = true;
	w.cpu = cpu;		/* 0 with one CPU: then a plain cpus_write_lock() */
	t[0] = kthread_run_on_cpu(hp_locker_fn, &r1, 0, "hp_reader1");
	KASSERT(t[0] != NULL);
	KASSERT(hp_wait_for(&r1.holding));
	t[1] = kthread_run_on_cpu(hp_locker_fn, &r2, 0, "hp_reader2");
	KASSERT(t[1] != NULL);
	KEXPECT(hp_wait_for(&r2.holding));		/* two readers at once */
	t[2] = kthread_run_on_cpu(hp_locker_fn, &w, 0, "hp_writer");
	KASSERT(t[2] != NULL);
	hp_settle();
	KEXPECT(!READ_ONCE(w.holding));			/* the writer waits for both */
	t[3] = kthread_run_on_cpu(hp_locker_fn, &r3, 0, "hp_reader3");
	KASSERT(t[3] != NULL);
	WRITE_ONCE(r1.release, true);
	KEXPECT(hp_wait_for(&r1.done));
	hp_settle();
	KEXPECT(!READ_ONCE(w.holding));			/* ...both */
	KEXPECT(!READ_ONCE(r3.holding));		/* and a new reader queues behind it */
	KEXPECT(cpu_online(cpu));
	KEXPECT_EQ(cpu_hotplug_count(), ops);
	WRITE_ONCE(r2.release, true);
	KEXPECT(hp_wait_for(&w.holding));		/* the writer goes in */
	if (w.cpu == 0) {
		hp_settle();
		KEXPECT(!READ_ONCE(r3.holding));	/* alone */
		WRITE_ONCE(w.release, true);
	}
	KEXPECT(hp_wait_for(&r3.holding));		/* and then the reader behind it */
	WRITE_ONCE(r3.release, true);
	for (int i = 0; i < 4; i++)
		KEXPECT_EQ(kthread_stop(t[i]), 0);
	KEXPECT_EQ(w.ret, 0);
	if (w.cpu > 0)
		KEXPECT_EQ(add_cpu(cpu), 0);
}

/*
 * A task that holds cpus_read_lock() takes it again while a writer waits:
 * it must not queue behind the writer, which waits for its first hold
 * (a deadlock, silent before).  rcu_barrier() inside the hold takes it a
 * third time, as a caller of it may.
 */
static int nest_writer_ready;

static int nest_writer(void *arg)
{
	int cpu = *(int *)arg, ret;

	smp_store_release(&nest_writer_ready, 1);
	ret = remove_cpu(cpu);	/* queues: the test holds the lock for reading */
	if (!ret)
		ret = add_cpu(cpu);
	return ret;
}

KTEST(hotplug_lock_reader_takes_it_again_while_a_writer_waits)
{
	struct task_struct *w;
	int cpu = last_cpu();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: the boot CPU never goes offline");
	nest_writer_ready = 0;
	cpus_read_lock();
	w = kthread_run_on_cpu(nest_writer, &cpu, 0, "nest_writer");
	KASSERT(w != NULL);
	/* Queued once blocked after saying it is about to lock. */
	while (!smp_load_acquire(&nest_writer_ready) || READ_ONCE(w->state) != TASK_BLOCKED)
		msleep(1);
	cpus_read_lock();
	rcu_barrier();
	cpus_read_unlock();
	KEXPECT(cpu_online(cpu));	/* the writer is still waiting for us */
	cpus_read_unlock();
	KEXPECT_EQ(kthread_stop(w), 0);
	KEXPECT(cpu_online(cpu));
}
