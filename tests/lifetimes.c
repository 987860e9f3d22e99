/*
 * Object lifetimes outside the capability space (issue 39,
 * docs/microkernel.md, "Who holds whom"): what a program can do with the
 * capabilities it holds, each in the interleaving that broke the kernel
 * before, forced here where user space cannot force it.
 *
 *   - a reply carrying a capability, and a kill through a thread
 *     capability, to a thread whose task was freed (a user thread holds
 *     its task);
 *   - a bind and a device grant made after the object's last capability
 *     went, by a system call whose lookup came just before (re-validated
 *     under the object's lock);
 *   - a caller killed while its receiver holds it claimed, and a
 *     reply-and-receive's direct switch across a sleep (no IPC state
 *     spans a sleep unseen).
 *
 * The programs are tests/user/helpers/lifetimes.c's, told each step
 * through notifications the test holds.  Each was seen failing on the
 * kernel before the fix (the commit says how); the injections each rule
 * has (cap.inject=no_ref, bind_unchecked, lost_wakeup) fail them too.
 */
#include "cap_test.h"
#include "driver_test.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "object/ipc.h"
#include "object/notification.h"
#include "user/module.h"
#include "user/thread.h"
#include "object/lookup.h"

#define HELPER		"tests/user/helpers/lifetimes"
#define EP		0
#define GO		1
#define READY		2
#define DONE		3
#define SLOTS		4

/* The endpoint and the three notifications the programs get copies of, and ours. */
struct play {
	struct test_space ts;
	struct kobject *obj[SLOTS];
};

static bool play_make(struct play *p)
{
	struct cap_ref ref;

	memset(p, 0, sizeof(*p));
	if (!test_space_make(&p->ts) || cap_create(p->ts.cs, KOBJ_ENDPOINT, EP, 0) != EP)
		return false;
	for (int s = GO; s < SLOTS; s++)
		if (cap_create(p->ts.cs, KOBJ_NOTIFICATION, s, 0) != s)
			return false;
	for (int s = 0; s < SLOTS; s++) {
		if (cap_lookup(p->ts.cs, s, s == EP ? KOBJ_ENDPOINT : KOBJ_NOTIFICATION, 0, &ref))
			return false;
		p->obj[s] = ref.obj;
	}
	return true;
}

static void play_free(struct play *p)
{
	for (int s = 0; s < SLOTS; s++)
		if (p->obj[s])
			kobject_put(p->obj[s]);
	test_space_free(&p->ts);
	user_settle();
}

static int give_slots(struct user_task *t, void *arg)
{
	struct play *p = arg;

	for (int s = 0; s < SLOTS; s++) {
		int got = cap_transfer(p->ts.cs, s, t->cspace, s, false);

		if (got < 0)
			return got;
	}
	return 0;
}

/* lifetimes ROLE CPU WHAT, with the play's slots. */
static struct user_task *start(struct play *p, const char *role, int cpu, const char *what)
{
	struct user_task *t;
	char cmd[96];
	int err;

	snprintf(cmd, sizeof(cmd), HELPER " %s %d %s", role, cpu, what);
	t = user_spawn_with(cmd, NULL, &err, give_slots, p);
	if (!t)
		ktest_info("%s did not start (error %d)", cmd, err);
	return t;
}

/*
 * How long a step the fix makes prompt may take (a killed thread leaves, a
 * woken one runs): generous, and much shorter than the programs' own
 * budget, so that an injection that breaks it fails in seconds.
 */
#define PROMPT_NS	ktest_budget_ns(5, 1)

/* Waits until the program signalled notification slot s (within budget ns). */
static bool signalled(struct play *p, int s, u64 budget)
{
	u64 end = ktime_get_ns() + budget;

	while (!notification_poll(p->obj[s])) {
		if (ktime_get_ns() > end)
			return false;
		msleep(2);
	}
	return true;
}

static void go(struct play *p)
{
	notification_signal(p->obj[GO], 1);
}

