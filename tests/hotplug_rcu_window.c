/*
 * The offline window: a CPU going down still runs code after its last
 * context switch -- the dying hook, a cross-CPU call addressed to it --
 * and that code may hold RCU readers until rcu_report_dead().  A grace
 * period that starts meanwhile must wait for them: a synchronize_rcu()
 * tour that hops to that CPU must not be sent on (and end, and let the
 * updater free) while such a reader holds.
 *
 *   reader    on the CPU going down, in its dying hook or in a cross-CPU
 *             call it runs there: holds the element until the tour is
 *             queued on its CPU (a correct RCU waits for it: nothing more
 *             to see) or the updater's wait returned (the bug);
 *   updater   on CPU 0: once the reader holds, unpublishes the element,
 *             waits for a grace period (synchronize_rcu(),
 *             cond_synchronize_rcu(), or a polled cookie that a tour of
 *             another task ends), then frees it.
 * Every wait is on an event; rcu.inject=offline_window reopens the window
 * and every case fails, every time.
 */
#include "rcu_window.h"
#include "cpu.h"

enum ow_wait { OW_SYNC, OW_COND, OW_POLL };
enum ow_where { OW_HOOK, OW_CALL };

static const char *const ow_wait_names[] = { "synchronize_rcu()", "cond_synchronize_rcu()",
					     "a polled cookie ended by a tour" };
static const char *const ow_where_names[] = { "dying hook", "cross-CPU call" };

static struct {
	int cpu;				/* the CPU going down */
	enum ow_wait wait;
	struct win_elem __rcu *gp;		/* what the reader reads */
	struct task_struct *tourist;		/* runs the tour we watch */
	int dying, holding, tour_go, returned;	/* events, in order */
	bool queued;				/* the reader saw the tour queued on its CPU */
	bool returned_while_held, freed_under_reader, reader_hung, updater_hung;
} ow;

/* The reader: in the dying hook or the cross-CPU call, interrupts off. */
static void ow_read(void)
{
	u64 t0 = ktime_get_ns();
	struct win_elem *e;

	rcu_read_lock();
	e = rcu_dereference(ow.gp);
	smp_store_release(&ow.holding, 1);
	while (win_budget_left(t0) && !smp_load_acquire(&ow.returned)) {
		/* Queued here by its hop: it waits for us, as it must. */
		if (READ_ONCE(ow.tourist) && READ_ONCE(ow.tourist->cpu) == ow.cpu) {
			ow.queued = true;
			break;
		}
		udelay(2);
	}
	ow.returned_while_held = smp_load_acquire(&ow.returned);
	ow.freed_under_reader = !e || !win_elem_live(e, 1);
	ow.reader_hung = !ow.queued && !ow.returned_while_held;
	rcu_read_unlock();
}

static void ow_hook_reads(int cpu)
{
	(void)cpu;
	ow_read();
}

static void ow_call_reads(void *arg)
{
	(void)arg;
	ow_read();
}

/* The hook when the reader is in a call: wait until the call is there, cpu_die() runs it next. */
static void ow_hook_awaits_call(int cpu)
{
	u64 t0 = ktime_get_ns();

	smp_store_release(&ow.dying, 1);
	while (!smp_call_pending(cpu) && win_budget_left(t0))
		udelay(2);
}

static int ow_caller(void *arg)
{
	u64 t0 = ktime_get_ns();

	(void)arg;
	while (!smp_load_acquire(&ow.dying) && win_budget_left(t0))
		msleep(1);
	/* Returns once the dying CPU has taken the call; it runs it right away. */
	smp_call_function_single(ow.cpu, ow_call_reads, NULL, false);
	return 0;
}

/* For OW_POLL: a tour of its own, started after the updater's cookie. */
static int ow_tourist(void *arg)
{
	(void)arg;
	while (!smp_load_acquire(&ow.tour_go) && !kthread_should_stop())
		msleep(1);
	if (smp_load_acquire(&ow.tour_go))
		synchronize_rcu();
	return 0;
}

