/*
 * sysfuzz: random system calls with random and boundary arguments, in the
 * manner of trinity or syzkaller's random mode, from user mode.
 *
 *	user/sysfuzz [seed=N] [calls=N] [threads=N]
 *
 * Every call draws its number (mostly real ones, some unknown) and each
 * argument from a pool of values that find bugs: 0, -1, small numbers,
 * page multiples, the edges of user space, kernel addresses, non-canonical
 * ones, pointers into its own buffers, pages it just unmapped, lengths
 * that wrap.  A few calls the fuzzer cannot survive are tamed: it never
 * exits or aborts but at the end, maps and unmaps only in an arena of its
 * own (or outside user space), starts threads only through the runtime
 * (q_thread_create()) at a worker of its own, and puts its thread pointer
 * back.  What the kernel answers is checked where
 * the ABI promises something: a pointer outside user space must give
 * -EFAULT or -EINVAL, never success; an unknown number -ENOSYS.
 *
 * The seed (printed first) replays the run: each thread's sequence of
 * calls is a function of it (their interleaving is the scheduler's).  It
 * ends with exit status 0 when every answer kept the ABI's promises; the
 * kernel test (tests/user_sysfuzz.c) checks that, and that nothing leaked.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "quiescent.h"

#define PAGE		4096UL
#define ARENA		(USER_MAP_BASE + (1UL << 36))	/* 64 GiB above the map area */
#define ARENA_PAGES	256
#define MAX_WORKERS	8
#define CHILD		"user/sysfuzz exit"

struct fuzzer {
	uint64_t rng;
	unsigned long calls, ok, errors, promises_broken;
	unsigned long per_call[NR_SYSCALLS + 1];	/* the last: unknown numbers */
	uint64_t ns[NR_SYSCALLS + 1];			/* time spent in each */
	int id;
};

static unsigned long total_calls = 20000;
static int nr_workers = 2;
static uint64_t seed;
static char text[8];			/* what console_write may print */
static int long_lived[MAX_WORKERS + 1];	/* the fuzzing threads: never waited for */
static char child_cmd[] = CHILD;
static struct sys_exit_status statuses[4];
static volatile int stop;