/* t is killed; returns once it ended (or its budget ran out), its reference dropped. */
static bool kill_and_reap(struct user_task *t)
{
	struct sys_exit_status st;
	bool ended;

	user_task_kill(t, SYS_KILLED_BY_KERNEL);
	ended = !user_task_wait_timeout(t, WAIT_NS, &st);
	user_task_put(t);
	/* Its threads reaped, its task freed, and the grace period of its kfree_rcu() over. */
	user_settle();
	rcu_barrier();
	return ended;
}

#define NEED_HELPER()								\
	do {									\
		if (!boot_module_find(HELPER))					\
			KTEST_SKIP("no boot module " HELPER " (no user programs)"); \
	} while (0)

/*
 * The server takes the caller's call (and what it sends), the caller is
 * killed and its task freed, and a grace period passes; then the server
 * does what it does to it.  The server's exit status (0: it was refused
 * with -ESRCH, as it must be), or -2 if the programs did not start.
 */
static int to_a_freed_task(const char *server_does, const char *caller_sends)
{
	struct user_task *s, *c;
	struct play p;
	int status = -2;

	if (!play_make(&p))
		return status;
	s = start(&p, "server", -1, server_does);
	c = start(&p, "caller", -1, caller_sends);
	if (s && c) {
		KEXPECT(signalled(&p, READY, WAIT_NS));	/* the server holds the call */
		KEXPECT(kill_and_reap(c));
		go(&p);
		c = NULL;
	}
	status = end_of(s);
	if (c)
		killed(c);
	play_free(&p);
	return status;
}

/*
 * A reply carrying a capability to a caller whose task was freed: the
 * caller's thread object (held by the server's reply capability) keeps
 * its user thread, which keeps its task.  Before: the reply read the
 * freed task's capability space (x86-64: a general protection fault in
 * cspace_reserve(), AArch64: a paging request at 0x6b6b...).
 */
KTEST(lifetimes_reply_with_a_capability_to_a_caller_whose_task_was_freed)
{
	NEED_HELPER();
	KEXPECT_EQ(to_a_freed_task("reply_cap", "plain"), 0);
}

/* Allocates and frees what a task takes: a write to a freed one shows as its poison check's panic. */
static void reuse_freed_tasks(void)
{
	void *p[64];

	for (int i = 0; i < 64; i++)
		p[i] = kmalloc(sizeof(struct user_task), GFP_KERNEL);
	for (int i = 0; i < 64; i++)
		kfree(p[i]);
}

/*
 * A kill through a thread capability whose task was freed.  Before: the
 * kill took the freed task's lock ("kmalloc-1024 object ... was written
 * after it was freed" when the memory came back).
 */
KTEST(lifetimes_kill_through_a_thread_capability_whose_task_was_freed)
{
	NEED_HELPER();
	KEXPECT_EQ(to_a_freed_task("kill_thread", "thread"), 0);
	reuse_freed_tasks();
}

/* A space with the console line's interrupt in slot 0 and a notification in 1, both looked up. */
static int line_and_notification(struct test_space *ts, struct cap_ref *irq, struct cap_ref *ntf)
{
	int line = kernel_console_line();

	if (line < 0)
		return line;
	console_input_release();
	if (!test_space_make(ts) || interrupt_cap_grant(ts->cs, 0, line) != 0 ||
	    cap_create(ts->cs, KOBJ_NOTIFICATION, 1, 0) != 1 ||
	    cap_lookup(ts->cs, 0, KOBJ_INTERRUPT, SYS_CAP_WRITE, irq) ||
	    cap_lookup(ts->cs, 1, KOBJ_NOTIFICATION, SYS_CAP_WRITE, ntf))
		panic("lifetimes: no memory for a test space");	/* (a fresh quota: cannot be) */
	return line;
}

/*
 * SYS_irq_bind whose lookup found the interrupt object just before its
 * last capability went (replayed: the lookup's reference held across the
 * delete).  Before: the bind succeeded, the line stayed bound to an
 * object nobody could unbind, which was freed; the next interrupt ran
 * the handler on it.
 */
