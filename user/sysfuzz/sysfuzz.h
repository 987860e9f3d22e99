/*
 * What the files of sysfuzz (user/sysfuzz/main.c) share: the slots it
 * fuzzes, each fuzzing thread's state, and each file's entry points.
 */
#ifndef SYSFUZZ_H
#define SYSFUZZ_H

#include <stdbool.h>
#include <stdint.h>
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
/* The next three: slots the fuzzed calls never draw (draw.c: 0..64, 255, 256; else 1 in 4 million) */
#define PEER_PROGRAM	100			/* our program, out of the fuzzed slots' way (PROGRAM: a copy) */
#define PEER_TASK_SLOTS	110			/* + a fuzzing thread's number: its peer task's capability */
#define KILL_SLOTS	120			/* + a fuzzing thread's number (main: MAX_WORKERS + 1): its kills */
#define PEER_ONE_IN	256			/* one draw in this many starts a peer instead of a call */

struct fuzzer {
	uint64_t rng;
	unsigned long calls, ok, errors, promises_broken;
	unsigned long refused;		/* -SYS_ENOMEM: the quota spent in the middle of a call */
	unsigned long per_call[NR_SYSCALLS + 1];	/* the last: unknown numbers */
	uint64_t ns[NR_SYSCALLS + 1];			/* time spent in each */
	int id;
	volatile int busy;	/* with a peer, or in the runtime (a lock of newlib's held): not stuck (supervise.c) */
};

/* main.c: the run's settings, and what the fuzzed calls may point at or watch */
extern unsigned long total_calls;
extern int nr_workers;
extern uint64_t seed;
extern struct fuzzer fuzzers[MAX_WORKERS + 1];	/* the last: what workers found */
extern int spawn_slots[SHARED_SLOTS];
extern char text[8];
extern int long_lived[MAX_WORKERS + 3];
extern int fuzzing_tasks[MAX_TASKS];
extern struct sys_exit_status statuses[4];
extern volatile int stop;

/* draw.c: the pools arguments are drawn from */
uint64_t next(struct fuzzer *f);
uint64_t below(struct fuzzer *f, uint64_t n);
long bad_pointer(struct fuzzer *f);
bool outside_user(long p);
long number(struct fuzzer *f);
long arena_addr(struct fuzzer *f);
long arena_len(struct fuzzer *f);
long cap_slot(struct fuzzer *f);
long msg_info(struct fuzzer *f);

/* shape.c: one call's arguments, and the calls never made */
void shape(struct fuzzer *f, long nr, long *a);
bool deadly(const struct fuzzer *f, long nr, const long *a);

/* promises.c: what the ABI promises of an answer */
bool kept(long nr, const long *a, long r);

/* run.c: the threads that make the calls, and the served endpoint's */
int fuzz_thread(void *arg);
int worker(void *arg);
int server(void *arg);

/* peers.c: threads and tasks in the middle of IPC, killed or ending */
extern unsigned long peer_threads, peer_tasks;
void peer(struct fuzzer *f);
int peer_task_main(const char *seed_word);

/* supervise.c: stuck threads replaced, and the end */
extern unsigned long restarts;
int kill_until_gone(int tid, int slot, struct fuzzer *f);
void supervise(int *tids);
void stop_everything(const int *tids, int n, int server_tid);

#endif
