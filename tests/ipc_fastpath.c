/*
 * IPC's fast path (kernel/user/fastpath.c): a call and a reply-and-receive
 * between two threads on one CPU take it -- this CPU's fast_calls and
 * fast_replies count it -- and keep what the general switch keeps (the
 * direct-switch count, the system-call counts); every condition it asks
 * for, broken on purpose, sends the IPC the general way, and the replies
 * are still right (the helper checks each one: tests/user/helpers/fastpath.c).
 */
#include "ktest.h"
#include "object/ipc.h"
#include "user/task.h"
#include "user/thread.h"
#include "user/module.h"
#include "user/fastpath.h"

#define ROUNDS		100
#define HELPER		"tests/user/helpers/fastpath"

struct fast_counts {
	unsigned long calls, replies, declined;
	u64 direct;
};

static void read_counts(int cpu, struct fast_counts *c)
{
	const struct ipc_stats *s = &per_cpu(ipc_stats, cpu);

	c->calls = READ_ONCE(s->fast_calls);
	c->replies = READ_ONCE(s->fast_replies);
	c->declined = READ_ONCE(s->fast_declined);
	c->direct = sched_nr_direct_switches(cpu);
}

/* The fast path's counts on cpu while it ran (*after - *before, in *d). */
static void diff_counts(const struct fast_counts *b, const struct fast_counts *a,
			struct fast_counts *d)
{
	d->calls = a->calls - b->calls;
	d->replies = a->replies - b->replies;
	d->declined = a->declined - b->declined;
	d->direct = a->direct - b->direct;
}

/*
 * Runs the helper (MODE, client on cpu, server on server_cpu) and waits:
 * true if every reply was right (run_status(): if it exited with want); *d: the fast path's counts on cpu,
 * *syscalls: the system calls its task made.
 */
static bool run_status(const char *mode, int cpu, int server_cpu, int rounds,
		       struct fast_counts *d, unsigned long *syscalls, int want)
{
	struct fast_counts before, after;
	struct sys_exit_status st;
	struct user_task *t;
	char cmd[96];
	int err;

	snprintf(cmd, sizeof(cmd), HELPER " %s %d %d %d", mode, cpu, server_cpu, rounds);
	read_counts(cpu, &before);
	t = user_spawn(cmd, NULL, &err);
	if (!t) {
		ktest_info("%s did not start (error %d)", HELPER, err);
		return false;
	}
	if (user_task_wait_timeout(t, ktest_budget_ns(30, 2), &st)) {
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, ktest_budget_ns(30, 2), &st);
		user_task_put(t);
		ktest_info("%s did not finish", cmd);
		return false;
	}
	*syscalls = user_task_syscalls(t);
	user_task_put(t);
	read_counts(cpu, &after);
	diff_counts(&before, &after, d);
	ktest_info("%s: %lu fast calls, %lu fast replies, %lu declined, %llu direct switches, "
		   "exit %d (killed %d)", cmd, d->calls, d->replies, d->declined,
		   (unsigned long long)d->direct, st.status, st.killed);
	return !st.killed && st.status == want;
}

static bool run(const char *mode, int cpu, int server_cpu, int rounds, struct fast_counts *d,
		unsigned long *syscalls)
{
	return run_status(mode, cpu, server_cpu, rounds, d, syscalls, 0);
}

static int test_cpu(void)
{
	return num_online_cpus() > 1 ? 1 : 0;
}

#define NEED_HELPER()							\
	do {								\
		if (!boot_module_find(HELPER))				\
			KTEST_SKIP("no boot module " HELPER " (no user programs on this boot)"); \
		if (!ipc_fastpath_enabled())				\
			KTEST_SKIP("the fast path is off (ipc.fastpath=0, or PREEMPT=1)"); \
	} while (0)

KTEST(ipc_fastpath_takes_call_and_reply_on_one_cpu)
{
	int cpu = test_cpu();
	struct fast_counts d;
	unsigned long calls;

	NEED_HELPER();
	KASSERT(run("plain", cpu, cpu, ROUNDS, &d, &calls));
	/* Each call and each reply-and-receive but the first few (the server not waiting yet). */
	KEXPECT(d.calls >= ROUNDS - 4);
	KEXPECT(d.replies >= ROUNDS - 4);
	/* Still direct switches, counted; still system calls, counted. */
	KEXPECT(d.direct >= d.calls + d.replies);
	KEXPECT(calls >= 2 * ROUNDS);
}

KTEST(ipc_fastpath_not_for_capabilities)
{
	int cpu = test_cpu();
	struct fast_counts d;
	unsigned long calls;

	NEED_HELPER();
	KEXPECT(run("cap", cpu, cpu, ROUNDS / 4, &d, &calls));
	KEXPECT_EQ(d.calls, 0);
	KEXPECT_EQ(d.replies, 0);
	KEXPECT(d.direct >= ROUNDS / 4);	/* the general way still switches directly */
}