KTEST(lifetimes_irq_bind_after_the_last_capability_is_refused)
{
	struct cap_ref irq = { 0 }, ntf = { 0 };	/* (line_and_notification() sets both) */
	struct test_space ts;
	struct irq_stats st;
	int line = line_and_notification(&ts, &irq, &ntf);

	if (line < 0)
		KTEST_SKIP("needs " NOT_THE_KERNELS);
	KEXPECT_EQ(cap_delete(ts.cs, 0), 0);	/* its last capability: the unbind ran */
	KEXPECT_EQ(interrupt_bind(irq.obj, ntf.obj, 1), -EBADF);
	KEXPECT(irq_get_stats(line, &st) && !st.held);
	kobject_put(ntf.obj);
	kobject_put(irq.obj);
	test_space_free(&ts);
	KEXPECT_EQ(console_input_reclaim(), 0);	/* -EBUSY if a freed object held it */
}

/*
 * A line bound to a notification counts as one that may signal it: a
 * driver left with a read-only capability is not told -EPIPE (nobody can
 * ever signal) while its line still can.  Before: the count was of
 * capabilities alone, and dropped to 0.
 */
KTEST(lifetimes_bound_line_counts_as_a_signaller)
{
	struct cap_ref irq = { 0 }, ntf = { 0 };	/* (line_and_notification() sets both) */
	struct test_space ts;
	struct notification *n;
	int line = line_and_notification(&ts, &irq, &ntf);

	if (line < 0)
		KTEST_SKIP("needs " NOT_THE_KERNELS);
	n = container_of(ntf.obj, struct notification, base);
	KEXPECT_EQ(cap_mint(ts.cs, 1, 2, SYS_CAP_READ, 0), 2);	/* a wait-only copy */
	KEXPECT_EQ(interrupt_bind(irq.obj, ntf.obj, 1), 0);
	KEXPECT_EQ(cap_delete(ts.cs, 1), 0);	/* the last capability that could signal */
	KEXPECT_EQ(READ_ONCE(n->signal_caps), 1);	/* the line still can */
	KEXPECT_EQ(cap_delete(ts.cs, 0), 0);	/* unbound */
	KEXPECT_EQ(READ_ONCE(n->signal_caps), 0);
	kobject_put(ntf.obj);
	kobject_put(irq.obj);
	test_space_free(&ts);
	KEXPECT_EQ(console_input_reclaim(), 0);
}

/*
 * SYS_dev_map whose lookup found the device just before its last
 * capability went.  Before: the grant was made and never taken back, and
 * the address space's reference it held leaked (the task's address space
 * was never freed: the leak check's "address spaces").
 */
KTEST(lifetimes_dev_map_after_the_last_capability_is_refused)
{
	struct device_regs regs;
	struct test_space ts;
	struct user_task *t;
	struct cap_ref dev;

	arch_console_regs(&regs);
	KASSERT(test_space_make(&ts));
	t = user_task_create("tests/lifetimes_dev_map", NULL, NULL);	/* an address space */
	KASSERT(t);
	KASSERT(device_cap_grant(ts.cs, 0, &regs) == 0);
	KASSERT(!cap_lookup(ts.cs, 0, KOBJ_DEVICE, SYS_CAP_WRITE, &dev));
	KEXPECT_EQ(cap_delete(ts.cs, 0), 0);	/* its last capability: grants taken back */
	KEXPECT_EQ(device_map(dev.obj, t->mm, 0), -EBADF);
	kobject_put(dev.obj);
	user_task_put(t);
	test_space_free(&ts);
}

/* Is a sender queued on the endpoint? */
static bool sender_queued(struct play *p)
{
	struct endpoint *ep = to_endpoint(p->obj[EP]);
	u64 end = ktime_get_ns() + WAIT_NS;
	unsigned long flags;
	bool queued;

	do {
		spin_lock_irqsave(&ep->lock, flags);
		queued = !list_empty(&ep->senders);
		spin_unlock_irqrestore(&ep->lock, flags);
		if (!queued)
			msleep(2);
	} while (!queued && ktime_get_ns() < end);
	return queued;
}

