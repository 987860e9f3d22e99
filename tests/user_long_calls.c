/*
 * No system call holds up a grace period, however long the program makes
 * it (kernel/user/resched.c): every loop whose length a program chooses
 * lets the CPU go every few steps, and reports a quiescent state there.
 * The program (tests/user/helpers/longcall.c) makes each such call --
 * printing, printing through the console server's capability, mapping and
 * unmapping, revoking, ending with pages and capabilities to give back --
 * again and again, and the test shows, for each, a grace period that
 * began inside one call and ended before that call returned.
 *
 * Counted, not timed: user_resched_hook runs at every point where a long
 * call lets the CPU go, inside the call.  At one point it asks for a
 * grace period (start_poll_synchronize_rcu()); at a later point of the
 * same call it finds it ended -- the call still in the kernel.  Under
 * syscall.inject=no_resched the call's CPU reports no quiescent state
 * until the call returns, so no grace period ever ends inside one: the
 * budget, which only a broken kernel runs out of, runs out.
 */
#include "ktest.h"
#include "object/console.h"
#include "user/thread.h"
#include <asm/syscall.h>

#define LONGCALL	"tests/user/helpers/longcall"
#define CONSOLE_SLOT	0	/* longcall's */

static const struct kind {
	const char *arg;
	int nrs[2];		/* the calls it makes long (-1: none) */
	bool prints;		/* what it prints goes to the console */
} kinds[] = {
	/* (the quiet ones first: a broken kernel fails there, before pages of output) */
	{ "memory", { SYS_map, SYS_unmap }, false },
	{ "revoke", { SYS_cap_revoke, -1 }, false },
	{ "exit", { SYS_exit, -1 }, false },
	{ "write", { SYS_console_write, -1 }, true },
	{ "lines", { SYS_console_lines, -1 }, true },
};

/* What the hook saw of the program's calls. */
static struct watch {
	struct user_task *task;		/* the program watched */
	bool asked;			/* a grace period was asked for in call `call` */
	struct user_thread *thread;	/* which: the thread that made it, */
	unsigned long call;		/* and its system-call count then */
	unsigned long cookie;
	unsigned long points;		/* points met in all */
	bool ended_inside[NR_SYSCALLS];	/* a grace period began and ended inside one such call */
} w;

/* At each point where a long call lets the CPU go: in the program's call, before it does. */
static void at_resched_point(void)
{
	struct user_thread *ut = current->user;
	unsigned long call, nr;

	/* (not the exit a kill makes: its points belong to the call it interrupted) */
	if (!ut || ut->task != READ_ONCE(w.task) || READ_ONCE(ut->task->kill_reason))
		return;
	call = READ_ONCE(ut->syscalls);
	w.points++;
	if (!w.asked || call != w.call || ut != w.thread) {
		w.asked = true;
		w.thread = ut;
		w.call = call;
		w.cookie = start_poll_synchronize_rcu();
		return;
	}
	nr = arch_syscall_nr(ut->syscall_frame);
	if (poll_state_synchronize_rcu(w.cookie) && nr < NR_SYSCALLS)
		smp_store_release(&w.ended_inside[nr], true);
}

static bool shown(const struct kind *k)
{
	for (int i = 0; i < 2; i++)
		if (k->nrs[i] >= 0 && !smp_load_acquire(&w.ended_inside[k->nrs[i]]))
			return false;
	return true;
}

/* Before the program's first instruction: watched, and a console capability for "lines". */
static int watch_it(struct user_task *t, void *arg)
{
	const struct kind *k = arg;

	w.asked = false;
	WRITE_ONCE(w.task, t);
	return strcmp(k->arg, "lines") ? 0 : console_cap_grant(t->cspace, CONSOLE_SLOT);
}

