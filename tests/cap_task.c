/*
 * A task capability whose task never ran -- a spawn that failed after it
 * made the parent's capability (SYS_cap_spawn, kernel/user/sys_cap.c) --
 * holds the task's last reference, so the object's free, an RCU callback,
 * would drop it; that last put frees an address space and a capability
 * space, which takes mutexes: a callback must not sleep, so the reaper
 * drops it (kernel/object/task.c, task_release()).  Shown failing with
 * task_release() putting the task itself: the checking build's "BUG:
 * mutex_lock() called from RCU callback kobject_free_rcu".
 */
#include "cap_test.h"
#include "object/types.h"
#include "object/task.h"
#include "user/thread.h"
#include "user/user.h"

KTEST(cap_task_of_a_task_that_never_ran_goes_in_process_context)
{
	long live = user_tasks_live();
	struct test_space ts;
	struct user_task *t;
	struct kobject *obj;
	int err = 0;

	KASSERT(test_space_make(&ts));
	t = user_task_create("tests/never_ran", NULL, NULL);	/* an address space, no thread */
	KASSERT(t != NULL);
	obj = task_obj_create(t, ts.q, &err);
	KASSERT(obj != NULL);
	KEXPECT_EQ(cap_insert_object(ts.cs, 0, obj, SYS_CAP_ALL), 0);
	kobject_put(obj);
	user_task_put(t);		/* the spawn's own reference: the object's is the last */
	KEXPECT_EQ(cap_delete(ts.cs, 0), 0);
	test_space_free(&ts);		/* the object's free runs, a grace period later */
	user_settle();			/* ... and the reaper's put after it */
	KEXPECT_EQ(user_tasks_live(), live);
}

/*
 * "Another thread of the parent", between cap_revoke_object()'s check and
 * its revoke: moves the task capability away and puts a notification, with
 * a child, in its slot -- if it can get at the space there (cap_mutex
 * free).
 */
static void move_it_away(struct cspace *cs, long slot)
{
	if (cap_mutex_held())
		return;		/* nothing in any space can change now */
	cap_move(cs, slot, 5);
	cap_create(cs, KOBJ_NOTIFICATION, slot, 0);
	cap_copy(cs, slot, 6);
}

/*
 * The undo of a failed spawn revokes and deletes the capability it
 * checked, even if the parent's other threads move capabilities around
 * meanwhile: no capability to the task that never ran is left.  Shown
 * failing with the mutex dropped between the check and the revoke (as
 * before): the moved task capability stayed, and the notification's
 * child in its place was revoked.
 */
KTEST(cap_task_undo_of_a_spawn_revokes_the_capability_it_checked)
{
	struct test_space ts;
	struct user_task *t;
	struct kobject *obj;
	int err = 0;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no capability hooks");
	KASSERT(test_space_make(&ts));
	t = user_task_create("tests/never_ran", NULL, NULL);
	KASSERT(t != NULL);
	obj = task_obj_create(t, ts.q, &err);
	KASSERT(obj != NULL);
	KEXPECT_EQ(cap_insert_object(ts.cs, 0, obj, SYS_CAP_ALL), 0);
	KEXPECT_EQ(cap_copy(ts.cs, 0, 1), 1);	/* a copy its other threads made */
	cap_revoke_object_hook = move_it_away;
	KEXPECT_EQ(cap_revoke_object(ts.cs, 0, obj), 0);
	cap_revoke_object_hook = NULL;
	KEXPECT_EQ(atomic_read(&obj->ncaps), 0);	/* none left, wherever it was */
	task_obj_disarm(obj);
	kobject_put(obj);
	user_task_put(t);
	test_space_free(&ts);
	user_settle();
}

/*
 * A task killed before its first thread starts never runs: another
 * thread of its spawner may kill it through the capability SYS_cap_spawn
 * made for it (setup, below: the same hook, the same kill), and may
 * already wait on it there.  The spawn fails (-ESRCH), and the wait must
 * end -- with the kill's reason -- not sleep for an end that never comes.
 * Shown failing without user_task_never_ran(): the task's completion was
 * never done, and a wait (SYS_obj_wait) on it slept until its own thread
 * was killed.
 */
static struct kobject *early_obj;

static int kill_before_it_runs(struct user_task *t, void *arg)
{
	int err = 0;

	early_obj = task_obj_create(t, arg, &err);
	if (!early_obj)
		return err;
	user_task_kill(t, SYS_KILLED_BY_TASK);	/* (sys_obj_kill()'s, through the capability) */
	return 0;
}

KTEST(cap_task_killed_before_it_ran_ends_the_waits_on_it)
{
	struct sys_exit_status st = { -1, -1 };
	long live = user_tasks_live();
	struct test_space ts;
	struct user_task *t;
	bool ended;
	int err = 0;

	KASSERT(test_space_make(&ts));
	early_obj = NULL;
	t = user_spawn_with("tests/user/helpers/exit_with 0", NULL, &err, kill_before_it_runs, ts.q);
	KEXPECT(t == NULL);
	KEXPECT_EQ(err, -ESRCH);
	KASSERT(early_obj != NULL);
	ended = completion_done(&container_of(early_obj, struct task_obj, base)->task->done);
	KEXPECT(ended);
	if (ended) {		/* (else the wait would sleep for ever: the bug) */
		KEXPECT_EQ(object_wait(early_obj, &st), 0);
		KEXPECT_EQ(st.killed, SYS_KILLED_BY_TASK);
	}
	kobject_put(early_obj);
	test_space_free(&ts);
	user_settle();
	KEXPECT_EQ(user_tasks_live(), live);
}

/*
 * A new thread is on its task's list, where a kill finds it and wakes
 * it, before user_thread_create() is done with it: killed there, it may
 * start, leave and be reaped -- its task_struct and user thread freed --
 * before its creator's own wake-up.  From user space: one thread of a
 * task exits the task (SYS_exit) as another makes a thread, or a
 * spawner's other thread kills the child through its capability.  The
 * hook kills the task there and waits until the reaper is done; the
 * creator must not touch the thread after.  Shown failing with the
 * wake-up after the list's lock is let go and the hook before it (as
 * before): a page fault in wake_up_process(), reading the freed
 * task_struct's poison (0x6b6b6b6b as its CPU).
 */
static struct user_task *made_task;

static int note_the_task(struct user_task *t, void *arg)
{
	(void)arg;
	made_task = t;
	return 0;
}

static void kill_and_reap_it(struct user_task *t)
{
	if (t != made_task)
		return;
	made_task = NULL;	/* (once: it never makes another thread) */
	user_task_kill(t, SYS_KILLED_BY_TASK);
	wait_for_completion(&t->done);
	user_settle();		/* the reaper freed its thread's kernel half */
}

KTEST(cap_task_thread_killed_as_it_is_made_is_not_touched_after)
{
	struct sys_exit_status st = { -1, -1 };
	long live = user_tasks_live();
	struct user_task *t;
	int err = 0;

	if (!CONFIG_RCU_CHECKING)
		KTEST_SKIP("production build: no thread hooks");
	made_task = NULL;
	user_thread_published_hook = kill_and_reap_it;
	/* (a program that never ends by itself: the kill is what ends it) */
	t = user_spawn_with("tests/user/helpers/spin 0", NULL, &err, note_the_task, NULL);
	user_thread_published_hook = NULL;
	KASSERT(t != NULL);
	KEXPECT_EQ(user_task_wait_timeout(t, 0, &st), 0);
	KEXPECT_EQ(st.killed, SYS_KILLED_BY_TASK);
	user_task_put(t);
	user_settle();
	KEXPECT_EQ(user_tasks_live(), live);
}