/* The caller tests/lifetimes.c kills while its receiver holds it claimed. */
static struct user_task *victim;
static atomic_t claims_seen;

/*
 * ipc_claim_hook: the receiver just claimed the victim's call.  Kill the
 * victim there, and wait until its thread went back to sleep: woken by
 * the kill, it found itself claimed and waits for the receiver (msleep:
 * at SMP=1 the victim needs our CPU to get there).
 */
static void kill_while_claimed(struct thread_obj *th)
{
	struct task_struct *kt = th->ut->kt;
	u64 end = ktime_get_ns() + WAIT_NS;

	if (th->ut->task != READ_ONCE(victim) || atomic_inc_return(&claims_seen) != 1)
		return;
	user_task_kill(victim, SYS_KILLED_BY_KERNEL);
	do
		msleep(1);
	while (READ_ONCE(kt->state) != TASK_BLOCKED && ktime_get_ns() < end);
}

/*
 * A caller killed while its receiver holds it claimed: the kill's
 * wake-up found it claimed, and it slept on; the receiver that moves it
 * on to REPLY_WAIT wakes it, and it leaves while the reply is still held.
 * Before: moved to REPLY_WAIT without a wake-up, it slept until the
 * reply came (here: never, until the test let the server go).
 */
KTEST(lifetimes_caller_killed_while_claimed_leaves_before_the_reply)
{
	struct user_task *s;
	struct play p;
	bool ended;

	NEED_HELPER();
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no IPC hooks");
	KASSERT(play_make(&p));
	atomic_set(&claims_seen, 0);
	victim = start(&p, "caller", -1, "cap");
	KASSERT(victim);
	KEXPECT(sender_queued(&p));		/* the server comes second: it claims the call */
	ipc_claim_hook = kill_while_claimed;
	s = start(&p, "server", -1, "reply");
	KASSERT(s);
	KEXPECT(signalled(&p, READY, WAIT_NS));		/* it took the call: the hook ran */
	ipc_claim_hook = NULL;
	KEXPECT_EQ(atomic_read(&claims_seen), 1);
	ended = !user_task_wait_timeout(victim, PROMPT_NS, &(struct sys_exit_status){ 0 });
	KEXPECT(ended);				/* while the reply is held */
	go(&p);
	KEXPECT_EQ(end_of(s), 0);		/* its reply found nobody: -ESRCH */
	KEXPECT_EQ(end_of(victim), -1);
	victim = NULL;
	play_free(&p);
}

/*
 * A reply-and-receive replies to a caller waiting on its CPU -- the
 * direct switch's target, completed but not yet woken -- then finds a
 * sender whose message carries a capability, which needs cap_mutex: held
 * here.  The caller must run meanwhile: the server woke it before it
 * slept.  Before: the server slept with the caller unwoken, its handoff
 * pending across the sleep (a kill in that window let the caller exit and
 * be freed before the late switch to it).
 */
KTEST(lifetimes_reply_recv_wakes_its_direct_switch_before_it_sleeps)
{
	int cpu = nr_cpu_ids - 1;
	struct user_task *s, *a, *b;
	struct play p;

	NEED_HELPER();
	while (cpu > 0 && !cpu_online(cpu))
		cpu--;
	KASSERT(play_make(&p));
	s = start(&p, "server", cpu, "reply_recv");
	a = start(&p, "caller", cpu, "plain");	/* on the server's CPU: its direct switch */
	KASSERT(s && a);
	KEXPECT(signalled(&p, READY, WAIT_NS));		/* the server holds a's call */
	b = start(&p, "caller", -1, "cap");
	KASSERT(b);
	KEXPECT(sender_queued(&p));		/* b waits, its message carrying a capability */
	mutex_lock(&cap_mutex);
	go(&p);
	KEXPECT(signalled(&p, DONE, PROMPT_NS));		/* a's call returned while we hold cap_mutex */
	mutex_unlock(&cap_mutex);
	KEXPECT_EQ(end_of(a), 0);
	KEXPECT_EQ(end_of(b), 0);
	KEXPECT_EQ(end_of(s), 0);
	play_free(&p);
}
