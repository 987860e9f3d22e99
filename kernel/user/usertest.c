/*
 * User tests (make test): every program built from tests/user/NAME.c is a
 * boot module named tests/user/NAME, and the test runner (kernel/ktest.c)
 * runs it as the test user_NAME, in a task of its own, beside the kernel
 * tests and in the same KTAP output:
 *
 *   - it passes when the program exits with status 0 (main returns 0,
 *     exit(0)); another status, abort() or a kill fails it;
 *   - a program named fault_* passes only when the kernel kills it for a
 *     fault in user mode (the console shows the report);
 *   - what it prints appears as KTAP diagnostics ("# " before each line);
 *   - it has a timeout of its own: a program that hangs is killed, fails,
 *     and the tests after it still run;
 *   - it starts as the root task does (user_spawn_root()): with the boot
 *     capabilities, its quota and every boot program (lib/ipc.h), so it
 *     can start its helpers -- through those capabilities, as any task.
 *
 * Nothing to register: dropping a .c file into tests/user/ is enough
 * (user/user.mk builds it, tools/run.py puts it on the boot).
 */
#include "ktest.h"
#include "ktest_runner.h"
#include "object/quota.h"
#include "user/task.h"
#include "user/user.h"

#define TEST_PREFIX	"tests/user/"
#define FAULT_PREFIX	"fault_"
#define MAX_TEST_NAME	64

/* Each test's own deadline: usertest.timeout= seconds, plus 2 s per CPU (TCG shares the host). */
static int timeout_s = 30;
KPARAM_INT("usertest.timeout", timeout_s, 1, 3600);
#define KILL_WAIT_S	20	/* how long a killed test may take to end */
#define LEFT_WAIT_S	2	/* how long its tasks may take to end after it */
#define LEFT_MAX	16	/* tasks left behind handled per pass */
#define LEFT_PASSES	64	/* passes: one may start more as we kill */

static struct ktest user_tests[MAX_BOOT_MODULES];
static char names[MAX_BOOT_MODULES][MAX_TEST_NAME];
static int nr_user_tests = -1;

/*
 * tests/user/NAME, or tests/user/ARCH/NAME for this architecture, is the
 * test user_NAME (other folders hold helpers the kernel tests start).
 */
static const char *test_part(const char *module)
{
	const char *rest = module + strlen(TEST_PREFIX);

	if (strncmp(module, TEST_PREFIX, strlen(TEST_PREFIX)))
		return NULL;
	if (!strncmp(rest, ARCH_NAME "/", strlen(ARCH_NAME) + 1))
		rest += strlen(ARCH_NAME) + 1;
	return *rest && !strchr(rest, '/') ? rest : NULL;
}

static bool test_name(const char *module, char *out, size_t len)
{
	const char *rest = test_part(module);

	return rest && (size_t)snprintf(out, len, "user_%s", rest) < len;
}

static void user_test_fn(void);

static void find_user_tests(void)
{
	nr_user_tests = 0;
	for (int i = 0; i < boot_module_count(); i++) {
		const struct boot_module *m = boot_module(i);
		struct ktest *t = &user_tests[nr_user_tests];

		if (!test_name(m->name, names[nr_user_tests], MAX_TEST_NAME))
			continue;
		t->name = names[nr_user_tests];
		t->fn = user_test_fn;
		t->file = m->name;	/* sorts them among the kernel's tests by path */
		t->line = 0;
		t->expect = KTEST_NORMAL;
		t->message = t->cmdline = "";
		t->user_module = m;
		nr_user_tests++;
	}
}

int usertest_select(const char *glob, const struct ktest **out)
{
	int n = 0;

	if (nr_user_tests < 0)
		find_user_tests();
	for (int i = 0; i < nr_user_tests; i++)
		if (glob_match(glob, user_tests[i].name))
			out[n++] = &user_tests[i];
	return n;
}

int usertest_max(void)
{
	return MAX_BOOT_MODULES;
}

