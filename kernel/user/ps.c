/*
 * The monitor's `ps`, user half: each user task with its address space's
 * size and the quota it spends from (what is charged to it, of its limit:
 * shared with its parent if it spends from the parent's own), and its
 * threads under it (kernel threads are listed apart, by kernel/monitor.c).
 */
#include "user/thread.h"
#include "object/quota.h"
#include <asm/syscall.h>

static const char *thread_state(const struct user_thread *ut)
{
	static const char *const states[] = { "running", "blocked", "dead" };
	const struct task_struct *kt = ut->kt;

	if (ut->exited || !kt)
		return "exited";
	return kt->state <= TASK_DEAD ? states[kt->state] : "?";
}

/*
 * A blocked thread waits in a system call: which, and its first argument
 * (the slot, the thread, the time), read from the frame its entry saved
 * on its kernel stack -- the same place at every entry, the fast path's
 * included.  The stack is there while the thread is (t->lock held).
 */
static void show_wait(const struct user_thread *ut, char *buf, size_t len)
{
	const struct trap_frame *tf = READ_ONCE(ut->syscall_frame);
	const char *name;

	buf[0] = '\0';
	if (!tf || ut->exited || !ut->kt || ut->kt->state != TASK_BLOCKED)
		return;
	name = syscall_name(arch_syscall_nr(tf));
	if (name)
		snprintf(buf, len, " in %s(%ld)", name, (long)arch_syscall_arg(tf, 0));
}

static void show_user_task(struct user_task *t, void *arg)
{
	struct user_thread *ut;
	int *count = arg;
	char quota[24];

	spin_lock(&t->lock);	/* (interrupts are off: for_each_user_task()) */
	snprintf(quota, sizeof(quota), "%ld/%ld", atomic_long_read(&t->quota->used) / 1024,
		 t->quota->limit / 1024);
	printk("  %4d  %-15s %-7s %6zu %11s %9lu  %s\n", t->id, t->name,
	       t->ended ? "ended" : t->kill_reason ? "killed" : "running",
	       t->mm ? t->mm->pages : 0, quota, user_task_syscalls_locked(t), t->path);
	list_for_each_entry(ut, &t->threads, node) {
		char wait[48];

		show_wait(ut, wait, sizeof(wait));
		printk("        thread %-5d CPU%-3d %s%s\n", ut->tid, ut->kt ? ut->kt->cpu : -1,
		       thread_state(ut), wait);
	}
	spin_unlock(&t->lock);
	(*count)++;
}

void user_show_tasks(void)
{
	int count = 0;

	printk("  user tasks:\n    id  name            state    pages   quota KiB  syscalls  program\n");
	for_each_user_task(show_user_task, &count);
	if (!count)
		printk("  (none)\n");
}
