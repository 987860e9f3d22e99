/*
 * User threads (thread.h): creating one, its first entry to user mode,
 * its exit, and collecting its status.
 */
#include "user/thread.h"
#include "user/uaccess.h"
#include "object/quota.h"
#include "object/thread.h"
#include "object/holds.h"
#include <errno.h>

/*
 * What a thread costs its task's quota besides its user stack (which
 * mm_map() charges): its kernel half -- the kernel stack, its guard
 * page and the task_struct, given back when the reaper has freed them
 * (user_thread_reaped()) -- and this structure, given back when it is
 * freed (its status collected, or its task freed).
 */
#define KERNEL_HALF_BYTES	((THREAD_PAGES + 1) * PAGE_SIZE + sizeof(struct task_struct))

static atomic_t next_cpu;	/* SYS_CPU_ANY: the CPUs in turn */

void (*user_thread_published_hook)(struct user_task *t);

/* The CPU a thread asked to run on, or one in turn; -1 if not a good one. */
static int pick_cpu(int cpu)
{
	if (cpu == SYS_CPU_ANY) {
		for (int tries = 0; tries < NR_CPUS; tries++) {
			int c = (unsigned int)atomic_inc_return_relaxed(&next_cpu) % nr_cpu_ids;

			if (cpu_online(c))
				return c;
		}
		return smp_processor_id();
	}
	return cpu >= 0 && cpu < nr_cpu_ids && cpu_online(cpu) ? cpu : -1;
}

static void free_user_thread(struct user_thread *ut)
{
	quota_uncharge(ut->quota, QUOTA_THREADS, sizeof(*ut));
	quota_put(ut->quota);
	kfree(ut);
}

/*
 * The last put drops the thread's reference on its task: a user thread
 * names its task for as long as it lives, whoever keeps it (its thread
 * object, held by a capability or a reply capability, may outlive the
 * task's end by far).  Its task ended before (every thread of it exited,
 * or ut would not be unreferenced), so that put never sleeps: it may come
 * from an RCU callback (thread_release()).
 */
void user_thread_put(struct user_thread *ut)
{
	struct user_task *t = ut->task;

	/* [thread_put_dec] pairs [thread_put_dec]: as [mm_put_dec] (kernel/user/mm.c). */
	if (!atomic_dec_and_test(&ut->refs))
		return;
	holds_check_free(HOLD_USER_THREAD, ut);
	holds_unlink(ut, "task", t);
	free_user_thread(ut);
	if (!cap_injected(CAP_INJECT_NO_REF))	/* (the injection: the reaper dropped it) */
		user_task_put(t);
}

void user_thread_reaped(struct user_thread *ut)
{
	quota_uncharge(ut->quota, QUOTA_THREADS, KERNEL_HALF_BYTES);
}

/* Makes this CPU ready to run ut in user mode; interrupts off. */
static __always_inline void load_user_context(struct user_thread *ut)
{
	struct task_struct *kt = current;

	switch_mm(kt->mm);
	arch_user_thread_switch((uintptr_t)kt->stack + (THREAD_PAGES + 1) * PAGE_SIZE, ut->tls);
}

/* The scheduler's hook (kernel/sched.c): next is about to run here. */
void user_context_switch(struct task_struct *next)
{
	if (next->user)
		load_user_context(next->user);
	else
		switch_mm(next->mm);	/* a kernel thread: NULL, or one it borrows */
}

/* A new thread's kernel half starts here, then enters user mode for good. */
static int user_thread_start(void *data)
{
	struct user_thread *ut = data;

	if (user_thread_dying(ut))
		user_thread_exit(0);	/* killed, it or its task, before it ran */
	local_irq_disable();
	load_user_context(ut);
	switch_mm_check_user_return();
	/*
	 * (no exit_to_user_mode() here: nothing can be pending yet but a
	 * kill -- seen above, or one after that look, whose wake-up finds
	 * us running and which the return from our first entry sees)
	 */
	arch_enter_user(ut->entry, ut->sp, ut->arg, ut->tls);
}

