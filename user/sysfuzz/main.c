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
 * Peers (peers.c): now and then a fuzzing thread starts, instead of a
 * call, a thread or a task of its own that calls, receives, replies and
 * sends on the shared slots with capabilities in the messages, and kills
 * it at a random moment -- or the peer task exits in the middle of its
 * threads' IPC.  A killed peer must be gone soon, wherever it waited.
 *
 * Its files: draw.c, the pools of values; shape.c, each call's
 * arguments and the calls never made; promises.c, the answers checked;
 * run.c, the fuzzing threads; peers.c, the peers; supervise.c, stuck
 * threads and the end.
 *
 * The seed (printed first) replays the run: each thread's sequence of
 * calls is a function of it (their interleaving is the scheduler's).  It
 * ends with exit status 0 when every answer kept the ABI's promises; the
 * kernel test (tests/user_sysfuzz.c) checks that, and that nothing leaked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysfuzz.h"

unsigned long total_calls = 20000;
int nr_workers = 2;
static int nr_tasks, child_fuzzer;
int spawn_slots[SHARED_SLOTS] = { 0, 1, 2, 3, 4, 5, 6, 7 };
uint64_t seed;
char text[8];			/* what console_write may print */
int long_lived[MAX_WORKERS + 3];	/* the fuzzing threads, main, the server: never waited for */
int fuzzing_tasks[MAX_TASKS];		/* tasks=N's: main alone collects them */
struct sys_exit_status statuses[4];
volatile int stop;
struct fuzzer fuzzers[MAX_WORKERS + 1];

/*
 * The kernel started us with its boot capabilities: our own program
 * moves to PEER_PROGRAM (what peer tasks start from, out of the fuzzed
 * slots' way), and a copy to PROGRAM, among the slots fuzzed and given to
 * the fuzzing tasks; every other program and our quota's capability go,
 * so nothing the fuzzer draws can start another program.
 */
static void keep_only_our_program(void)
{
	int self = q_program(SELF);

	if (self < 0 || q_cap_move(self, PEER_PROGRAM) != PEER_PROGRAM ||
	    q_cap_copy(PEER_PROGRAM, PROGRAM) != PROGRAM)
		printf("sysfuzz: could not keep our program in slots %d and %d\n", PEER_PROGRAM,
		       PROGRAM);
	q_drop_boot_caps();
}

/*
 * tasks=N: more fuzzing tasks, each with copies of our first slots, and
 * each spending from a small share of our quota: it starts in about 560
 * KiB (its program, its first stack, four threads' stacks and kernel
 * stacks, page tables), so the pages, threads, objects and children it is
 * made to ask for run it out of its share in the middle of its calls.
 */
#define CHILD_SHARE_KB	640

static int start_children(int *ids)
{
	char cmd[96];
	int n = 0, share;

	snprintf(cmd, sizeof(cmd), SELF " child seed=%#llx calls=%lu threads=1",
		 (unsigned long long)(seed + 1), total_calls / 2);
	/* (slots 3 up to SHARED_SLOTS: copies of the endpoint and notification, or the spawn fails) */
	for (int s = PROGRAM + 1; s < SHARED_SLOTS; s++)
		q_cap_copy(s % 2 ? FUZZ_NTF : SERVED_EP, s);
	for (int i = 0; i < nr_tasks && i < MAX_TASKS; i++) {
		share = q_quota_create(SYS_CAP_ANY_SLOT, CHILD_SHARE_KB);
		ids[n] = q_spawn_quota(cmd, share, spawn_slots, SHARED_SLOTS, SYS_RECV_SLOT_NONE);
		q_cap_delete(share);	/* (the child's task keeps its quota) */
		if (ids[n] > 0)
			n++;
		else
			printf("sysfuzz: a fuzzing task did not start (error %d)\n", ids[n]);
	}
	return n;
}

/*
 * A fuzzing task spends from a small share (start_children()): the arena,
 * mapped page by page until the share refuses, leaves it HEADROOM_PAGES,
 * so what the fuzzed calls ask for -- pages, threads, objects, children
 * -- runs it out in the middle of their calls (fuzzed unmaps give some
 * back).  How many pages it took.
 */
#define HEADROOM_PAGES	4

static int fill_share(void)
{
	int p = 0;

	while (p < (int)ARENA_PAGES &&
	       !SYS_IS_ERROR(q_map((void *)(ARENA + p * PAGE), PAGE, SYS_PROT_READ | SYS_PROT_WRITE)))
		p++;
	for (int i = 0; i < HEADROOM_PAGES && p; i++)
		q_unmap((void *)(ARENA + --p * PAGE), PAGE);
	return p;
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
	unsigned long calls = 0, ok = 0, broken = 0, refused = 0;

	for (int i = 0; i <= nr_workers; i++) {
		calls += fuzzers[i].calls;
		ok += fuzzers[i].ok;
		broken += fuzzers[i].promises_broken;
		refused += fuzzers[i].refused;
	}
	broken += fuzzers[MAX_WORKERS].promises_broken;
	printf("\nsysfuzz: %lu calls (%lu succeeded, %lu refused for the quota), %lu broken "
	       "promises, %lu threads stuck in a wait killed; seed %#llx\n", calls, ok, refused,
	       broken, restarts, (unsigned long long)seed);
	printf("sysfuzz: %lu peer threads and %lu peer tasks killed or ended in the middle of "
	       "their IPC\n", peer_threads, peer_tasks);
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
	if (argc > 2 && !strcmp(argv[1], "peer"))
		return peer_task_main(argv[2]);		/* a peer task (peers.c) */
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
		memcpy(fuzzing_tasks, children, nr_children * sizeof(int));
	}
	server_tid = q_thread_create(server, NULL, SYS_CPU_ANY);
	/* Every fuzzer in a thread of its own: main must stay free to unstick them. */
	long_lived[MAX_WORKERS + 1] = q_thread_id();
	long_lived[MAX_WORKERS + 2] = server_tid;
	for (int i = 0; i <= nr_workers; i++) {
		tids[i] = q_thread_create(fuzz_thread, &fuzzers[i], SYS_CPU_ANY);
		long_lived[i] = tids[i];
	}
	if (child_fuzzer)
		printf("sysfuzz: fuzzing task %d: its share full but %d pages (%d arena pages "
		       "mapped)\n", q_task_id(), HEADROOM_PAGES, fill_share());
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
