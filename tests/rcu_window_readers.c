/*
 * A reader holds an element on another CPU -- in a task, or inside an
 * interrupt handler (an IPI or the timer tick, on an idle CPU or one
 * running a task) -- while the updater removes it and waits by each of
 * RCU's methods: synchronize_rcu(), call_rcu(), kfree_rcu(), a polled
 * cookie, cond_synchronize_rcu(), synchronize_rcu_expedited().  The element must stay alive, and the
 * wait must not end, until the reader lets go.
 *
 * The reader holds until the updater tells it that RCU now provably waits
 * for it alone (rcu_window.h), until synchronize_rcu()'s tour is queued
 * on its CPU, or until an expedited grace period waits for its CPU alone: so a broken RCU is caught every time, however the
 * host schedules our CPUs, and a correct one costs a few ticks a round.
 */
#include "rcu_window.h"

enum win_ctx { CTX_TASK, CTX_IPI_IDLE, CTX_IPI_BUSY, CTX_TICK_IDLE, CTX_TICK_BUSY, NR_CTX };
enum win_method { M_SYNC, M_COND, M_CALL_RCU, M_KFREE_RCU, M_POLL, M_EXP, NR_METHODS };

static const char *const ctx_names[NR_CTX] = {
	"task", "IPI on an idle CPU", "IPI on a busy CPU", "tick on an idle CPU",
	"tick on a busy CPU",
};
static const char *const method_names[NR_METHODS] = {
	"synchronize_rcu", "cond_synchronize_rcu", "call_rcu", "kfree_rcu", "poll",
	"synchronize_rcu_expedited",
};

static struct win_elem *win_ptr;

/* One round's state; each flag is written by one side, release/acquire. */
static struct {
	struct task_struct *updater;
	struct win_elem *elem;
	int id;
	int holding;		/* reader: it holds elem */
	int release;		/* updater: let go */
	int returned;		/* updater: synchronize_rcu() (or cond_) returned */
	int done;		/* reader: it left its critical section */
	int freed;		/* call_rcu()'s callback ran */
	int spinning;		/* the busy CPU's task runs */
	int method;		/* enum win_method of the round */
	/* The reader's findings. */
	int bad_start, died, returned_early, hung, on_idle, in_irq;
} w;

static bool in_reader_window(void)
{
	struct rcu_stats s;

	if (smp_load_acquire(&w.release))
		return false;
	/* The updater's synchronize_rcu() tour waits on this CPU: it cannot pass us. */
	if (READ_ONCE(w.updater->cpu) == smp_processor_id())
		return false;
	if (w.method != M_EXP)
		return true;
	/*
	 * An expedited grace period waits for this CPU alone, and its IPI
	 * found us running (or cannot reach us: we are in a handler).
	 */
	rcu_get_stats(&s);
	return !(s.exp_started != s.exp_completed && cpumask_weight(&s.exp_mask) == 1 &&
		 cpumask_test_cpu(smp_processor_id(), &s.exp_mask) &&
		 (in_interrupt() || cpumask_test_cpu(smp_processor_id(), &s.exp_noted)));
}

/* The reader, in whatever context: hold the element, watch it. */
static void win_read_and_hold(void)
{
	struct win_elem *p;
	u64 t0 = ktime_get_ns();

	rcu_read_lock();
	w.on_idle = sched_cpu_idle(smp_processor_id());
	w.in_irq = in_interrupt();
	p = rcu_dereference(win_ptr);
	if (!p || !win_elem_live(p, w.id)) {
		w.bad_start = 1;
	} else {
		smp_store_release(&w.holding, 1);
		while (in_reader_window()) {
			if (!win_elem_live(p, w.id)) {
				w.died = 1;
				break;
			}
			if (smp_load_acquire(&w.returned)) {
				w.returned_early = 1;
				break;
			}
			if (!win_budget_left(t0)) {
				w.hung = 1;
				break;
			}
			udelay(2);
		}
		/* Released by the updater after it freed: that shows here. */
		if (!win_elem_live(p, w.id))
			w.died = 1;
	}
	rcu_read_unlock();
	smp_store_release(&w.done, 1);
}

static void win_irq_reader(struct irq_work *work)
{
	(void)work;
	win_read_and_hold();
}

static int win_task_reader(void *arg)
{
	(void)arg;
	win_read_and_hold();
	return 0;
}

/* The task a busy CPU runs: it yields, so it is never in the way. */
static int win_spinner(void *arg)
{
	(void)arg;
	smp_store_release(&w.spinning, 1);
	while (!kthread_should_stop()) {
		udelay(5);
		cond_resched();
	}
	return 0;
}

static void win_free_cb(struct rcu_head *rh)
{
	kfree(container_of(rh, struct win_elem, rh));
	smp_store_release(&w.freed, 1);
}

static bool cb_ran(void *arg) { (void)arg; return smp_load_acquire(&w.freed); }
static bool elem_gone(void *arg) { (void)arg; return !win_elem_live(w.elem, w.id); }
static bool poll_done(void *arg) { return poll_state_synchronize_rcu(*(unsigned long *)arg); }

/* Starts the reader in its context on cpu; false if it could not. */
static bool win_start_reader(int cpu, enum win_ctx ctx, struct task_struct **reader,
			     struct task_struct **spinner, struct irq_work *work)
{
	bool busy = ctx == CTX_IPI_BUSY || ctx == CTX_TICK_BUSY;

