/*
 * sysfuzz: random system calls with random and boundary arguments, in the
 * manner of trinity or syzkaller's random mode, from user mode.
 *
 *	user/sysfuzz [seed=N] [calls=N] [threads=N] [tasks=N]
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
 * Capabilities and IPC (docs/microkernel.md) are fuzzed among several
 * tasks: slot 0 holds an endpoint a server thread answers, slot 1 a
 * notification, slot 2 its own program (of the boot capabilities the
 * kernel starts it with, the only one it keeps: it starts no other
 * program); every fuzzing thread creates, copies, mints, moves,
 * deletes, revokes and inspects capabilities in slots 0..31 (now and
 * then anywhere), and sends, calls, receives and replies on them, with
 * capabilities in the messages; tasks=N more fuzzing tasks start with
 * copies of slots 0..7, so revokes and messages cross tasks.  A call or a
 * receive may block until the end, when the fuzzer deletes everything it
 * holds: every waiter wakes (-EPIPE), and a thread still stuck (two that
 * each wait for the other's reply) is killed through its capability.
 *
 * The drivers' calls (docs/drivers.md) are fuzzed with what the kernel
 * test grants in slots 8..10 -- the console line's interrupt, the UART's
 * registers, the kernel's console -- when it can (DRIVER_SLOTS): binds
 * and acks with any notification and bits, maps at any address, lines
 * and keys of any length; every fuzzing thread may copy, move, delete or
 * revoke those capabilities like any other, and send them to the others.
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
#include "qcap.h"

#define PAGE		4096UL
#define ARENA		(USER_MAP_BASE + (1UL << 36))	/* 64 GiB above the map area */
#define ARENA_PAGES	256
#define MAX_WORKERS	8
#define SELF		"user/sysfuzz"
#define CHILD_ARGS	"exit"
#define CAP_SLOTS	32			/* the slots fuzzed most */
#define SERVED_EP	0			/* the endpoint the server thread answers */
#define FUZZ_NTF	1
#define PROGRAM		2			/* our own program: the only one we may start */
#define SHARED_SLOTS	8			/* what a fuzzing child task gets a copy of */
#define MAX_TASKS	3
#define DRIVER_SLOTS	8			/* 8: interrupt, 9: device, 10: console (tests/user_sysfuzz.c) */

struct fuzzer {
	uint64_t rng;
	unsigned long calls, ok, errors, promises_broken;
	unsigned long per_call[NR_SYSCALLS + 1];	/* the last: unknown numbers */
	uint64_t ns[NR_SYSCALLS + 1];			/* time spent in each */
	int id;
};

