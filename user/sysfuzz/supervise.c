/*
 * sysfuzz's main thread watches the fuzzing threads: one stuck in a wait
 * is killed and replaced, and at the end every capability goes and every
 * thread is joined.
 */
#include <stdio.h>
#include "sysfuzz.h"

unsigned long restarts;			/* fuzzing threads stuck in a wait, killed, replaced */

/*
 * A capability to our thread tid in slot.  The fuzzing may have filled
 * every slot or spent our quota: then the fuzzed slots go, one at a
 * time, until there is room.  -SYS_ESRCH: it has exited.
 */
static int thread_cap_to_kill(int slot, int tid)
{
	int t;

	q_cap_delete(slot);
	t = q_thread_cap(slot, tid);
	for (int s = CAP_SLOTS - 1; t < 0 && t != -SYS_ESRCH && s > PROGRAM; s--) {
		q_cap_delete(s);
		t = q_thread_cap(slot, tid);
	}
	return t;
}

/*
 * Kills our thread tid and sees it gone (a capability to it refused: it
 * has exited), so that a join after it returns at once.  0: gone; 1:
 * still there KILL_GONE_S after its kills, a lost wake-up -- the
 * kernel's bug, said here; < 0: never a kill that reached it (the last
 * error: no capability to kill it through).  Never join after 1 or < 0:
 * the join would wait for ever.
 *
 * One kill then a join is not enough, and a join after a kill that
 * missed waits for ever (seen: a run that never ended, main in
 * thread_wait, the thread in a receive nobody answers).  The fuzzing
 * threads run on beside the killer and churn the slots: between its
 * making a capability to tid and the kill, one may delete that slot
 * (the kill gets -EBADF), move it away, or put another capability there
 * (a capability to a neighbouring thread: the kill ends that one
 * instead).  So the capability goes in the killer's own slot (KILL_SLOTS
 * + its number, out of the fuzzed slots' reach; a fuzzing thread's
 * SYS_CAP_ANY_SLOT reaches it only with every slot below it full), the
 * kill is made again, through a fresh capability, while it misses (an
 * error), and the join waits until tid is gone.  Once a kill reached
 * tid, no other: a second kill wakes it again, and would hide the lost
 * wake-up of the first that this check is for.
 */
#define KILL_GONE_S	10	/* generous: a kill is honoured within milliseconds */
#define KILL_POLL_NS	1000000

int kill_until_gone(int tid, int slot, struct fuzzer *f)
{
	uint64_t t0 = q_clock_ns();
	int t, err, killed = 0;

	do {
		t = thread_cap_to_kill(slot, tid);
		if (t == -SYS_ESRCH)
			return 0;
		if (t < 0) {
			err = t;
		} else {
			if (!killed)
				killed = !(err = q_kill(t));
			q_cap_delete(t);
		}
		q_sleep_ns(KILL_POLL_NS);
	} while (q_clock_ns() - t0 < KILL_GONE_S * 1000000000ULL);
	if (!killed)
		return err;
	__atomic_fetch_add(&f->promises_broken, 1, __ATOMIC_RELAXED);
	printf("sysfuzz: BROKEN PROMISE: thread %d still waits %d s after its kill (a lost "
	       "wake-up); seed %#llx\n", tid, KILL_GONE_S, (unsigned long long)seed);
	return 1;
}

/*
 * Main's kill of a fuzzing thread, then its join: 0, or what
 * kill_until_gone() said (the thread then left, never joined).
 */
static int kill_and_join(int tid)
{
	struct sys_exit_status st;
	int r = kill_until_gone(tid, KILL_SLOTS + MAX_WORKERS + 1, &fuzzers[MAX_WORKERS]);

	if (r < 0)
		printf("sysfuzz: no capability to thread %d (error %d): left\n", tid, r);
	if (!r)
		q_thread_join(tid, &st);	/* (gone: at once) */
	return r;
}

/*
 * The end: every capability of this task goes, so every call, send,
 * receive and wait on them ends (-EPIPE, -EBADF); a thread still stuck
 * after that (two threads each holding the other's reply) is killed
 * (kill_and_join()).
 */
static void delete_every_slot(void)
{
	for (int s = 0; s < SYS_CAP_MAX_SLOTS; s++)
		q_cap_delete(s);
}

void stop_everything(const int *tids, int n, int server_tid)
{
	stop = 1;
	delete_every_slot();
	q_sleep_ns(100000000);
	for (int i = 0; i < n; i++)
		if (tids[i] >= 0)
			kill_and_join(tids[i]);
	/*
	 * A worker thread (a few calls, never joined) may have copied the
	 * served endpoint into a slot the first pass had already emptied, so
	 * the server may still be reachable: it is ended through a
	 * capability, not waited for.
	 */
	delete_every_slot();
	kill_and_join(server_tid);
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
	if (kill_and_join(tids[i])) {
		tids[i] = -1;	/* (said in kill_and_join(): left, neither joined nor replaced) */
		return;
	}
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
