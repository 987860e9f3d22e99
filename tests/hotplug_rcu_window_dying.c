/*
 * A CPU going down while its last task holds an RCU reader.  The CPU is
 * marked dying (remove_cpu()), but its current task runs on -- nothing
 * preempts it -- and the reader it holds began before the updater's
 * removal.  Everything RCU waits for must wait for it:
 *
 *   - a synchronize_rcu() tour that was already queued on that CPU when it
 *     began going down (it must not be sent on before the task switches);
 *   - a tour that hops there after it began going down (the CPU is still
 *     online: the hop must queue there, not go elsewhere as if the CPU
 *     were gone);
 *   - a call_rcu() callback queued after the reader began.
 *
 *   reader   the CPU's last task: holds its element until the test lets it
 *            go, then leaves (its switch is the CPU's last);
 *   tourist  on CPU 0: synchronize_rcu(), then frees the element;
 *   remover  on CPU 0: remove_cpu().
 * The test lets the reader go only once the tour is queued on its CPU
 * (or has returned: the bug) and the grace period in progress waits for
 * that CPU alone (or the callback ran: the bug).  Every wait is on an
 * event; rcu.inject=dying_sends_queue_on and dying_redirects break each
 * order, every time.
 */
#include "rcu_window.h"

enum dt_order { DT_QUEUED_FIRST, DT_DYING_FIRST };

static struct {
	int cpu;				/* the CPU going down */
	struct win_elem __rcu *gp;
	struct task_struct *tourist, *remover;
	struct rcu_head cb;
	int holding, release, tour_go, remove_go, returned, cb_ran;
	struct win_removal rm;
	bool freed_under_reader, reader_hung;
} dt;

static int dt_reader(void *arg)
{
	u64 t0 = ktime_get_ns();
	struct win_elem *e;

	(void)arg;
	rcu_read_lock();
	e = rcu_dereference(dt.gp);
	smp_store_release(&dt.holding, 1);
	while (!smp_load_acquire(&dt.release) && win_budget_left(t0))
		udelay(2);
	dt.reader_hung = !win_budget_left(t0);
	dt.freed_under_reader = !e || !win_elem_live(e, 1);
	rcu_read_unlock();
	return 0;	/* the CPU's last context switch follows */
}

static int dt_tourist_fn(void *arg)
{
	struct win_elem *e = arg;
	u64 t0 = ktime_get_ns();

	while (!smp_load_acquire(&dt.tour_go) && win_budget_left(t0))
		msleep(1);
	synchronize_rcu();
	smp_store_release(&dt.returned, 1);
	kfree(e);	/* poisons it: a reader still holding it sees it dead */
	return 0;
}

static void dt_cb(struct rcu_head *rh)
{
	(void)rh;
	smp_store_release(&dt.cb_ran, 1);
}

/* The tour waits in the dying CPU's queue, behind the reader (or returned: the bug). */
static bool dt_tour_queued_or_returned(void)
{
	return win_task_queued_on(dt.tourist, dt.cpu) || smp_load_acquire(&dt.returned);
}

/* remove_cpu() has marked the CPU dying (sched_cpu_set_dying() is done). */
static bool dt_cpu_dying(void)
{
	return sched_cpu_dying_now(dt.cpu);
}

static bool dt_cb_ran(void *arg)
{
	(void)arg;
	return smp_load_acquire(&dt.cb_ran);
}

static void dt_case(enum dt_order order)
{
	struct task_struct *reader;
	struct win_elem *e;
	bool returned, cb_ran;

	run_on(0);
	memset(&dt, 0, sizeof(dt));
	dt.cpu = num_online_cpus() - 1;
	e = win_elem_new(1);
	KASSERT(e);
	rcu_assign_pointer(dt.gp, e);
	/* Every thread first: creating one waits for every CPU. */
	dt.tourist = kthread_run_on_cpu(dt_tourist_fn, e, 0, "dt_tourist");
	dt.rm.cpu = dt.cpu;
	dt.rm.go = &dt.remove_go;
	dt.remover = kthread_run_on_cpu(win_remover, &dt.rm, 0, "dt_remover");
	reader = kthread_run_on_cpu(dt_reader, NULL, dt.cpu, "dt_reader");
	KASSERT(dt.tourist && dt.remover && reader);
	KASSERT(WIN_WAIT(smp_load_acquire(&dt.holding)));
	rcu_assign_pointer(dt.gp, NULL);
	call_rcu(&dt.cb, dt_cb);
	if (order == DT_QUEUED_FIRST) {
		smp_store_release(&dt.tour_go, 1);
		KEXPECT(WIN_WAIT(dt_tour_queued_or_returned()));
		smp_store_release(&dt.remove_go, 1);
		KEXPECT(WIN_WAIT(dt_cpu_dying() || smp_load_acquire(&dt.returned)));
		/* Queued there before the CPU began to go: still there. */
		KEXPECT(WIN_WAIT(dt_tour_queued_or_returned()));
	} else {
		smp_store_release(&dt.remove_go, 1);
		KEXPECT(WIN_WAIT(dt_cpu_dying()));
		smp_store_release(&dt.tour_go, 1);
		KEXPECT(WIN_WAIT(dt_tour_queued_or_returned()));
	}
	KEXPECT(win_wait_gp_blocked(dt.cpu, dt_cb_ran, NULL) != WIN_HUNG);
	returned = smp_load_acquire(&dt.returned);
	cb_ran = smp_load_acquire(&dt.cb_ran);
	smp_store_release(&dt.release, 1);
	KEXPECT(WIN_WAIT(smp_load_acquire(&dt.rm.removed)));
	kthread_stop(reader);
	kthread_stop(dt.tourist);
	kthread_stop(dt.remover);
	if (returned)
		ktest_info("synchronize_rcu() returned while CPU%d's last task held a reader "
			   "(its element %s)", dt.cpu, dt.freed_under_reader ? "freed under it" :
			   "still live, by luck");
	if (cb_ran)
		ktest_info("a callback queued after CPU%d's last reader began ran while it held",
			   dt.cpu);
	KEXPECT(!returned);
	KEXPECT(!dt.freed_under_reader);
	KEXPECT(!cb_ran);
	KEXPECT(!dt.reader_hung);
	KEXPECT(smp_load_acquire(&dt.returned));
	rcu_barrier();
	KEXPECT(dt.cb_ran);
	KEXPECT_EQ(add_cpu(dt.cpu), 0);
}

#define DT_NEEDS_TWO_CPUS()	WIN_NEEDS_CPUS(2, "needs two CPUs: the boot CPU never goes offline")

KTEST(hotplug_rcu_window_tour_queued_before_the_cpu_goes_down)
{
	DT_NEEDS_TWO_CPUS();
	dt_case(DT_QUEUED_FIRST);
}

KTEST(hotplug_rcu_window_tour_arrives_while_the_last_task_reads)
{
	DT_NEEDS_TWO_CPUS();
	dt_case(DT_DYING_FIRST);
}
