/*
 * User tasks (task.h): creating one, the list of them, killing one,
 * ending one.  Starting its program is exec.c's; its threads are
 * thread.c's.
 *
 * The task list is an RCU list: the monitor's ps and user_task_find()
 * (a task waiting for another by id) walk it with no lock.  Writers take
 * tasks_lock.  A task taken off the list is freed only after a grace
 * period, by kfree_rcu(), once its last reference is gone.
 */
#include "user/syscalls.h"
#include "user/thread.h"
#include "object/cspace.h"
#include "object/task.h"
#include "object/holds.h"
#include <errno.h>

/* What a task's own structures cost its quota: the task, its address space and capability space. */
#define TASK_BYTES	(sizeof(struct user_task) + sizeof(struct mm_struct) + sizeof(struct cspace))

static LIST_HEAD(task_list);
static DEFINE_SPINLOCK(tasks_lock);
static atomic_long_t tasks_live;

static const char *basename_of(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

struct user_task *user_task_create(const char *path, struct user_task *parent,
				   struct quota *quota)
{
	struct user_task *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	/* Its quota first: everything after is charged to it. */
	if (task_objects_init(t, quota)) {
		kfree(t);
		return NULL;
	}
	if (!quota_charge(t->quota, QUOTA_TASKS, TASK_BYTES)) {
		task_objects_free(t);
		kfree(t);
		return NULL;
	}
	t->mm = mm_create(t->quota);
	if (!t->mm) {
		quota_uncharge(t->quota, QUOTA_TASKS, TASK_BYTES);
		task_objects_free(t);
		kfree(t);
		return NULL;
	}
	atomic_set(&t->refs, 1);	/* the creator's */
	strncpy(t->name, basename_of(path), sizeof(t->name) - 1);
	strncpy(t->path, path, sizeof(t->path) - 1);
	spin_lock_init(&t->lock);
	t->lock.name = "user_task";
	spin_lock_init(&t->console_lock);
	t->console_lock.name = "user_console";
	INIT_LIST_HEAD(&t->threads);
	init_completion(&t->done);
	t->parent = parent;
	t->start_ns = ktime_get_ns();
	atomic_long_inc(&tasks_live);
	return t;
}

void user_task_get(struct user_task *t)
{
	atomic_inc(&t->refs);
}

static void free_task(struct user_task *t)
{
	struct user_thread *ut, *n;

	if (t->mm)
		panic("BUG: freeing user task %d (%s) with its address space", t->id, t->name);
	holds_check_free(HOLD_TASK, t);
	/* (a task that never ran: its ended threads left the list at its end) */
	list_for_each_entry_safe(ut, n, &t->threads, node) {
		list_del(&ut->node);
		user_thread_put(ut);
	}
	quota_uncharge(t->quota, QUOTA_TASKS, TASK_BYTES);
	task_objects_free(t);
	atomic_long_dec(&tasks_live);
	kfree_rcu(t, rcu);	/* user_task_find() may be looking at it */
}

/*
 * A task whose first thread could not start never ran: it still holds
 * its address space, which only an ending frees otherwise.
 */
void user_task_put(struct user_task *t)
{
	/* [task_put_dec] pairs [task_put_dec]: as [mm_put_dec] (kernel/user/mm.c). */
	if (!atomic_dec_and_test(&t->refs))
		return;
	if (t->mm) {
		mm_put(t->mm);
		t->mm = NULL;
	}
	free_task(t);
}

/* Lists t (with the list's reference): its id is known, its first thread about to start. */
void user_task_list(struct user_task *t)
{
	unsigned long flags;

	user_task_get(t);
	spin_lock_irqsave(&tasks_lock, flags);
	t->listed = true;
	list_add_tail_rcu(&t->node, &task_list);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/* Takes t off the list (tasks_lock held); the caller drops the list's reference. */
static bool unlist_locked(struct user_task *t)
{
	if (!t->listed)
		return false;
	t->listed = false;
	list_del_rcu(&t->node);
	return true;
}

/* The status was collected, or nobody will collect it: off the list. */
void user_task_unlist(struct user_task *t)
{
	unsigned long flags;
	bool was;

	spin_lock_irqsave(&tasks_lock, flags);
	was = unlist_locked(t);
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (was)
		user_task_put(t);
}

struct user_task *user_task_find(int id)
{
	struct user_task *t, *found = NULL;

	rcu_read_lock();
	list_for_each_entry_rcu(t, &task_list, node) {
		/* Not if its last reference is going: it is being freed. */
		if (t->id == id && atomic_inc_not_zero(&t->refs)) {
			found = t;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

void for_each_user_task(void (*fn)(struct user_task *t, void *arg), void *arg)
{
	struct user_task *t;
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	list_for_each_entry(t, &task_list, node)
		fn(t, arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

/*
 * Makes every live thread of t but the caller notice, t->lock held: a
 * blocked one is woken (its wait gives up: wait_for_completion_killable()),
 * one in user mode on another CPU gets an interrupt and leaves at its
 * return (exit_to_user_mode()).
 */
static void kick_threads_locked(struct user_task *t)
{
	struct user_thread *ut;

	list_for_each_entry(ut, &t->threads, node) {
		int cpu;

		if (ut->exited || !ut->kt || ut->kt == current)
			continue;
		wake_up_process(ut->kt);
		cpu = READ_ONCE(ut->kt->cpu);
		if (cpu != smp_processor_id() && cpu_online(cpu))
			arch_send_ipi(cpu, IPI_RESCHEDULE);
	}
}

void user_task_kill(struct user_task *t, int reason)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (!t->kill_reason && !t->exiting && !t->ended) {
		WRITE_ONCE(t->kill_reason, reason);
		/*
		 * [task_kill_mb] pairs [killable_mb], [ipc_sleep_mb],
		 * [fast_switch_mb]: the reason is visible
		 * before we read each thread's state in wake_up_process(): a
		 * thread going to sleep either sees it, or is seen asleep and
		 * woken.  (A thread in user mode on another CPU gets our IPI,
		 * which orders our stores before its handler: [sgi_dsb] on
		 * AArch64, the architecture on x86-64.)
		 */
		smp_mb();
		kick_threads_locked(t);
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

void user_task_exit(struct user_task *t, int status)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (!t->kill_reason && !t->exiting) {
		t->exit.status = status;
		WRITE_ONCE(t->exiting, true);
		/*
		 * [task_exit_mb] pairs [killable_mb], [ipc_sleep_mb], [fast_switch_mb]: as
		 * [task_kill_mb] in user_task_kill().
		 */
		smp_mb();
		kick_threads_locked(t);
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

/*
 * Its children lose their parent: an ended one nobody will wait for now
 * goes off the list, a live one will when it ends.
 */
static void orphan_children(struct user_task *parent)
{
	struct user_task *t, *n, *gone[16];
	unsigned long flags;
	int ngone;

	do {
		ngone = 0;
		spin_lock_irqsave(&tasks_lock, flags);
		list_for_each_entry_safe(t, n, &task_list, node) {
			if (t->parent != parent)
				continue;
			if (ngone == (int)ARRAY_SIZE(gone))
				break;	/* the rest keep their parent for the next pass */
			t->parent = NULL;
			if (READ_ONCE(t->ended) && unlist_locked(t))
				gone[ngone++] = t;
		}
		spin_unlock_irqrestore(&tasks_lock, flags);
		for (int i = 0; i < ngone; i++)
			user_task_put(gone[i]);
	} while (ngone == ARRAY_SIZE(gone));
}

/*
 * Its threads have all exited, and none of them can wait for another any
 * more: the list's references go now.  (Each user thread holds its task
 * until it is freed -- a thread object may keep it long after -- so the
 * list's references, kept until the task is freed, would keep each other
 * alive for ever.)
 */
static void drop_thread_list(struct user_task *t)
{
	struct user_thread *ut, *n;
	unsigned long flags;
	LIST_HEAD(gone);

	spin_lock_irqsave(&t->lock, flags);
	t->syscalls_gone = user_task_syscalls_locked(t);
	list_splice_init(&t->threads, &gone);
	spin_unlock_irqrestore(&t->lock, flags);
	list_for_each_entry_safe(ut, n, &gone, node) {
		list_del(&ut->node);
		user_thread_put(ut);
	}
}

unsigned long user_task_syscalls_locked(struct user_task *t)
{
	unsigned long n = t->syscalls_gone;
	struct user_thread *ut;

	list_for_each_entry(ut, &t->threads, node)
		n += READ_ONCE(ut->syscalls);
	return n;
}

unsigned long user_task_syscalls(struct user_task *t)
{
	unsigned long flags, n;

	spin_lock_irqsave(&t->lock, flags);
	n = user_task_syscalls_locked(t);
	spin_unlock_irqrestore(&t->lock, flags);
	return n;
}

void user_task_end(struct user_task *t)
{
	struct mm_struct *mm = t->mm;
	unsigned long flags;
	bool unlist;

	/* Its capabilities go first: a memory capability's mapping holds the address space. */
	task_objects_exit(t);
	/* (every thread, this one too, has left it: user_thread_exit()) */
	t->tlb_shootdowns = mm->tlb_shootdowns;
	t->tlb_ipis = mm->tlb_ipis;
	cpumask_copy(&t->tlb_ipi_cpus, &mm->tlb_ipi_cpus);
	spin_lock_irqsave(&t->lock, flags);
	t->mm = NULL;
	if (t->kill_reason)
		t->exit = (struct sys_exit_status){ .status = 0, .killed = t->kill_reason };
	spin_unlock_irqrestore(&t->lock, flags);
	mm_put(mm);
	drop_thread_list(t);
	user_console_flush(t);
	orphan_children(t);
	spin_lock_irqsave(&tasks_lock, flags);
	WRITE_ONCE(t->ended, true);
	unlist = !t->parent;	/* no task will wait for it */
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (unlist)
		user_task_unlist(t);
	complete_all(&t->done);
}

/*
 * A capability to t may exist already -- SYS_cap_spawn's setup makes it
 * before the first thread -- and another thread of the spawner may have
 * killed t through it, or be waiting on it (SYS_obj_wait).  No thread
 * will ever end t, so its end is told here: killed, for the kill's
 * reason, or by the kernel (the thread could not be made).  Without
 * this, such a wait slept until its own thread was killed.
 */
void user_task_never_ran(struct user_task *t)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	t->exit = (struct sys_exit_status){
		.status = 0, .killed = t->kill_reason ? t->kill_reason : SYS_KILLED_BY_KERNEL,
	};
	spin_unlock_irqrestore(&t->lock, flags);
	spin_lock_irqsave(&tasks_lock, flags);
	WRITE_ONCE(t->ended, true);	/* (a later kill is no news) */
	spin_unlock_irqrestore(&tasks_lock, flags);
	complete_all(&t->done);
}

int user_task_collect(struct user_task *child, struct user_task *parent,
		      struct sys_exit_status *st)
{
	unsigned long flags;
	bool gone = false;
	int ret = -ECHILD;

	spin_lock_irqsave(&tasks_lock, flags);
	if (child->parent == parent && !child->waited && child->ended) {
		child->waited = true;
		*st = child->exit;
		gone = unlist_locked(child);
		ret = 0;
	}
	spin_unlock_irqrestore(&tasks_lock, flags);
	if (gone)
		user_task_put(child);
	return ret;
}

/*
 * The kernel's wait (tests, the boot programs, make bench): woken by the
 * task's end itself (user_task_exit()'s complete_all()), so a benchmark
 * that times a program from spawn to exit reads its end, not the next
 * tick after it; only the deadline waits for a tick.
 */
int user_task_wait_timeout(struct user_task *t, u64 timeout_ns, struct sys_exit_status *st)
{
	u64 tick = NSEC_PER_SEC / HZ;

	if (!timeout_ns)
		wait_for_completion(&t->done);
	else if (!wait_for_completion_timeout(&t->done, (timeout_ns + tick - 1) / tick))
		return -ETIMEDOUT;
	/* complete_all() leaves it done for every other waiter; its lock orders the end before our read */
	*st = t->exit;
	return 0;
}

long user_tasks_live(void)
{
	return atomic_long_read(&tasks_live);
}