int user_thread_create(struct user_task *t, uintptr_t entry, uintptr_t arg, uintptr_t sp,
		       uintptr_t tls, int cpu)
{
	struct user_thread *ut;
	struct task_struct *kt;
	unsigned long flags;
	long stack = 0;
	int tid;

	cpu = pick_cpu(cpu);
	if (cpu < 0 || !user_addr(entry))
		return -EINVAL;
	if (user_task_dying(t))
		return -ESRCH;
	if (!quota_charge(t->quota, QUOTA_THREADS, KERNEL_HALF_BYTES + sizeof(*ut)))
		return -ENOMEM;
	ut = kzalloc(sizeof(*ut), GFP_KERNEL);
	if (!ut) {
		quota_uncharge(t->quota, QUOTA_THREADS, KERNEL_HALF_BYTES + sizeof(*ut));
		return -ENOMEM;
	}
	ut->quota = t->quota;
	quota_get(ut->quota);
	if (!sp) {
		stack = mm_map(t->mm, 0, USER_STACK_PAGES * PAGE_SIZE,
			       SYS_PROT_READ | SYS_PROT_WRITE, VM_STACK);
		if (stack < 0) {
			user_thread_reaped(ut);		/* (never had a kernel half) */
			free_user_thread(ut);
			return stack;
		}
		sp = stack + USER_STACK_PAGES * PAGE_SIZE;
		ut->stack = stack;
	}
	kt = kthread_create_on_cpu(user_thread_start, ut, cpu, t->name);
	if (!kt) {
		if (stack)
			mm_unmap(t->mm, stack, USER_STACK_PAGES * PAGE_SIZE);
		user_thread_reaped(ut);
		free_user_thread(ut);
		return -ENOMEM;
	}
	atomic_set(&ut->refs, 2);	/* its own, and the task's list's */
	ut->task = t;
	ut->kt = kt;
	ut->tid = kt->pid;
	ut->entry = entry;
	ut->arg = arg;
	ut->sp = sp;
	ut->tls = tls;
	/*
	 * A user thread from its creation, not from its first run: the
	 * monitor's ps lists it with its task, never as a kernel thread, and
	 * the switch into it loads its address space and entry stack.
	 */
	kt->user = ut;
	kt->mm = t->mm;
	init_completion(&ut->done);
	user_task_get(t);		/* ut->task's, until ut is freed */
	holds_link(HOLD_USER_THREAD, ut, "task", HOLD_TASK, t);
	tid = ut->tid;
	/*
	 * Its task's first thread comes from its spawner alone (any other
	 * from a thread of the task): nobody races us to be first.  The
	 * task is listed before the thread can run, and end it (which
	 * unlists it).
	 */
	if (!t->id) {
		WRITE_ONCE(t->id, tid);
		user_task_list(t);
	}
	spin_lock_irqsave(&t->lock, flags);
	list_add_tail(&ut->node, &t->threads);
	t->nr_live++;
	/*
	 * Started before the lock goes: from then on a kill finds it on the
	 * list and wakes it too, and it may run, leave and be reaped -- kt
	 * and ut freed -- before a wake-up of ours after the unlock.  If t
	 * was killed already, the thread leaves as it starts.
	 */
	wake_up_process(kt);
	spin_unlock_irqrestore(&t->lock, flags);
	if (CONFIG_RCU_CHECKING && user_thread_published_hook)
		user_thread_published_hook(t);
	return tid;
}

/* How ut ended: its own status, or how its task was ended. t->lock held. */
static struct sys_exit_status exit_status_locked(struct user_task *t, struct user_thread *ut,
						  int status)
{
	if (ut->killed && !t->kill_reason && !t->exiting)
		return (struct sys_exit_status){ .status = 0, .killed = SYS_KILLED_BY_TASK };
	if (t->kill_reason)
		return (struct sys_exit_status){ .status = 0, .killed = t->kill_reason };
	if (t->exiting)
		return (struct sys_exit_status){ .status = t->exit.status, .killed = 0 };
	return (struct sys_exit_status){ .status = status, .killed = 0 };
}

