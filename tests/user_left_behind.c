/*
 * A user test that ends with tasks of its own still running -- a server
 * it never stopped, a spawn bomb -- must not leave them to the tests
 * after it (kernel/user/usertest.c): the runner kills every task still
 * spending from the test's quota once the test ended, looking again for
 * the ones they started meanwhile, and the test fails, naming how many.
 * Here the test is tests/user/helpers/leaver: it starts more sleeping
 * tasks than the runner takes in one pass, and exits.
 */
#include "ktest.h"
#include "user/task.h"
#include "object/quota.h"

#define LEAVER		"tests/user/helpers/leaver 20"	/* more than a pass takes */
#define TASKS		20
#define WAIT_S		30

struct count {
	struct quota *quota;
	int running;
};

static void count_running(struct user_task *t, void *arg)
{
	struct count *c = arg;

	if (t->quota == c->quota && !READ_ONCE(t->ended))
		c->running++;
}

static int running_on(struct quota *q)
{
	struct count c = { .quota = q };

	for_each_user_task(count_running, &c);
	return c.running;
}

KTEST(usertest_kills_the_tasks_a_test_leaves_running)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err, killed;
	u64 end;

	t = user_spawn_root(LEAVER, &err);
	KASSERT(t);
	KASSERT(!user_task_wait_timeout(t, (u64)WAIT_S * NSEC_PER_SEC, &st));
	if (st.status == 1) {		/* a spawn refused: too little memory (MEM=18M) */
		usertest_end_left_behind(t, 0);
		user_task_put(t);
		KTEST_SKIP("too little memory for " LEAVER "'s tasks");
	}
	KEXPECT_EQ(st.status, 0);
	/* Every one up (their starts are done; each is on the list when it starts). */
	end = ktime_get_ns() + (u64)WAIT_S * NSEC_PER_SEC;
	while (running_on(t->quota) < TASKS && ktime_get_ns() < end)
		msleep(10);
	KEXPECT_EQ(running_on(t->quota), TASKS);
	killed = usertest_end_left_behind(t, 0);
	KEXPECT_EQ(killed, TASKS);
	KEXPECT_EQ(running_on(t->quota), 0);
	user_task_put(t);
}