static int ow_updater(void *arg)
{
	struct win_elem *e = rcu_dereference_protected(ow.gp, 1);
	unsigned long cookie;
	u64 t0 = ktime_get_ns();

	(void)arg;
	while (!smp_load_acquire(&ow.holding) && win_budget_left(t0))
		msleep(1);
	rcu_assign_pointer(ow.gp, NULL);
	switch (ow.wait) {
	case OW_SYNC:
		synchronize_rcu();
		break;
	case OW_COND:
		cookie = get_state_synchronize_rcu();
		cond_synchronize_rcu(cookie);
		break;
	case OW_POLL:
		cookie = get_state_synchronize_rcu();
		smp_store_release(&ow.tour_go, 1);
		while (!poll_state_synchronize_rcu(cookie) && win_budget_left(t0))
			msleep(1);
		ow.updater_hung = !poll_state_synchronize_rcu(cookie);
		break;
	}
	smp_store_release(&ow.returned, 1);
	kfree(e);	/* poisons it: a reader still holding it sees it dead */
	return 0;
}

static int ow_last_cpu(void)
{
	int cpu, last = 0;

	for_each_online_cpu(cpu)
		last = cpu;
	return last;
}

static void ow_case(enum ow_where where, enum ow_wait wait)
{
	struct task_struct *updater, *tourist = NULL, *caller = NULL;
	int cpu = ow_last_cpu();

	memset(&ow, 0, sizeof(ow));
	ow.cpu = cpu;
	ow.wait = wait;
	rcu_assign_pointer(ow.gp, win_elem_new(1));
	KASSERT(rcu_access_pointer(ow.gp));
	KASSERT_EQ(run_on(0), 0);
	if (wait == OW_POLL) {
		tourist = kthread_run_on_cpu(ow_tourist, NULL, 0, "ow_tourist");
		KASSERT(tourist);
	}
	updater = kthread_run_on_cpu(ow_updater, NULL, 0, "ow_updater");
	KASSERT(updater);
	WRITE_ONCE(ow.tourist, tourist ? tourist : updater);
	if (where == OW_CALL) {
		caller = kthread_run_on_cpu(ow_caller, NULL, 0, "ow_caller");
		KASSERT(caller);
	}
	WRITE_ONCE(cpu_dying_hook, where == OW_HOOK ? ow_hook_reads : ow_hook_awaits_call);
	KEXPECT_EQ(remove_cpu(cpu), 0);
	WRITE_ONCE(cpu_dying_hook, NULL);
	kthread_stop(updater);
	if (caller)
		kthread_stop(caller);
	if (tourist)
		kthread_stop(tourist);
	if (ow.returned_while_held)
		ktest_info("%s on CPU%d: %s returned while the reader held: its element was %s",
			   ow_where_names[where], cpu, ow_wait_names[wait],
			   ow.freed_under_reader ? "freed under it" : "still live (by luck)");
	KEXPECT(ow.holding);
	KEXPECT(!ow.returned_while_held);
	KEXPECT(!ow.freed_under_reader);
	KEXPECT(!ow.reader_hung);
	KEXPECT(!ow.updater_hung);
	KEXPECT(ow.queued);
	KEXPECT_EQ(add_cpu(cpu), 0);
}

#define OW_NEEDS_TWO_CPUS()	WIN_NEEDS_CPUS(2, "needs two CPUs: the boot CPU never goes offline")

KTEST(hotplug_rcu_window_dying_hook_reader_vs_synchronize_rcu)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_HOOK, OW_SYNC);
}

KTEST(hotplug_rcu_window_dying_hook_reader_vs_cond_synchronize_rcu)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_HOOK, OW_COND);
}

KTEST(hotplug_rcu_window_dying_hook_reader_vs_polled_tour)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_HOOK, OW_POLL);
}

KTEST(hotplug_rcu_window_call_reader_vs_synchronize_rcu)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_CALL, OW_SYNC);
}

KTEST(hotplug_rcu_window_call_reader_vs_cond_synchronize_rcu)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_CALL, OW_COND);
}

KTEST(hotplug_rcu_window_call_reader_vs_polled_tour)
{
	OW_NEEDS_TWO_CPUS();
	ow_case(OW_CALL, OW_POLL);
}
