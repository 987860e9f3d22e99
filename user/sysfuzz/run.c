/*
 * sysfuzz's threads (user/sysfuzz/main.c): the fuzzing threads, each a
 * share of the calls; the workers they start; the served endpoint's.
 */
#include <stdio.h>
#include "sysfuzz.h"

/*
 * The calls that wait for other CPUs (a TLB shootdown, a kernel stack's
 * guard page, a move to another CPU, a new task): milliseconds each under
 * TCG, where the rest take microseconds.  Drawn an eighth as often, so a
 * million calls take minutes, not hours.
 */
static bool dear(long nr)
{
	return nr == SYS_map || nr == SYS_unmap || nr == SYS_thread_create ||
	       nr == SYS_cap_spawn || nr == SYS_set_cpu || nr == SYS_yield || nr == SYS_sleep ||
	       nr == SYS_membarrier;
}

static long draw_number(struct fuzzer *f)
{
	long nr;

	do
		nr = below(f, 16) ? (long)below(f, NR_SYSCALLS) : number(f);
	while (dear(nr) && below(f, 8));
	return nr;
}

static void one_call(struct fuzzer *f)
{
	void *own_tls = q_thread_pointer();
	long nr, a[6], r;

	if (f->id < MAX_WORKERS && below(f, PEER_ONE_IN) == 0) {
		peer(f);		/* (a fuzzing thread's: a worker must end soon) */
		f->calls++;
		return;
	}
	nr = draw_number(f);
	shape(f, nr, a);
	if (deadly(f, nr, a))
		return;
	uint64_t t0 = q_clock_ns();

	if (nr == SYS_thread_create && a[0] == (long)worker) {
		/* (malloc's lock held a while: a kill now would leave it held for good) */
		f->busy = 1;
		r = q_thread_create(worker, (void *)a[1], (int)a[3]);	/* its own newlib state */
		f->busy = 0;
	} else
		r = q_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_set_tls && !SYS_IS_ERROR(r))
		q_syscall(SYS_set_tls, (long)own_tls, 0, 0, 0, 0, 0);	/* newlib needs ours */
	if (nr == SYS_cap_spawn && r > 0)
		q_task_wait(r, &statuses[f->id % 4]);
	f->calls++;
	f->per_call[nr >= 0 && nr < NR_SYSCALLS ? nr : NR_SYSCALLS]++;
	f->ns[nr >= 0 && nr < NR_SYSCALLS ? nr : NR_SYSCALLS] += q_clock_ns() - t0;
	if (r == -SYS_ENOMEM)
		f->refused++;
	if (SYS_IS_ERROR(r))
		f->errors++;
	else
		f->ok++;
	if (!kept(nr, a, r)) {
		f->promises_broken++;
		f->busy = 1;	/* (stdio's lock) */
		printf("sysfuzz: BROKEN PROMISE: call %ld (%#lx, %#lx, %#lx, %#lx) returned %ld\n",
		       nr, a[0], a[1], a[2], a[3], r);
		f->busy = 0;
	}
}

/* A thread the fuzzer started: a few calls of its own, then it ends. */
int worker(void *arg)
{
	struct fuzzer f = { .rng = seed ^ (uintptr_t)arg, .id = MAX_WORKERS };

	for (int i = 0; i < 8 && !stop; i++)
		one_call(&f);
	__atomic_fetch_add(&fuzzers[MAX_WORKERS].promises_broken, f.promises_broken,
			   __ATOMIC_RELAXED);
	return 0;
}

int fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	unsigned long share = total_calls / (nr_workers + 1);

	while (f->calls < share && !stop)
		one_call(f);
	return 0;
}

/* The server of SERVED_EP: answers every call (with the caller's first word back). */
static long answer(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)badge;
	(void)arg;
	reply->w[0] = req->w[0];
	return 0;
}

int server(void *arg)
{
	(void)arg;
	q_serve(SERVED_EP, answer, NULL);	/* until nothing can send to it any more */
	return 0;
}