	if (ctx == CTX_TASK) {
		*reader = kthread_run_on_cpu(win_task_reader, NULL, cpu, "win_reader");
		return *reader != NULL;
	}
	if (busy) {
		*spinner = kthread_run_on_cpu(win_spinner, NULL, cpu, "win_spinner");
		if (!*spinner || !WIN_WAIT(smp_load_acquire(&w.spinning)))
			return false;
	} else if (!WIN_WAIT(sched_cpu_idle(cpu))) {
		return false;
	}
	work->func = win_irq_reader;
	work->lazy = ctx == CTX_TICK_IDLE || ctx == CTX_TICK_BUSY;
	/* The slot frees itself when the last round's work ran; wait for it. */
	for (u64 t0 = ktime_get_ns(); win_budget_left(t0); msleep(1))
		if (irq_work_queue_on(work, cpu))
			return true;
	return false;
}

/* One round: the reader holds on cpu, in ctx; the updater removes and waits by m. */
static bool win_round(int cpu, enum win_ctx ctx, enum win_method m, int id)
{
	static struct irq_work work;
	struct task_struct *reader = NULL, *spinner = NULL;
	enum win_wait res = WIN_DONE;
	unsigned long cookie = 0;
	bool ok;

	memset(&w, 0, sizeof(w));
	w.updater = current;
	w.id = id;
	w.method = m;
	w.elem = win_elem_new(id);
	if (!w.elem)
		return false;
	rcu_assign_pointer(win_ptr, w.elem);

	ok = win_start_reader(cpu, ctx, &reader, &spinner, &work) &&
	     WIN_WAIT(smp_load_acquire(&w.holding) || smp_load_acquire(&w.done));
	RCU_INIT_POINTER(win_ptr, NULL);	/* removed: new readers cannot find it */
	if (!ok || w.bad_start)
		m = M_SYNC;	/* nothing to catch: just free it safely below */
	switch (m) {
	case M_SYNC:
		synchronize_rcu();
		break;
	case M_COND:
		cookie = get_state_synchronize_rcu();
		cond_synchronize_rcu(cookie);
		break;
	case M_CALL_RCU:
		call_rcu(&w.elem->rh, win_free_cb);
		res = win_wait_gp_blocked(cpu, cb_ran, NULL);
		break;
	case M_KFREE_RCU:
		kfree_rcu(w.elem, rh);
		res = win_wait_gp_blocked(cpu, elem_gone, NULL);
		break;
	case M_POLL:
		cookie = start_poll_synchronize_rcu();
		res = win_wait_gp_blocked(cpu, poll_done, &cookie);
		break;
	case M_EXP:
		synchronize_rcu_expedited();
		break;
	default:
		break;
	}
	/* The wait said the readers are done: a real user frees now. */
	if (m == M_SYNC || m == M_COND || m == M_EXP || (m == M_POLL && res == WIN_DONE)) {
		smp_store_release(&w.returned, 1);
		kfree(w.elem);
	}
	smp_store_release(&w.release, 1);
	ok &= WIN_WAIT(smp_load_acquire(&w.done));
	/* Whatever was still pending completes now: liveness, and no leak. */
	if (m == M_CALL_RCU) {
		ok &= WIN_WAIT(smp_load_acquire(&w.freed));
	} else if (m == M_KFREE_RCU) {
		rcu_barrier();
	} else if (m == M_POLL && res != WIN_DONE) {
		ok &= WIN_WAIT(poll_state_synchronize_rcu(cookie));
		kfree(w.elem);
	}
	if (spinner)
		kthread_stop(spinner);
	if (reader)
		kthread_stop(reader);

	ok &= res != WIN_HUNG && !w.bad_start && !w.hung;
	ok &= !w.died && !w.returned_early;
	if (ok && ctx != CTX_TASK)
		ok = w.in_irq;		/* the reader really ran in a handler */
	if (!ok)
		ktest_info("reader on CPU%d (%s%s), %s: %s%s%s%s%s", cpu, ctx_names[ctx],
			   w.on_idle ? ", idle" : "", method_names[m],
			   w.bad_start ? "found no live element; " : "",
			   w.died ? "its element was freed under it; " : "",
			   w.returned_early ? "the wait returned while it held it; " : "",
			   w.hung || res == WIN_HUNG ? "a wait ran out of budget; " : "",
			   ctx != CTX_TASK && !w.in_irq ? "not in an interrupt handler" : "");
	return ok;
}

KTEST(rcu_window_held_readers_every_context_every_method)
{
	int cpus[NR_CPUS], n, id = 0, failed = 0, idle_hits = 0;
	long live = kmalloc_live_objects();

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: on one, no reader runs while the updater waits");
	run_on(0);
	n = win_reader_cpus(cpus);
	for (int i = 0; i < n; i++)
		for (int ctx = 0; ctx < NR_CTX; ctx++)
			for (int m = 0; m < NR_METHODS; m++) {
				failed += !win_round(cpus[i], ctx, m, ++id);
				idle_hits += w.on_idle && ctx != CTX_TASK;
			}
	ktest_info("%d rounds on %d CPUs, %d in handlers on idle CPUs, %d failed",
		   id, n, idle_hits, failed);
	KEXPECT_EQ(failed, 0);
	/* Handlers did run on idle CPUs (extended quiescent state left for them). */
	KEXPECT(idle_hits > 0);
	rcu_barrier();
	KEXPECT_EQ(kmalloc_live_objects(), live);
}
