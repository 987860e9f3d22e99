/*
 * Threads for programs (quiescent.h).  Each created thread gets a block
 * (struct user_tls) with its own newlib state, which its thread pointer
 * points at; the block outlives the thread until q_thread_join(), which
 * frees it (a thread cannot free the memory its own state lives in).
 */
#include <stdio.h>
#include <stdlib.h>
#include "runtime.h"
#include "tls.h"

void __thread_entry(void);	/* crt0.S: aligns the stack, calls __thread_main */
void __thread_main(struct user_tls *t) __attribute__((noreturn));

static struct user_tls *unjoined;	/* created threads not yet joined, under list_lock */
static struct __lock list_lock;

struct user_tls *current_tls(void)
{
	return arch_thread_pointer();
}

void *q_thread_pointer(void)
{
	return current_tls();
}

static void list_add(struct user_tls *t)
{
	__retarget_lock_acquire(&list_lock);
	t->next = unjoined;
	unjoined = t;
	__retarget_lock_release(&list_lock);
}

static struct user_tls *list_take(int tid)
{
	struct user_tls **p, *t = NULL;

	__retarget_lock_acquire(&list_lock);
	for (p = &unjoined; *p; p = &(*p)->next) {
		if ((*p)->tid == tid) {
			t = *p;
			*p = t->next;
			break;
		}
	}
	__retarget_lock_release(&list_lock);
	return t;
}

void (*urcu_thread_exit_hook)(void);

void q_thread_exit(int status)
{
	if (urcu_thread_exit_hook)
		urcu_thread_exit_hook();	/* (not registered with user-space RCU: runtime.h) */
	/*
	 * This thread's own stdout buffer -- if it ever used stdio: a first
	 * fflush() would set stdio up for it under newlib's global locks,
	 * and a thread killed there (a kill lands anywhere) would leave them
	 * held for every other thread of the task (lock.c).
	 */
	if (current_tls()->reent->__sdidinit)
		fflush(stdout);
	q_syscall(SYS_thread_exit, status, 0, 0, 0, 0, 0);
	for (;;)
		;
}

void __thread_main(struct user_tls *t)
{
	/* (the kernel set our thread pointer to t before the first instruction) */
	t->tid = q_thread_id();
	q_thread_exit(t->fn(t->arg));
}

int q_thread_create(int (*fn)(void *), void *arg, int cpu)
{
	struct user_tls *t = calloc(1, sizeof(*t));
	long tid;

	if (!t)
		return -SYS_ENOMEM;
	t->head.self = &t->head;
	t->reent = &t->own_reent;
	_REENT_INIT_PTR(t->reent);
	t->fn = fn;
	t->arg = arg;
	t->tid = -1;
	tid = q_syscall(SYS_thread_create, (long)__thread_entry, (long)t, (long)t, cpu, 0, 0);
	if (SYS_IS_ERROR(tid)) {
		free(t);
		return tid;
	}
	t->tid = tid;	/* (the thread writes the same value: it may run first) */
	list_add(t);
	return tid;
}

int q_thread_join(int tid, struct sys_exit_status *st)
{
	long r = q_syscall(SYS_thread_wait, tid, (long)st, 0, 0, 0, 0);
	struct user_tls *t;

	if (SYS_IS_ERROR(r))
		return r;
	t = list_take(tid);
	if (t) {
		_reclaim_reent(t->reent);	/* its stdio buffers, dtoa's scratch */
		free(t);
	}
	return 0;
}
