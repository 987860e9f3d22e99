/*
 * Kernel threads: creating, starting, stopping and reaping them, their
 * stacks, and the list of all tasks (kernel threads and idle tasks).
 */
#include "rq.h"

static LIST_HEAD(all_tasks);
static DEFINE_SPINLOCK(tasks_lock);
static atomic_t next_pid = ATOMIC_INIT(1);

void add_to_task_list(struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	list_add_tail(&t->tasks, &all_tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
}

static void __noreturn kthread_exit(int code)
{
	struct task_struct *t = current;

	if (t->rcu_read_lock_nesting)
		panic("BUG: kthread %s returned inside rcu_read_lock() (nesting %d)",
		      t->comm, t->rcu_read_lock_nesting);
	srcu_check_task_exit(t);
	t->exit_code = code;
	do_task_dead();
}

/*
 * The calling task's last switch: it is dead, and whoever frees it
 * waits for t->exited (kthread_stop(), kthread_reap()), which the switch
 * completes once it is off this CPU (finish_task_switch()).
 */
void do_task_dead(void)
{
	current->state = TASK_DEAD;
	__schedule();
	panic("BUG: dead task %s ran again", current->comm);
}

static void __noreturn task_entry(void)
{
	struct task_struct *t;

	finish_task_switch();
	local_irq_enable();
	t = current;
	kthread_exit(t->threadfn(t->data));
}

static struct task_struct *kthread_create(int (*fn)(void *data), void *data,
					  unsigned int cpu, const char *name, bool per_cpu,
					  bool start)
{
	struct task_struct *t;

	if (!cpu_online(cpu))
		return NULL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->stack = kernel_stack_alloc(THREAD_PAGES);
	if (!t->stack) {
		kfree(t);
		return NULL;
	}
	t->threadfn = fn;
	t->data = data;
	t->per_cpu = per_cpu;
	t->pid = atomic_inc_return_relaxed(&next_pid);	/* a name, orders nothing */
	t->migrate_to = -1;
	t->cpu = cpu;
	t->state = TASK_BLOCKED;
	strncpy(t->comm, name, sizeof(t->comm) - 1);
	INIT_LIST_HEAD(&t->sleep_node);
	init_completion(&t->exited);
	t->sp = arch_task_stack_init((char *)t->stack + (THREAD_PAGES + 1) * PAGE_SIZE,
				     (void (*)(void))task_entry);
	add_to_task_list(t);
	if (start)
		enqueue_on(t, cpu);
	return t;
}

/* A thread that starts on cpu and moves elsewhere if cpu goes down. */
struct task_struct *kthread_run_on_cpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name)
{
	return kthread_create(fn, data, cpu, name, false, true);
}

/*
 * A thread created but not started (TASK_BLOCKED on cpu): wake_up_process()
 * starts it, once the caller has finished setting it up (user threads).
 */
struct task_struct *kthread_create_on_cpu(int (*fn)(void *data), void *data,
					  unsigned int cpu, const char *name)
{
	return kthread_create(fn, data, cpu, name, false, false);
}

/* A per-CPU thread (rcuc/N): parks while cpu is down, runs again when it is back. */
struct task_struct *kthread_run_percpu(int (*fn)(void *data), void *data,
				       unsigned int cpu, const char *name)
{
	return kthread_create(fn, data, cpu, name, true, true);
}

/*
 * Kernel stacks: `pages` usable pages above one unmapped guard page, so
 * an overflow faults instead of silently overwriting whatever lies below.
 * Returns the guard page's address (the stack starts one page above).
 */
void *kernel_stack_alloc(size_t pages)
{
	void *base = page_alloc(pages + 1);

	if (base)
		arch_stack_guard(base, true);
	return base;
}

void kernel_stack_free(void *base, size_t pages)
{
	arch_stack_guard(base, false);
	page_free(base, pages + 1);
}

/* Is addr in the guard page of this CPU's current stack? */
bool stack_guard_hit(uintptr_t addr)
{
	struct task_struct *t = current;
	uintptr_t page = ALIGN_DOWN(addr, PAGE_SIZE);

	return (t && t->stack && page == (uintptr_t)t->stack) ||
	       page == this_cpu()->stack_guard;
}

bool kthread_should_stop(void)
{
	return READ_ONCE(current->should_stop);
}

/*
 * Frees a dead thread (TASK_DEAD) once it is off its CPU for good: its
 * switch away completes t->exited (finish_task_switch()).
 */
static void kthread_free(struct task_struct *t)
{
	unsigned long flags;

	spin_lock_irqsave(&tasks_lock, flags);
	list_del(&t->tasks);
	spin_unlock_irqrestore(&tasks_lock, flags);
	kernel_stack_free(t->stack, THREAD_PAGES);
	kfree(t);
}

void kthread_reap(struct task_struct *t)
{
	wait_for_completion(&t->exited);
	kthread_free(t);
}

int kthread_stop(struct task_struct *t)
{
	int ret;

	might_sleep_check("kthread_stop");
	WRITE_ONCE(t->should_stop, true);
	wake_up_process(t);
	wait_for_completion(&t->exited);
	ret = t->exit_code;
	kthread_free(t);
	return ret;
}

void for_each_task(void (*fn)(struct task_struct *t, void *arg), void *arg)
{
	unsigned long flags;
	struct task_struct *t;

	spin_lock_irqsave(&tasks_lock, flags);
	list_for_each_entry(t, &all_tasks, tasks)
		fn(t, arg);
	spin_unlock_irqrestore(&tasks_lock, flags);
}