static unsigned long total_calls = 20000;
static int nr_workers = 2, nr_tasks, child_fuzzer;
static int spawn_slots[SHARED_SLOTS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
static struct sys_cap_info cap_info[MAX_WORKERS + 1];
static char info_page[64];
static uint64_t seed;
static char text[8];			/* what console_write may print */
static int long_lived[MAX_WORKERS + 3];	/* the fuzzing threads, main, the server: never waited for */
static unsigned long restarts;			/* fuzzing threads stuck in a wait, killed, replaced */
static char child_args[] = CHILD_ARGS;
static struct sys_spawn spawn_reqs[MAX_WORKERS + 1];
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

/* A capability slot: mostly the few fuzzed, now and then any number at all. */
static long cap_slot(struct fuzzer *f)
{
	switch (below(f, 8)) {
	case 0:
		return number(f);
	case 1:
		return SYS_CAP_ANY_SLOT;
	default:
		return (long)below(f, CAP_SLOTS);
	}
}

/* A message's info word: a label, perhaps a capability (moved or not), flags valid or not. */
static long msg_info(struct fuzzer *f)
{
	long info = (long)below(f, 1000);

	if (below(f, 4) == 0)
		info |= SYS_MSG_CAP(below(f, CAP_SLOTS));
	if (below(f, 8) == 0)
		info |= SYS_MSG_MOVE;
	if (below(f, 16) == 0)
		info = number(f);
	return info;
}

/* The drivers' calls: mostly at the granted slots, with our own text and any length. */
static void shape_driver_call(struct fuzzer *f, long nr, long *a)
{
	if (below(f, 2))
		a[0] = DRIVER_SLOTS + (long)below(f, 3);
	switch (nr) {
	case SYS_irq_bind:
		a[1] = below(f, 2) ? FUZZ_NTF : cap_slot(f);
		a[2] = below(f, 4) ? (long)below(f, 256) : number(f);
		break;
	case SYS_dev_map:
		a[1] = below(f, 2) ? 0 : below(f, 2) ? arena_addr(f) : bad_pointer(f);
		break;
	case SYS_console_lines:
	case SYS_console_push:
		a[1] = below(f, 4) ? (long)text : bad_pointer(f);
		a[2] = a[1] == (long)text ? (long)below(f, sizeof(text) + 1) : number(f);
		break;
	}
}

/* A spawn request: mostly our own program, with "exit" (it ends at once). */
static struct sys_spawn *shape_spawn(struct fuzzer *f)
{
	struct sys_spawn *req = &spawn_reqs[f->id % (MAX_WORKERS + 1)];

	req->program = below(f, 4) ? PROGRAM : (int)cap_slot(f);
	req->quota = below(f, 2) ? SYS_SPAWN_MY_QUOTA : (int)cap_slot(f);
	req->task_slot = below(f, 2) ? SYS_RECV_SLOT_NONE : (int)cap_slot(f);
	req->ncaps = (int)below(f, SHARED_SLOTS + 2);	/* (one too many: -SYS_EINVAL) */
	req->caps = below(f, 2) ? spawn_slots : (const int *)bad_pointer(f);
	req->args = below(f, 8) ? child_args : (const char *)bad_pointer(f);
	req->args_len = req->args == child_args ? strlen(child_args) : (unsigned long)number(f);
	return req;
}

static void shape_cap_call(struct fuzzer *f, long nr, long *a)
{
	a[0] = cap_slot(f);
	a[1] = cap_slot(f);
	switch (nr) {
	case SYS_cap_create:
		a[0] = below(f, 8) ? 1 + (long)below(f, SYS_OBJ_TYPES) : number(f);
		a[1] = cap_slot(f);
		a[2] = a[0] == SYS_OBJ_MEMORY ? 1 + (long)below(f, 4) :
		       a[0] == SYS_OBJ_QUOTA && below(f, 2) ? 1 + (long)below(f, 64) :
		       a[0] == SYS_OBJ_THREAD ? q_thread_id() + (long)below(f, 6) - 3 : number(f);
		break;
	case SYS_cap_mint:
		a[2] = below(f, 4) ? (long)below(f, SYS_CAP_ALL + 1) : number(f);
		a[3] = below(f, 2) ? (long)below(f, 100) : number(f);
		break;
	case SYS_cap_inspect:
	case SYS_obj_wait:
		a[1] = below(f, 4) ? (long)(f->id == MAX_WORKERS ? info_page :
					      (char *)&cap_info[f->id]) : bad_pointer(f);
		break;
	case SYS_ipc_send:
	case SYS_ipc_call:
	case SYS_ipc_reply:
	case SYS_ipc_reply_recv:
		a[1] = msg_info(f);
		if (nr == SYS_ipc_send && below(f, 8))
			a[1] |= SYS_MSG_NONBLOCK;	/* (a blocking one may wait until it is killed) */
		if (nr == SYS_ipc_call && below(f, 8))
			a[0] = SERVED_EP;
		if (nr == SYS_ipc_reply)
			a[0] = below(f, 8) ? 0 : number(f);
		break;
	case SYS_ipc_recv:
		a[1] = below(f, 8) ? SYS_RECV_NONBLOCK : number(f);
		break;
	case SYS_ipc_recv_slot:
		a[0] = below(f, 2) ? (long)below(f, CAP_SLOTS) - 2 : number(f);
		break;
	case SYS_ntf_signal:
		a[1] = below(f, 4) ? (long)below(f, 256) : number(f);
		break;
	case SYS_mem_map:
		a[1] = below(f, 2) ? 0 : below(f, 2) ? arena_addr(f) : bad_pointer(f);
		a[2] = (long)below(f, 9);
		break;
	case SYS_irq_bind:
	case SYS_irq_ack:
	case SYS_dev_map:
	case SYS_console_lines:
	case SYS_console_push:
		shape_driver_call(f, nr, a);
		break;
	case SYS_cap_spawn:
		a[0] = below(f, 8) ? bad_pointer(f) : (long)shape_spawn(f);	/* a task is dear */
		break;
	case SYS_program_name:
	case SYS_quota_info:
		a[1] = below(f, 2) ? (long)info_page : bad_pointer(f);
		a[2] = below(f, 2) ? (long)below(f, sizeof(info_page) + 1) : number(f);
		break;
	}
}

/* The type of the capability in slot now (0: none). */
static int slot_type(long slot)
{
	struct sys_cap_info info;

	return q_cap_inspect(slot, &info) ? 0 : info.type;
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
	default:
		if (nr >= SYS_cap_create && nr < NR_SYSCALLS)
			shape_cap_call(f, nr, a);
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
		for (int i = 0; i < MAX_WORKERS + 3; i++)
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
	if ((nr == SYS_cap_inspect || nr == SYS_obj_wait || nr == SYS_program_name ||
	     nr == SYS_quota_info) && !outside_user(a[1]) &&
	    a[1] != (long)&cap_info[f->id % (MAX_WORKERS + 1)] && a[1] != (long)info_page)
		return true;	/* it would write our memory */
	/* Killing, or waiting for, a thread of ours (or ourselves) ends or stalls the run. */
	if ((nr == SYS_obj_kill || nr == SYS_obj_wait) && slot_type(a[0]) != SYS_OBJ_TASK)
		return nr == SYS_obj_kill || slot_type(a[0]) == SYS_OBJ_THREAD;
	if ((nr == SYS_console_lines || nr == SYS_console_push) && !outside_user(a[1]) &&
	    (a[1] != (long)text || (unsigned long)a[2] > sizeof(text)))
		return true;	/* it would print, or type, our memory */
	if (nr == SYS_dev_map && !outside_user(a[1]) && a[1] &&
	    ((unsigned long)a[1] < ARENA || (unsigned long)a[1] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* (only 0, the arena, or outside user space) */
	if (nr == SYS_mem_map && !outside_user(a[1]) &&
	    ((unsigned long)a[1] < ARENA || (unsigned long)a[1] >= ARENA + ARENA_PAGES * PAGE))
		return true;	/* (only 0, the arena, or outside user space) */
	/* A worker must end (others wait for it): nothing that may wait for ever. */
	if (f->id == MAX_WORKERS &&
	    (nr == SYS_ipc_reply_recv || nr == SYS_ipc_call || nr == SYS_ntf_wait ||
	     nr == SYS_obj_wait || (nr == SYS_ipc_recv && !(a[1] & SYS_RECV_NONBLOCK)) ||
	     (nr == SYS_ipc_send && !(a[1] & SYS_MSG_NONBLOCK))))
		return true;
	return false;
}

/* A slot number no capability space has (lib/ipc.h). */
static bool no_slot(long slot)
{
	return slot < 0 || slot >= SYS_CAP_MAX_SLOTS;
}

/* The capability calls' promises (lib/ipc.h), where the arguments alone decide. */
static bool kept_cap_call(long nr, const long *a, long r)
{
	switch (nr) {
	case SYS_cap_create:
		if (a[0] != SYS_OBJ_ENDPOINT && a[0] != SYS_OBJ_NOTIFICATION &&
		    a[0] != SYS_OBJ_MEMORY && a[0] != SYS_OBJ_THREAD && a[0] != SYS_OBJ_QUOTA)
			return r == -SYS_EINVAL;
		return r < 0 || (r < SYS_CAP_MAX_SLOTS && (a[1] == SYS_CAP_ANY_SLOT || r == a[1]));
	case SYS_cap_delete:
	case SYS_cap_revoke:
	case SYS_ntf_poll:
	case SYS_mem_unmap:
	case SYS_irq_ack:
	case SYS_dev_map:
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_irq_bind:
		if (!a[2] || (unsigned long)a[2] > SYS_BADGE_MAX)
			return r == -SYS_EINVAL;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_console_lines:
	case SYS_console_push:
		if (outside_user(a[1]))
			return !a[2] || r == -SYS_EFAULT;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_cap_mint:
		if ((unsigned long)a[2] > SYS_CAP_ALL || (unsigned long)a[3] > SYS_BADGE_MAX)
			return r == -SYS_EINVAL;
		return !no_slot(a[0]) || r == -SYS_EBADF;
	case SYS_cap_inspect:
		return !outside_user(a[1]) || r == -SYS_EFAULT;
	case SYS_ipc_recv:
		if ((unsigned long)a[1] > SYS_RECV_NONBLOCK)
			return r == -SYS_EINVAL;
		return r < 0 ? !no_slot(a[0]) || r == -SYS_EBADF : (unsigned long)r <= SYS_BADGE_MAX;
	case SYS_ntf_signal:
		return (unsigned long)a[1] <= SYS_BADGE_MAX || r == -SYS_EINVAL;
	case SYS_ipc_recv_slot:
		return (a[0] >= SYS_RECV_SLOT_NONE && a[0] < SYS_CAP_MAX_SLOTS) || r == -SYS_EBADF;
	}
	return true;
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
	if (nr == SYS_cap_spawn && outside_user(a[0]))
		return r == -SYS_EFAULT;
	if (nr == SYS_set_tls && a[0] && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_thread_create && outside_user(a[0]))
		return r == -SYS_EINVAL;
	if (nr == SYS_map && (a[2] & SYS_PROT_WRITE) && (a[2] & SYS_PROT_EXEC))
		return r == -SYS_EINVAL;
	return kept_cap_call(nr, a, r);
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
	       nr == SYS_cap_spawn || nr == SYS_set_cpu || nr == SYS_yield || nr == SYS_sleep;
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
	if (nr == SYS_cap_spawn && r > 0)
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

/* The server of SERVED_EP: answers every call (with the caller's first word back). */
static long answer(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	(void)badge;
	(void)arg;
	reply->w[0] = req->w[0];
	return 0;
}

static int server(void *arg)
{
	(void)arg;
	q_serve(SERVED_EP, answer, NULL);	/* until nothing can send to it any more */
	return 0;
}

/*
 * A capability to our thread tid, to kill it through.  The fuzzing may
 * have filled every slot or spent our quota: then the fuzzed slots go,
 * one at a time, until there is room (joining a stuck thread without
 * killing it would wait for ever).
 */
static int thread_cap_to_kill(int tid)
{
	int t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);

	for (int s = CAP_SLOTS - 1; t < 0 && s > PROGRAM; s--) {
		q_cap_delete(s);
		t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);
	}
	return t;
}

/*
 * The end: every capability of this task goes, so every call, send,
 * receive and wait on them ends (-EPIPE, -EBADF); a thread still stuck
 * after that (two threads each holding the other's reply) is killed
 * through a capability to it.
 */
static void delete_every_slot(void)
{
	for (int s = 0; s < SYS_CAP_MAX_SLOTS; s++)
		q_cap_delete(s);
}

static void stop_everything(const int *tids, int n, int server_tid)
{
	struct sys_exit_status st;
	int t;

	stop = 1;
	delete_every_slot();
	q_sleep_ns(100000000);
	for (int i = 0; i < n; i++) {
		t = thread_cap_to_kill(tids[i]);
		if (t >= 0 && q_kill(t) == 0)
			printf("sysfuzz: thread %d still waited at the end: killed\n", tids[i]);
		q_cap_delete(t);
		q_thread_join(tids[i], &st);
	}
	/*
	 * A worker thread (a few calls, never joined) may have copied the
	 * served endpoint into a slot the first pass had already emptied, so
	 * the server may still be reachable: it is ended through a
	 * capability, not waited for.
	 */
	delete_every_slot();
	t = q_thread_cap(SYS_CAP_ANY_SLOT, server_tid);
	if (t >= 0)
		q_kill(t);
	q_cap_delete(t);
	q_thread_join(server_tid, &st);
}

/*
 * Until every fuzzing thread made its share of the calls (or 60 s went
 * by).  IPC has no timeouts: a thread that calls an endpoint nobody
 * serves, or waits for a notification nobody signals, waits for ever.
 * One that made no call for STALL_POLLS polls (100 ms) is killed through a
 * capability to it -- which must wake it, wherever it waits -- and a new
 * thread takes its place and its share.
 */
#define SHARE_WAIT_POLLS	6000
#define SHARE_WAIT_POLL_NS	10000000
#define STALL_POLLS		10

static void restart(int i, int *tids)
{
	struct sys_exit_status st;
	int t = thread_cap_to_kill(tids[i]);

	if (t < 0) {
		printf("sysfuzz: no capability to stuck thread %d (error %d): left to the end\n",
		       tids[i], t);
		return;
	}
	q_kill(t);
	q_cap_delete(t);
	q_thread_join(tids[i], &st);
	restarts++;
	tids[i] = q_thread_create(fuzz_thread, &fuzzers[i], SYS_CPU_ANY);
	long_lived[i] = tids[i];
}

static void supervise(int *tids)
{
	unsigned long share = total_calls / (nr_workers + 1), last[MAX_WORKERS + 1] = { 0 };
	int still[MAX_WORKERS + 1] = { 0 };

	for (int tries = 0; tries < SHARE_WAIT_POLLS; tries++) {
		bool all = true;

		for (int i = 0; i <= nr_workers; i++) {
			unsigned long calls = __atomic_load_n(&fuzzers[i].calls, __ATOMIC_RELAXED);

			if (calls >= share)
				continue;
			all = false;
			if (calls != last[i]) {
				last[i] = calls;
				still[i] = 0;
			} else if (++still[i] == STALL_POLLS) {
				restart(i, tids);
				still[i] = 0;
			}
		}
		if (all)
			return;
		q_sleep_ns(SHARE_WAIT_POLL_NS);
	}
}

/*
 * The kernel started us with its boot capabilities: our own program
 * moves to PROGRAM, among the slots fuzzed and given to the fuzzing
 * tasks; every other program and our quota's capability go, so nothing
 * the fuzzer draws can start another program.
 */
static void keep_only_our_program(void)
{
	int self = q_program(SELF);

	if (self >= 0 && q_cap_move(self, PROGRAM) != PROGRAM)
		printf("sysfuzz: could not keep our program in slot %d\n", PROGRAM);
	q_drop_boot_caps();
}

/* tasks=N: more fuzzing tasks, each with copies of our first slots. */
static int start_children(int *ids)
{
	char cmd[96];
	int n = 0;

	snprintf(cmd, sizeof(cmd), SELF " child seed=%#llx calls=%lu threads=1",
		 (unsigned long long)(seed + 1), total_calls / 2);
	for (int i = 0; i < nr_tasks && i < MAX_TASKS; i++) {
		ids[n] = q_spawn_caps(cmd, spawn_slots, SHARED_SLOTS, SYS_RECV_SLOT_NONE);
		if (ids[n] > 0)
			n++;
	}
	return n;
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
		else if (!strncmp(argv[i], "tasks=", 6))
			nr_tasks = atoi(argv[i] + 6);
		else if (!strcmp(argv[i], "child"))
			child_fuzzer = 1;
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
	printf("\nsysfuzz: %lu calls (%lu succeeded), %lu broken promises, %lu threads stuck "
	       "in a wait killed; seed %#llx\n", calls, ok, broken, restarts,
	       (unsigned long long)seed);
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
	int tids[MAX_WORKERS + 1], children[MAX_TASKS], nr_children = 0, server_tid;
	unsigned long broken = 0;

	if (argc > 1 && !strcmp(argv[1], "exit"))
		return 0;	/* the child SYS_cap_spawn starts */
	parse_args(argc, argv);
	printf("sysfuzz: seed %#llx, %lu calls, %d threads beside the first, %d more task%s "
	       "(replay: user/sysfuzz seed=%#llx calls=%lu threads=%d tasks=%d)\n",
	       (unsigned long long)seed, total_calls, nr_workers, nr_tasks, nr_tasks == 1 ? "" : "s",
	       (unsigned long long)seed, total_calls, nr_workers, nr_tasks);
	memset(text, 'z', sizeof(text));
	for (int i = 0; i <= nr_workers; i++) {
		fuzzers[i].rng = seed + 0x632be59bd9b4e019ULL * (uint64_t)i;
		fuzzers[i].id = i;
	}
	if (!child_fuzzer) {	/* (a child got all three from its parent) */
		keep_only_our_program();
		q_endpoint_create(SERVED_EP);
		q_notification_create(FUZZ_NTF);
		nr_children = start_children(children);
	}
	server_tid = q_thread_create(server, NULL, SYS_CPU_ANY);
	/* Every fuzzer in a thread of its own: main must stay free to unstick them. */
	long_lived[MAX_WORKERS + 1] = q_thread_id();
	long_lived[MAX_WORKERS + 2] = server_tid;
	for (int i = 0; i <= nr_workers; i++) {
		tids[i] = q_thread_create(fuzz_thread, &fuzzers[i], SYS_CPU_ANY);
		long_lived[i] = tids[i];
	}
	supervise(tids);
	for (int i = 0; i < nr_children; i++) {
		struct sys_exit_status cst = { 0 };

		if (q_task_wait(children[i], &cst) || cst.status || cst.killed) {
			printf("sysfuzz: fuzzing task %d ended with status %d, killed %d\n",
			       children[i], cst.status, cst.killed);
			broken++;
		}
	}
	stop_everything(tids, nr_workers + 1, server_tid);
	report();
	for (int i = 0; i <= nr_workers; i++)
		broken += fuzzers[i].promises_broken;
	return broken + fuzzers[MAX_WORKERS].promises_broken ? 1 : 0;	/* (children's included) */
}
