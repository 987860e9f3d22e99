/*
 * rcu_barrier() called while a CPU goes down: it must wait for the
 * callbacks that CPU queued before the call, wherever they end up.
 *
 * The CPU going down, d, queues X in its dying hook (online, interrupts
 * off, after its last switch) and holds there until rcu_barrier()'s caller
 * is asleep in it (a correct barrier waits for the hotplug lock that
 * remove_cpu() holds: no CPU comes or goes while it queues its markers)
 * or is queued on d (a barrier that let d go on: its marker for d will be
 * queued somewhere after d has gone, and X, moved to the remover's CPU m,
 * lands behind the marker the barrier put on m first).  X holds too, once
 * it runs, until the barrier is done with m: its caller is queued on m,
 * or asleep with every other CPU's marker run (a callback queued behind
 * each has run), or it returned (the bug).  Three CPUs make the bug show
 * every time (the remover on CPU 1, d the last); on two, m is the CPU d's
 * tasks fall back to, and only the order of two wake-ups decides.
 */
#include "rcu_window.h"

static struct {
	int d, m;
	struct rcu_head x;
	int x_started, x_finished, x_at_return;
	struct task_struct *caller;
	struct win_removal rm;
	int calling, returned, others_done;
	bool returned_while_held, hung;
} hb;

/* X: on m, once moved; holds until the barrier is done with m. */
static void hb_x(struct rcu_head *rh)
{
	int me = smp_processor_id();
	u64 t0 = ktime_get_ns();

	(void)rh;
	smp_store_release(&hb.x_started, 1);
	while (!smp_load_acquire(&hb.returned) && !win_task_queued_on(READ_ONCE(hb.caller), me) &&
	       !(smp_load_acquire(&hb.others_done) && win_task_waits(READ_ONCE(hb.caller)))) {
		if (!win_budget_left(t0)) {
			hb.hung = true;
			break;
		}
		rcu_note_context_switch();	/* grace periods go on: we hold no reader */
		udelay(2);
	}
	hb.returned_while_held = smp_load_acquire(&hb.returned);
	smp_store_release(&hb.x_finished, 1);
}

/* On d: queue X, then stay until the barrier's caller waits for us or goes through. */
static void hb_dying_hook(int cpu)
{
	u64 t0 = ktime_get_ns();

	call_rcu(&hb.x, hb_x);
	while (!(smp_load_acquire(&hb.calling) &&
		 (READ_ONCE(hb.caller->state) == TASK_BLOCKED || win_task_queued_on(READ_ONCE(hb.caller), cpu))) &&
	       !smp_load_acquire(&hb.returned)) {
		if (!win_budget_left(t0)) {
			hb.hung = true;
			break;
		}
		cpu_relax();
	}
}

static int hb_caller_fn(void *arg)
{
	u64 t0 = ktime_get_ns();

	(void)arg;
	while (!sched_cpu_dying_now(hb.d) && win_budget_left(t0))
		msleep(1);
	smp_store_release(&hb.calling, 1);
	rcu_barrier();
	hb.x_at_return = smp_load_acquire(&hb.x_finished);
	smp_store_release(&hb.returned, 1);
	return 0;
}

KTEST(hotplug_rcu_barrier_waits_for_callbacks_of_a_cpu_going_down)
{
	struct task_struct *remover;

	WIN_NEEDS_CPUS(2, "needs two CPUs: the boot CPU never goes offline");
	run_on(0);
	memset(&hb, 0, sizeof(hb));
	hb.d = num_online_cpus() - 1;
	hb.m = num_online_cpus() >= 3 ? 1 : 0;
	/* Every thread before the hook runs: creating one waits for every CPU. */
	WRITE_ONCE(hb.caller, kthread_run_on_cpu(hb_caller_fn, NULL, 0, "hb_caller"));
	KASSERT(hb.caller);
	WRITE_ONCE(cpu_dying_hook, hb_dying_hook);
	hb.rm.cpu = hb.d;
	remover = kthread_run_on_cpu(win_remover, &hb.rm, hb.m, "hb_remover");
	KASSERT(remover);
	win_barrier_watch(&hb.caller, &hb.returned, hb.m, &hb.others_done);
	KEXPECT(WIN_WAIT(smp_load_acquire(&hb.returned)));
	KEXPECT(WIN_WAIT(smp_load_acquire(&hb.rm.removed)));
	WRITE_ONCE(cpu_dying_hook, NULL);
	kthread_stop(hb.caller);
	kthread_stop(remover);
	KEXPECT(WIN_WAIT(smp_load_acquire(&hb.x_finished)));
	if (!hb.x_at_return)
		ktest_info("rcu_barrier() returned before X, queued by CPU%d as it went down, "
			   "had %s", hb.d, hb.x_started ? "returned" : "run");
	KEXPECT(hb.x_at_return);
	KEXPECT(!hb.returned_while_held);
	KEXPECT(!hb.hung);
	KEXPECT_EQ(add_cpu(hb.d), 0);
}
