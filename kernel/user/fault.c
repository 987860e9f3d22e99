/*
 * Faults in user mode: each kills the task, never the kernel.  The
 * message names the task, the fault, the address, the instruction and
 * stack pointers and the program (its path, where tools/run.py finds its
 * ELF to put a function name beside each address), in the manner of
 * Linux's "segfault at ... ip ... sp ..." lines; then the user call
 * trace (frame pointers: the runtime and newlib-user keep them).  Then
 * every thread of the task leaves and all it held is freed.
 */
#include "user/thread.h"
#include "user/uaccess.h"
#include "user/user.h"

#define MAX_USER_FRAMES	16

/* What went wrong with a page fault, in words. */
static const char *page_fault_cause(struct mm_struct *mm, const struct user_fault *f)
{
	if (f->addr < PAGE_SIZE)
		return "NULL pointer dereference";
	if (f->addr < USER_BASE || f->addr >= USER_TOP)
		return "an address outside user space (the kernel's)";
	if (!f->present && mm_stack_guard_hit(mm, f->addr))
		return "stack overflow (the guard page below its stack)";
	if (f->present && f->exec)
		return "execute of non-executable memory";
	if (f->present && f->write)
		return "write to read-only memory";
	return f->present ? "access not allowed" : "unmapped address";
}

static const char *access_of(const struct user_fault *f)
{
	return f->exec ? "instruction fetch" : f->write ? "write" : "read";
}

/* The user stack's frame records, as far as they look sane. */
static void user_backtrace(struct user_task *t, uintptr_t pc, uintptr_t fp)
{
	printk("user: %s[%d]: Call Trace:\n", t->name, t->id);
	printk("user: %s[%d]:  [<%016lx>] in %s\n", t->name, t->id, (unsigned long)pc, t->path);
	for (int i = 0; i < MAX_USER_FRAMES; i++) {
		uintptr_t rec[2];	/* the caller's frame pointer, the return address */

		if (fp % sizeof(uintptr_t) || copy_from_user(rec, fp, sizeof(rec)) || !rec[1])
			break;
		/* "- 1": the call, not the instruction after it (as kernel backtraces). */
		printk("user: %s[%d]:  [<%016lx>] in %s\n", t->name, t->id,
		       (unsigned long)(rec[1] - 1), t->path);
		if (rec[0] <= fp)
			break;
		fp = rec[0];
	}
}

static void record_fault(struct user_task *t, const struct user_fault *f, uintptr_t ip,
			 uintptr_t sp)
{
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	if (!t->fault.kind) {
		t->fault.kind = f->name;
		t->fault.addr = f->addr;
		t->fault.ip = ip;
		t->fault.sp = sp;
		t->fault.cpu = smp_processor_id();
	}
	spin_unlock_irqrestore(&t->lock, flags);
}

void user_fault(struct trap_frame *tf, const struct user_fault *f)
{
	struct user_thread *ut = current->user;
	struct user_task *t = ut->task;
	uintptr_t ip = arch_frame_pc(tf), sp = arch_frame_sp(tf);

	local_irq_enable();	/* as in a system call: this thread's context */
	if (f->type == UFAULT_PAGE)
		printk("user: %s[%d]: segfault at %016lx ip %016lx sp %016lx in %s: %s (%s; "
		       "thread %d, CPU%d)\n", t->name, t->id, (unsigned long)f->addr,
		       (unsigned long)ip, (unsigned long)sp, t->path,
		       page_fault_cause(t->mm, f), access_of(f), ut->tid, smp_processor_id());
	else
		printk("user: %s[%d]: trap %s ip %016lx sp %016lx in %s (thread %d, CPU%d)\n",
		       t->name, t->id, f->name, (unsigned long)ip, (unsigned long)sp, t->path,
		       ut->tid, smp_processor_id());
	user_backtrace(t, ip, arch_frame_fp(tf));
	printk("user: %s[%d]: killed; its threads stop and its memory is freed\n",
	       t->name, t->id);
	record_fault(t, f, ip, sp);
	user_task_kill(t, SYS_KILLED_FAULT);
	user_thread_exit(0);
}