KTEST(ipc_fastpath_not_when_no_receiver_waits)
{
	int cpu = test_cpu();
	struct fast_counts d;
	unsigned long calls;

	NEED_HELPER();
	KEXPECT(run("late", cpu, cpu, ROUNDS / 4, &d, &calls));
	KEXPECT(d.calls <= 1);	/* (the first call finds the server in its first receive) */
	KEXPECT_EQ(d.replies, 0);
}

KTEST(ipc_fastpath_not_across_cpus)
{
	struct fast_counts d0, d1;
	unsigned long calls;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs");
	NEED_HELPER();
	KEXPECT(run("plain", 0, 1, ROUNDS / 4, &d0, &calls));
	KEXPECT_EQ(d0.calls + d0.replies, 0);
	KEXPECT(run("plain", 1, 0, ROUNDS / 4, &d1, &calls));
	KEXPECT_EQ(d1.calls + d1.replies, 0);
}

KTEST(ipc_fastpath_not_under_strace)
{
	int cpu = test_cpu();
	struct fast_counts d;
	unsigned long calls;
	bool was;

	NEED_HELPER();
	was = syscall_strace_set(true);
	KEXPECT(run("plain", cpu, cpu, 3, &d, &calls));
	syscall_strace_set(was);
	KEXPECT_EQ(d.calls + d.replies, 0);
}

KTEST(ipc_fastpath_off_is_the_general_way)
{
	int cpu = test_cpu();
	struct fast_counts d;
	unsigned long calls;

	NEED_HELPER();
	ipc_fastpath_set(false);
	KEXPECT(run("plain", cpu, cpu, ROUNDS / 4, &d, &calls));
	ipc_fastpath_set(true);
	KEXPECT_EQ(d.calls + d.replies, 0);
	KEXPECT(d.direct >= 2 * (ROUNDS / 4) - 4);	/* schedule_to(), the general direct switch */
}

/*
 * The hook, once: a grace period starts, and waits for this CPU (which is
 * in its system call, interrupts off, about to switch).  Bounded: the
 * grace-period thread runs on another CPU.
 */
static atomic_t gp_hook_calls;

static void start_gp_here(struct task_struct *next)
{
	u64 deadline = ktime_get_ns() + ktest_budget_ns(10, 1);

	(void)next;
	ipc_fastpath_hook = NULL;
	atomic_inc(&gp_hook_calls);
	start_poll_synchronize_rcu();
	while (!rcu_qs_wanted() && ktime_get_ns() < deadline)
		cpu_relax();
}

/*
 * A grace period that waits for this CPU's quiescent state is pending
 * work: the fast switch declines (the general switch reports), and the
 * replies stay right (checking build: the hook makes one wait there).
 */
KTEST(ipc_fastpath_declines_while_a_grace_period_waits)
{
	struct fast_counts d;
	unsigned long calls;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("the test hook is in the checking build only");
	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs (the grace-period thread runs on another)");
	NEED_HELPER();
	atomic_set(&gp_hook_calls, 0);
	ipc_fastpath_hook = start_gp_here;
	KEXPECT(run("plain", 1, 1, ROUNDS / 4, &d, &calls));
	ipc_fastpath_hook = NULL;
	KEXPECT_EQ(atomic_read(&gp_hook_calls), 1);
	KEXPECT_EQ(d.declined, 1);
	/* The others still fast: the general switch reported. */
	KEXPECT(d.calls + d.replies >= 2 * (ROUNDS / 4) - 5);
}

/*
 * The hook, once, in a call (the caller waits for its reply, so next is
 * the server): the server thread is killed -- woken, it is no longer
 * blocked -- as a kill from another thread could come.
 */
static atomic_t kill_hook_calls;

static void kill_server(struct task_struct *next)
{
	struct thread_obj *me = current_thread_obj_peek();

	if (!me || READ_ONCE(me->state) != IPC_REPLY_WAIT)
		return;		/* a reply-and-receive: next is the client */
	ipc_fastpath_hook = NULL;
	atomic_inc(&kill_hook_calls);
	user_thread_kill(next->user);
}

/*
 * A partner killed before the switch: the fast switch declines (next is
 * no longer blocked), the general wait runs it, it leaves, and the
 * call it owed a reply fails with -EPIPE -- no hang, no lost call (the
 * helper's exit status 7 says so).
 */
KTEST(ipc_fastpath_declines_for_a_killed_partner)
{
	struct fast_counts d;
	unsigned long calls;
	int cpu = test_cpu();

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("the test hook is in the checking build only");
	NEED_HELPER();
	atomic_set(&kill_hook_calls, 0);
	ipc_fastpath_hook = kill_server;
	KEXPECT(run_status("victim", cpu, cpu, ROUNDS / 4, &d, &calls, 7));
	ipc_fastpath_hook = NULL;
	KEXPECT_EQ(atomic_read(&kill_hook_calls), 1);
	KEXPECT_EQ(d.declined, 1);
}