/* splitmix64: each thread its own stream, from the seed. */
static uint64_t next(struct fuzzer *f)
{
	uint64_t z = (f->rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint64_t below(struct fuzzer *f, uint64_t n)
{
	return n ? next(f) % n : 0;
}

/* A pointer the kernel must refuse: outside user space, or in a page just unmapped. */
static long bad_pointer(struct fuzzer *f)
{
	static const long bad[] = {
		0, 8, 0x1000, 0x100000, 0x7fffff, (long)USER_BASE - 8, (long)USER_TOP,
		(long)USER_TOP + 4096, 0x0000800000000000L, (long)0xffff800000000000UL,
		(long)0xffffffff80000000UL, -4096L, -1L,
	};

	return bad[below(f, sizeof(bad) / sizeof(bad[0]))];
}

static bool outside_user(long p)
{
	return (unsigned long)p < USER_BASE || (unsigned long)p >= USER_TOP;
}

static long number(struct fuzzer *f)
{
	static const long edge[] = {
		0, 1, 2, 3, 7, 8, 15, 16, 63, 64, 255, 256, 4095, 4096, 4097, 65536,
		0x7fffffffL, 0x80000000L, 0xffffffffL, 0x100000000L, -1, -2, -4095, -4096,
		(long)0x7fffffffffffffffUL, (long)0x8000000000000000UL,
	};

	switch (below(f, 3)) {
	case 0:
		return edge[below(f, sizeof(edge) / sizeof(edge[0]))];
	case 1:
		return (long)below(f, 64);
	default:
		return (long)next(f);
	}
}

/* An address in the arena, page-aligned or not, and a length. */
static long arena_addr(struct fuzzer *f)
{
	long a = ARENA + below(f, ARENA_PAGES) * PAGE;

	return below(f, 8) ? a : a + (long)below(f, PAGE);
}

static long arena_len(struct fuzzer *f)
{
	return below(f, 8) ? (long)((1 + below(f, 8)) * PAGE) : number(f);
}

static int worker(void *arg);
static struct fuzzer fuzzers[MAX_WORKERS + 1];	/* the last: what workers found */

/* Arguments for call nr: sometimes all random, mostly shaped to reach past the checks. */
static void shape(struct fuzzer *f, long nr, long *a)
{
	for (int i = 0; i < 6; i++)
		a[i] = below(f, 2) ? number(f) : bad_pointer(f);
	if (below(f, 16) == 0)
		return;		/* as drawn, for the calls that stay harmless */
	switch (nr) {
	case SYS_console_write:
		a[0] = below(f, 8) ? bad_pointer(f) : (long)text;	/* (keeps the console readable) */
		a[1] = a[0] == (long)text ? (long)below(f, sizeof(text) + 1) : number(f);
		break;
	case SYS_sleep:
		/* Mostly 0 (returns at once): any other sleep lasts a tick. */
		a[0] = below(f, 32) ? 0 : (long)below(f, 1000000);
		break;
	case SYS_map:
		a[0] = below(f, 4) ? arena_addr(f) : below(f, 2) ? 0 : bad_pointer(f);
		a[1] = arena_len(f);
		a[2] = (long)below(f, 9);		/* every prot, some refused */
		break;
	case SYS_unmap:
		a[0] = below(f, 4) ? arena_addr(f) : bad_pointer(f);
		a[1] = arena_len(f);
		break;
	case SYS_thread_create:
		a[0] = below(f, 2) ? (long)worker : bad_pointer(f);	/* worker: one_call() */
		a[1] = (long)next(f);
		a[2] = 0;
		a[3] = below(f, 4) ? -1 : number(f);
		break;
	case SYS_thread_wait:
	case SYS_task_wait:
		a[0] = below(f, 2) ? q_thread_id() + (long)below(f, 8) - 4 : number(f);
		a[1] = below(f, 2) ? (long)&statuses[f->id % 4] : bad_pointer(f);
		break;
	case SYS_set_cpu:
		a[0] = below(f, 2) ? (long)below(f, q_nr_cpus() + 2) - 1 : number(f);
		break;
	case SYS_set_tls:
		a[0] = below(f, 2) ? bad_pointer(f) : number(f);
		break;
	case SYS_spawn:
		a[0] = below(f, 8) ? bad_pointer(f) : (long)child_cmd;	/* a task is dear */
		a[1] = a[0] == (long)child_cmd ? (long)strlen(child_cmd) : number(f);
		break;
	}
}

/*
 * The calls the fuzzer would not survive, or that would make the run
 * endless: a wait for a thread that may never end (a fuzzing thread, or
 * from a worker: two workers waiting for each other would wait for ever).
 */
static bool deadly(const struct fuzzer *f, long nr, const long *a)
{
	if (nr == SYS_thread_wait) {
		if (f->id >= MAX_WORKERS)
			return true;
		for (int i = 0; i <= MAX_WORKERS; i++)
			if (long_lived[i] && a[0] == long_lived[i])
				return true;
	}
	if (nr == SYS_exit || nr == SYS_thread_exit || nr == SYS_abort)
		return true;
	if (nr == SYS_sleep && (unsigned long)a[0] > 1000000)
		return true;
	if ((nr == SYS_map || nr == SYS_unmap) && !outside_user(a[0]) &&
	    ((unsigned long)a[0] < ARENA || (unsigned long)a[0] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* it could unmap our own text or stack */
	if (nr == SYS_thread_create && a[0] != (long)worker && !outside_user(a[0]))
		return true;	/* a thread at a random address faults and kills us */
	if (nr == SYS_console_write && a[0] == (long)text && (unsigned long)a[1] > sizeof(text))
		return true;	/* it would print what lies past the text */
	if ((nr == SYS_thread_wait || nr == SYS_task_wait) && !outside_user(a[1]) &&
	    a[1] != (long)&statuses[0] && a[1] != (long)&statuses[1] &&
	    a[1] != (long)&statuses[2] && a[1] != (long)&statuses[3])
		return true;	/* it would write our memory */
	return false;
}

/* What the ABI promises, where it promises something; false if the kernel broke it. */
static bool kept(long nr, const long *a, long r)
{
	if (nr < 0 || nr >= NR_SYSCALLS)
		return r == -SYS_ENOSYS;
	if (nr == SYS_console_write && outside_user(a[0]) && a[1])
		return r == -SYS_EFAULT;
	if ((nr == SYS_thread_wait || nr == SYS_task_wait) && outside_user(a[1]))
		return r == -SYS_EFAULT;
	if (nr == SYS_spawn && outside_user(a[0]) && a[1] > 0 && a[1] < 256)
		return r == -SYS_EFAULT;
	if (nr == SYS_set_tls && a[0] && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_thread_create && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_map && (a[2] & SYS_PROT_WRITE) && (a[2] & SYS_PROT_EXEC))
		return r == -SYS_EINVAL;
	return true;
}

/*
 * The calls that wait for other CPUs (a TLB shootdown, a kernel stack's
 * guard page, a move to another CPU, a new task): milliseconds each under
 * TCG, where the rest take microseconds.  Drawn an eighth as often, so a
 * million calls take minutes, not hours.
 */
static bool dear(long nr)
{
	return nr == SYS_map || nr == SYS_unmap || nr == SYS_thread_create ||
	       nr == SYS_spawn || nr == SYS_set_cpu || nr == SYS_yield || nr == SYS_sleep;
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

	nr = draw_number(f);
	shape(f, nr, a);
	if (deadly(f, nr, a))
		return;
	uint64_t t0 = q_clock_ns();

	if (nr == SYS_thread_create && a[0] == (long)worker)
		r = q_thread_create(worker, (void *)a[1], (int)a[3]);	/* its own newlib state */
	else
		r = q_syscall(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	if (nr == SYS_set_tls && !SYS_IS_ERROR(r))
		q_syscall(SYS_set_tls, (long)own_tls, 0, 0, 0, 0, 0);	/* newlib needs ours */
	if (nr == SYS_spawn && r > 0)
		q_task_wait(r, &statuses[f->id % 4]);
	f->calls++;
	f->per_call[nr >= 0 && nr < NR_SYSCALLS ? nr : NR_SYSCALLS]++;
	f->ns[nr >= 0 && nr < NR_SYSCALLS ? nr : NR_SYSCALLS] += q_clock_ns() - t0;
	if (SYS_IS_ERROR(r))
		f->errors++;
	else
		f->ok++;
	if (!kept(nr, a, r)) {
		f->promises_broken++;
		printf("sysfuzz: BROKEN PROMISE: call %ld (%#lx, %#lx, %#lx, %#lx) returned %ld\n",
		       nr, a[0], a[1], a[2], a[3], r);
	}
}

/* A thread the fuzzer started: a few calls of its own, then it ends. */
static int worker(void *arg)
{
	struct fuzzer f = { .rng = seed ^ (uintptr_t)arg, .id = MAX_WORKERS };

	for (int i = 0; i < 8 && !stop; i++)
		one_call(&f);
	__atomic_fetch_add(&fuzzers[MAX_WORKERS].promises_broken, f.promises_broken,
			   __ATOMIC_RELAXED);
	return 0;
}

static int fuzz_thread(void *arg)
{
	struct fuzzer *f = arg;
	unsigned long share = total_calls / (nr_workers + 1);

	while (f->calls < share && !stop)
		one_call(f);
	return 0;
}

static void parse_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "seed=", 5))
			seed = strtoull(argv[i] + 5, NULL, 0);
		else if (!strncmp(argv[i], "calls=", 6))
			total_calls = strtoul(argv[i] + 6, NULL, 0);
		else if (!strncmp(argv[i], "threads=", 8))
			nr_workers = atoi(argv[i] + 8);
	}
	if (nr_workers < 0 || nr_workers > MAX_WORKERS)
		nr_workers = 2;
	if (!seed)
		seed = q_clock_ns() ^ ((uint64_t)q_task_id() << 32);
}

static void report(void)
{
	unsigned long calls = 0, ok = 0, broken = 0;

	for (int i = 0; i <= nr_workers; i++) {
		calls += fuzzers[i].calls;
		ok += fuzzers[i].ok;
		broken += fuzzers[i].promises_broken;
	}
	broken += fuzzers[MAX_WORKERS].promises_broken;
	printf("\nsysfuzz: %lu calls (%lu succeeded), %lu broken promises; seed %#llx\n", calls, ok,
	       broken, (unsigned long long)seed);
	printf("sysfuzz: per call:");
	for (int nr = 0; nr <= NR_SYSCALLS; nr++) {
		unsigned long n = 0;

		for (int i = 0; i <= nr_workers; i++)
			n += fuzzers[i].per_call[nr];
		printf(" %lu", n);
	}
	printf(" (the last: unknown numbers)\n");
	printf("sysfuzz: microseconds in each:");
	for (int nr = 0; nr <= NR_SYSCALLS; nr++) {
		uint64_t ns = 0;

		for (int i = 0; i <= nr_workers; i++)
			ns += fuzzers[i].ns[nr];
		printf(" %llu", (unsigned long long)(ns / 1000));
	}
	printf("\n");
}

int main(int argc, char **argv)
{
	int tids[MAX_WORKERS];
	unsigned long broken = 0;

	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;	/* the child SYS_spawn starts */
	parse_args(argc, argv);
	printf("sysfuzz: seed %#llx, %lu calls, %d threads beside the first "
	       "(replay: user/sysfuzz seed=%#llx calls=%lu threads=%d)\n",
	       (unsigned long long)seed, total_calls, nr_workers, (unsigned long long)seed,
	       total_calls, nr_workers);
	memset(text, 'z', sizeof(text));
	for (int i = 0; i <= nr_workers; i++) {
		fuzzers[i].rng = seed + 0x632be59bd9b4e019ULL * (uint64_t)i;
		fuzzers[i].id = i;
	}
	long_lived[0] = q_thread_id();
	for (int i = 0; i < nr_workers; i++) {
		tids[i] = q_thread_create(fuzz_thread, &fuzzers[i + 1], SYS_CPU_ANY);
		long_lived[i + 1] = tids[i];
	}
	fuzz_thread(&fuzzers[0]);
	for (int i = 0; i < nr_workers; i++)
		if (tids[i] > 0)
			q_thread_join(tids[i], &statuses[0]);
	stop = 1;
	report();
	for (int i = 0; i <= nr_workers; i++)
		broken += fuzzers[i].promises_broken;
	return broken + fuzzers[MAX_WORKERS].promises_broken ? 1 : 0;
}
