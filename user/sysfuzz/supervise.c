/*
 * sysfuzz's main thread watches the fuzzing threads: one stuck in a wait
 * is killed and replaced, and at the end every capability goes and every
 * thread is joined.
 */
#include <stdio.h>
#include "sysfuzz.h"

unsigned long restarts;			/* fuzzing threads stuck in a wait, killed, replaced */

/*
 * A capability to our thread tid, to kill it through.  The fuzzing may
 * have filled every slot or spent our quota: then the fuzzed slots go,
 * one at a time, until there is room (joining a stuck thread without
 * killing it would wait for ever).  -SYS_ESRCH: it has exited.
 */
int thread_cap_to_kill(int tid)
{
	int t = q_thread_cap(SYS_CAP_ANY_SLOT, tid);

	for (int s = CAP_SLOTS - 1; t < 0 && t != -SYS_ESRCH && s > PROGRAM; s--) {
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

void stop_everything(const int *tids, int n, int server_tid)
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
	/* Our quota spent by what the fuzzing made: the arena, then the fuzzed slots, go. */
	if (tids[i] == -SYS_ENOMEM)
		q_unmap((void *)ARENA, ARENA_PAGES * PAGE);
	for (int s = CAP_SLOTS - 1; tids[i] == -SYS_ENOMEM && s > PROGRAM; s--) {
		q_cap_delete(s);
		tids[i] = q_thread_create(fuzz_thread, &fuzzers[i], SYS_CPU_ANY);
	}
	if (tids[i] < 0)
		printf("sysfuzz: no new thread for stuck thread %d (error %d)\n", long_lived[i],
		       tids[i]);
	long_lived[i] = tids[i];
}

void supervise(int *tids)
{
	unsigned long share = total_calls / (nr_workers + 1), last[MAX_WORKERS + 1] = { 0 };
	int still[MAX_WORKERS + 1] = { 0 };

	for (int tries = 0; tries < SHARE_WAIT_POLLS; tries++) {
		bool all = true;

		for (int i = 0; i <= nr_workers; i++) {
			unsigned long calls = __atomic_load_n(&fuzzers[i].calls, __ATOMIC_RELAXED);

			if (calls >= share || tids[i] < 0)
				continue;	/* (< 0: no thread took its place, said in restart()) */
			all = false;
			if (calls != last[i] || fuzzers[i].busy) {
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