/* Runs the program until the kind is shown, the program fails, or the budget is gone. */
static bool show(const struct kind *k)
{
	u64 end = ktime_get_ns() + ktest_budget_ns(10, 2);	/* (only a broken kernel runs out) */
	unsigned long points = w.points;
	struct sys_exit_status st = { 0 };
	char cmd[64];
	int err, runs = 0;

	snprintf(cmd, sizeof(cmd), LONGCALL " %s", k->arg);
	while (!shown(k) && !st.status && ktime_get_ns() < end) {
		struct user_task *t = user_spawn_root_with(cmd, &err, watch_it, (void *)k);

		if (!t) {
			ktest_info("%s did not start (error %d)", cmd, err);
			return false;
		}
		runs++;
		while (!shown(k) && !completion_done(&t->done) && ktime_get_ns() < end)
			msleep(1);
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		if (user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st))
			st.status = -1;		/* (it did not end: the test fails below) */
		WRITE_ONCE(w.task, NULL);
		user_task_put(t);
		if (st.status)
			ktest_info("%s: a call failed (exit status %d)", cmd, st.status);
	}
	ktest_info("longcall %s: %s (%d run%s, %lu points met)", k->arg,
		   shown(k) ? "a grace period began and ended inside one call" :
		   "NO grace period ended inside a call", runs, runs == 1 ? "" : "s",
		   w.points - points);
	return shown(k);
}

KTEST(user_long_calls_let_grace_periods_end_inside_them)
{
	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no resched hook");
	if (!boot_module_find(LONGCALL))
		KTEST_SKIP("no boot module " LONGCALL " (no user programs on this boot)");
	memset(&w, 0, sizeof(w));
	user_resched_hook = at_resched_point;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (!show(&kinds[i]))
			break;		/* (the others would wait as long for as little) */
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		KEXPECT_WHY(shown(&kinds[i]), "longcall %s: not shown", kinds[i].arg);
	user_resched_hook = NULL;
}

/* The kill test: the program is killed at the first point of its call, and the call counted on. */
static struct kill_watch {
	struct user_task *task;
	int nr;			/* the call to kill it in */
	bool killed;
	int points_after;	/* points the call met after the kill: it should stop at the first */
} kw;

static void kill_at_first_point(void)
{
	struct user_thread *ut = current->user;

	/* (not the points of the exit the kill makes: it has left its address space by then) */
	if (!ut || ut->task != READ_ONCE(kw.task) || !current->mm ||
	    arch_syscall_nr(ut->syscall_frame) != (unsigned long)kw.nr)
		return;
	if (!kw.killed) {
		user_task_kill(ut->task, SYS_KILLED_BY_KERNEL);
		smp_store_release(&kw.killed, true);
	} else {
		kw.points_after++;
	}
}

static int watch_kill(struct user_task *t, void *arg)
{
	const struct kind *k = arg;

	WRITE_ONCE(kw.task, t);
	return strcmp(k->arg, "lines") ? 0 : console_cap_grant(t->cspace, CONSOLE_SLOT);
}

/*
 * A program killed in the middle of a long console call leaves it at the
 * call's next point, not after the rest of its buffer: the kill is
 * checked where the CPU may go.  Counted: the hook kills it at the call's
 * first point and counts the points the call meets after.
 */
KTEST(user_long_console_calls_stop_at_a_kill)
{
	struct sys_exit_status st;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no resched hook");
	if (!boot_module_find(LONGCALL))
		KTEST_SKIP("no boot module " LONGCALL " (no user programs on this boot)");
	user_resched_hook = kill_at_first_point;
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		struct user_task *t;
		char cmd[64];
		int err;

		if (!kinds[i].prints)
			continue;

		memset(&kw, 0, sizeof(kw));
		kw.nr = kinds[i].nrs[0];
		snprintf(cmd, sizeof(cmd), LONGCALL " %s", kinds[i].arg);
		t = user_spawn_root_with(cmd, &err, watch_kill, (void *)&kinds[i]);
		KASSERT(t);
		KEXPECT_EQ(user_task_wait_timeout(t, ktest_budget_ns(20, 2), &st), 0);
		ktest_info("longcall %s: killed at its call's first point; the call met %d more",
			   kinds[i].arg, kw.points_after);
		KEXPECT(kw.killed);
		KEXPECT_EQ(kw.points_after, 0);
		KEXPECT_EQ(st.killed, SYS_KILLED_BY_KERNEL);
		WRITE_ONCE(kw.task, NULL);
		user_task_put(t);
	}
	user_resched_hook = NULL;
}