void user_thread_exit(int status)
{
	struct user_thread *ut = current->user;
	struct user_task *t = ut->task;
	unsigned long flags;
	bool last;

	if (current->rcu_read_lock_nesting)
		panic("BUG: user thread %d leaving inside rcu_read_lock() (nesting %d)",
		      ut->tid, current->rcu_read_lock_nesting);
	srcu_check_task_exit(current);
	thread_obj_exit(ut);	/* a reply it owes wakes its caller with -EPIPE */
	if (ut->stack)
		mm_unmap(t->mm, ut->stack, USER_STACK_PAGES * PAGE_SIZE);
	/*
	 * Off the address space for good before we stop counting: once the
	 * count drops, the task's last thread may free it, and no CPU may
	 * have it loaded then (mm_put()).
	 */
	/*
	 * [membarrier_exit_mb] pairs [membarrier_end_mb]:
	 * what this thread did in user mode is visible before we say this CPU
	 * runs no address space (loaded_mm): a membarrier() that reads that
	 * and sends us no IPI must find it done ([schedule_mb] is this on
	 * every other way off the address space; Linux's exit_mm() has one).
	 */
	smp_mb();
	local_irq_save(flags);
	current->mm = NULL;
	switch_mm(NULL);
	local_irq_restore(flags);
	spin_lock_irqsave(&t->lock, flags);
	ut->exit = exit_status_locked(t, ut, status);
	ut->exited = true;
	last = --t->nr_live == 0;
	if (last && !t->kill_reason && !t->exiting)
		t->exit.status = status;	/* its last thread's, as it left */
	spin_unlock_irqrestore(&t->lock, flags);
	reaper_expect();	/* (before anyone sees us gone: user_settle()) */
	complete_all(&ut->done);
	if (last)
		user_task_end(t);
	reaper_add(ut);
	do_task_dead();		/* the reaper frees the kernel half once it is off this CPU */
}

/* Thread tid of task t, with a reference, if nobody collected it yet. */
static struct user_thread *find_thread(struct user_task *t, int tid)
{
	struct user_thread *ut, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	list_for_each_entry(ut, &t->threads, node) {
		if (ut->tid == tid && !ut->waited) {
			atomic_inc(&ut->refs);
			found = ut;
			break;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	return found;
}

int user_thread_wait(int tid, struct sys_exit_status *st)
{
	struct user_thread *me = current->user, *ut;
	struct user_task *t = me->task;
	unsigned long flags;
	bool mine = false;
	int ret;

	if (tid == me->tid)
		return -EDEADLK;
	ut = find_thread(t, tid);
	if (!ut)
		return -ESRCH;
	ret = wait_for_completion_killable(&ut->done);
	if (!ret) {
		spin_lock_irqsave(&t->lock, flags);
		if (!ut->waited) {
			ut->waited = mine = true;
			*st = ut->exit;
			t->syscalls_gone += READ_ONCE(ut->syscalls);
			list_del(&ut->node);
		}
		spin_unlock_irqrestore(&t->lock, flags);
		if (mine)
			user_thread_put(ut);	/* the list's reference */
		else
			ret = -ESRCH;		/* another thread collected it first */
	}
	user_thread_put(ut);
	return ret;
}

int user_thread_kill(struct user_thread *ut)
{
	struct user_task *t = ut->task;
	unsigned long flags;
	int cpu, ret = -ESRCH;

	spin_lock_irqsave(&t->lock, flags);
	if (!ut->exited && ut->kt) {
		WRITE_ONCE(ut->killed, true);
		/* [thread_kill_mb] pairs [killable_mb], [ipc_sleep_mb], [fast_switch_mb]: as [task_kill_mb]. */
		smp_mb();
		if (ut->kt != current) {
			wake_up_process(ut->kt);
			cpu = READ_ONCE(ut->kt->cpu);
			if (cpu != smp_processor_id() && cpu_online(cpu))
				arch_send_ipi(cpu, IPI_RESCHEDULE);
		}
		ret = 0;
	}
	spin_unlock_irqrestore(&t->lock, flags);
	return ret;
}
