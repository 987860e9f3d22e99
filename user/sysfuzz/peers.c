/*
 * sysfuzz's peers (user/sysfuzz/main.c): threads and tasks a fuzzing
 * thread starts to take part in IPC -- calls, receives, replies and
 * sends on the shared slots, with capabilities in the messages -- and
 * then kills at a random moment, or that end on their own in the middle
 * of it (a peer task's exit() kills its other threads wherever they
 * wait).  Whatever state the kill finds them in (queued, claimed by a
 * partner, waiting for a reply), they must go: a killed peer thread
 * still there 10 s later is a broken promise (a lost wake-up), said
 * with its seed (kill_until_gone(), supervise.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sysfuzz.h"

unsigned long peer_threads, peer_tasks;

/* A few IPC operations on the shared slots, drawn from seed: what a peer does. */
static void peer_ipc(uint64_t seed)
{
	struct fuzzer f = { .rng = seed };
	int n = 1 + (int)below(&f, 3);

	q_recv_slot(below(&f, 4) ? SYS_CAP_ANY_SLOT : (int)below(&f, CAP_SLOTS));
	for (int i = 0; i < n; i++) {
		int ep = below(&f, 2) ? SERVED_EP : (int)below(&f, SHARED_SLOTS);
		struct q_msg m = q_msg((unsigned int)below(&f, 100), next(&f), 0, 0, 0);

		if (below(&f, 2))
			q_msg_give_cap(&m, (int)below(&f, SHARED_SLOTS));
		if (below(&f, 8) == 0)
			m.info |= SYS_MSG_MOVE;
		switch (below(&f, 5)) {
		case 0:
		case 1:
			q_call(ep, &m);
			break;
		case 2:
			q_recv(ep, &m);
			break;
		case 3:
			q_reply_recv(ep, &m);
			break;
		default:
			q_send(ep, &m);
			break;
		}
	}
}

static int peer_thread_main(void *arg)
{
	peer_ipc((uint64_t)(uintptr_t)arg);
	return 0;
}

static void yield_some(struct fuzzer *f)
{
	for (uint64_t i = below(f, 32); i > 0; i--)
		q_yield();
}

/*
 * A peer thread: its IPC, killed after a while (or ended before).  It
 * must be gone within 10 s of the kill (kill_until_gone(), which says
 * it if not: a lost wake-up, and then it is left, not joined).
 */
static void peer_thread(struct fuzzer *f)
{
	int tid = q_thread_create(peer_thread_main, (void *)(uintptr_t)next(f), SYS_CPU_ANY);
	struct sys_exit_status st;

	if (tid < 0)
		return;
	yield_some(f);
	if (!kill_until_gone(tid, KILL_SLOTS + f->id, f))
		q_thread_join(tid, &st);	/* (gone: at once) */
	peer_threads++;
}

/* Which of our first slots hold a capability now (the fuzzing empties them): into caps. */
static int shared_now(int *caps)
{
	struct sys_cap_info info;
	int n = 0;

	for (int s = 0; s < SHARED_SLOTS; s++)
		if (!q_cap_inspect(s, &info))
			caps[n++] = s;
	return n;
}

/*
 * A peer task: a copy of us ("peer SEED") with what our first slots hold,
 * whose threads do their IPC and whose main thread exits in the middle of
 * it; killed first, now and then.
 */
static void peer_task(struct fuzzer *f)
{
	int caps[SHARED_SLOTS];
	char args[32];
	struct sys_spawn req = {
		.program = PEER_PROGRAM, .quota = SYS_SPAWN_MY_QUOTA,
		.task_slot = PEER_TASK_SLOTS + f->id, .caps = caps, .args = args,
	};
	struct sys_exit_status st;
	int id;

	req.ncaps = shared_now(caps);

	snprintf(args, sizeof(args), "peer %#llx", (unsigned long long)next(f));
	req.args_len = strlen(args);
	q_cap_delete(req.task_slot);
	id = q_cap_spawn(&req);	/* (our program, unless the fuzzing reached its slot) */
	if (id < 0)
		return;
	yield_some(f);
	if (below(f, 2))
		q_kill(req.task_slot);
	q_wait_for(req.task_slot, &st);
	q_cap_delete(req.task_slot);
	q_task_wait(id, &st);
	peer_tasks++;
}

void peer(struct fuzzer *f)
{
	f->busy = 1;
	if (below(f, 4))
		peer_thread(f);
	else
		peer_task(f);
	f->busy = 0;
}

/* "user/sysfuzz peer SEED": a peer task's main. */
int peer_task_main(const char *seed_word)
{
	uint64_t s = strtoull(seed_word, NULL, 0);
	struct fuzzer f = { .rng = s };

	for (int i = 0; i < 2; i++)
		q_thread_create(peer_thread_main, (void *)(uintptr_t)next(&f), SYS_CPU_ANY);
	yield_some(&f);
	q_syscall(SYS_exit, 0, 0, 0, 0, 0, 0);	/* its threads go wherever they wait */
	return 0;
}