/* Did the task end as the test's name asks? */
static void judge(const struct ktest *running, const struct boot_module *m,
		  const struct sys_exit_status *st, const struct user_task *t)
{
	bool want_fault = !strncmp(test_part(m->name), FAULT_PREFIX, strlen(FAULT_PREFIX));

	if (want_fault) {
		if (st->killed == SYS_KILLED_FAULT)
			ktest_info("%s: killed by %s at %#lx, as expected", running->name,
				   t->fault.kind, (unsigned long)t->fault.addr);
		else
			ktest_info("%s: expected a kill for a fault, got %s %d", running->name,
				   st->killed ? "a kill for reason" : "exit status",
				   st->killed ? st->killed : st->status);
		KEXPECT_EQ(st->killed, SYS_KILLED_FAULT);
		return;
	}
	if (st->killed)
		ktest_info("%s: killed (%s)", running->name,
			   st->killed == SYS_KILLED_FAULT ? "a fault in user mode" :
			   st->killed == SYS_KILLED_ABORT ? "abort()" : "by the kernel");
	else if (st->status)
		ktest_info("%s: exit status %d", running->name, st->status);
	KEXPECT_EQ(st->killed, 0);
	KEXPECT_EQ(st->status, 0);
}

/* The tasks a test started, still on the task list after it (each with a reference). */
struct left_behind {
	struct user_task *test;
	struct user_task *tasks[LEFT_MAX];
	int n;
};

static bool spends_from(const struct quota *q, const struct quota *test_quota)
{
	for (; q; q = q->parent)
		if (q == test_quota)
			return true;
	return false;
}

/* Under tasks_lock: a listed task's reference is the list's, so ours is safe to take. */
static void note_left_behind(struct user_task *t, void *arg)
{
	struct left_behind *l = arg;

	if (t != l->test && l->n < LEFT_MAX && !READ_ONCE(t->ended) &&
	    spends_from(t->quota, l->test->quota)) {
		user_task_get(t);
		l->tasks[l->n++] = t;
	}
}

/*
 * A test may start tasks that outlive it (spending from its quota or a
 * share carved from it); those that end within wait_ns are fine, as a
 * server's children end after it.  The ones still running then are
 * killed, or they would run on under the next tests and be counted as
 * their leaks.  More passes catch the tasks those started as we killed
 * them (a spawn bomb).  Returns how many it killed.
 */
int usertest_end_left_behind(struct user_task *test, u64 wait_ns)
{
	u64 deadline = ktime_get_ns() + wait_ns;
	struct sys_exit_status st;
	int killed = 0;

	for (int pass = 0; pass < LEFT_PASSES; pass++) {
		struct left_behind l = { .test = test };

		for_each_user_task(note_left_behind, &l);
		if (!l.n)
			break;
		for (int i = 0; i < l.n; i++) {
			u64 now = ktime_get_ns();

			if (!pass && now < deadline &&
			    !user_task_wait_timeout(l.tasks[i], deadline - now, &st))
				continue;
			user_task_kill(l.tasks[i], SYS_KILLED_BY_KERNEL);
			killed++;
		}
		for (int i = 0; i < l.n; i++) {
			user_task_wait_timeout(l.tasks[i], (u64)KILL_WAIT_S * NSEC_PER_SEC, &st);
			user_task_put(l.tasks[i]);
		}
	}
	return killed;
}

static void user_test_fn(void)
{
	const struct ktest *running = ktest_running();
	const struct boot_module *m = running->user_module;
	u64 budget = ktest_budget_ns(timeout_s, 2);
	struct sys_exit_status st;
	struct user_task *t;
	int err, left;

	t = user_spawn_root(m->cmdline, &err);
	if (!t) {
		ktest_info("%s: %s did not start (error %d)", running->name, m->name, err);
		KEXPECT(t);
		return;
	}
	if (user_task_wait_timeout(t, budget, &st)) {
		ktest_info("%s: TIMEOUT: still running after %llu s: killed", running->name,
			   (unsigned long long)(budget / NSEC_PER_SEC));
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		if (user_task_wait_timeout(t, (u64)KILL_WAIT_S * NSEC_PER_SEC, &st))
			ktest_info("%s: still not ended %d s after the kill", running->name,
				   KILL_WAIT_S);
		KEXPECT(!"the test ended within its timeout");
	} else {
		judge(running, m, &st, t);
	}
	left = usertest_end_left_behind(t, (u64)LEFT_WAIT_S * NSEC_PER_SEC);
	if (left) {
		ktest_info("%s: %d task%s it started still ran %d s after it ended: killed",
			   running->name, left, left == 1 ? "" : "s", LEFT_WAIT_S);
		KEXPECT(!"the tasks a test starts end with it");
	}
	user_task_put(t);
}
