/*
 * Threads: one pinned to each CPU runs there, has its own errno and
 * newlib state, mallocs beside the others (newlib's locks exclude), and
 * its return value comes back to the thread that joins it; q_thread_exit()
 * ends one early with its status; 60 create/join cycles leave nothing.
 * And the sleeping locks of user/lib/qlock.c under threads on every CPU:
 * a mutex's sections never overlap and every waiter gets in; a
 * reader-writer lock's readers never see a writer's half-done update,
 * and its writers never overlap.  Each holder yields the CPU inside its
 * section now and then, so the others find the lock held and sleep.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "utest.h"
#include "quiescent.h"
#include "qlock.h"

#define MAX_THREADS	64
#define ROUNDS		60


struct job {
	int cpu;
	int ran_on;
	int errno_kept;
};

static int pinned(void *arg)
{
	struct job *j = arg;
	char buf[64];

	j->ran_on = q_cpu();
	errno = 1000 + j->cpu;
	for (int i = 0; i < ROUNDS; i++) {
		char *p = malloc(32 + i);

		if (!p)
			return -1;
		snprintf(buf, sizeof(buf), "cpu %d round %d", j->cpu, i);
		strcpy(p, buf);
		free(p);
		if (i % 50 == 0)
			q_yield();
	}
	j->errno_kept = errno == 1000 + j->cpu;
	return 10 + j->cpu;
}

static int exits_early(void *arg)
{
	(void)arg;
	q_thread_exit(7);
}

static int returns_arg(void *arg)
{
	return (int)(long)arg;
}

/* ---- the sleeping locks ---- */

#define LOCKERS		4
#define LOCK_ROUNDS	400

static struct q_mutex mutex;
static struct q_rwlock rwlock;
static unsigned long counter, pair[2];	/* counter: under mutex; pair: under rwlock, equal */
static int writers_left;

static int mutex_user(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOCK_ROUNDS; i++) {
		q_mutex_lock(&mutex);
		unsigned long c = counter;	/* a read and a write apart: lost if two overlap */

		if (i % 8 == 0)
			q_yield();
		counter = c + 1;
		q_mutex_unlock(&mutex);
	}
	return 0;
}

static int rw_writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < LOCK_ROUNDS / 4; i++) {
		q_write_lock(&rwlock);
		pair[0]++;
		if (i % 4 == 0)
			q_yield();
		pair[1]++;
		q_write_unlock(&rwlock);
	}
	__atomic_fetch_sub(&writers_left, 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * A reader: LOCK_ROUNDS sections, or fewer if the writers are done.  It
 * yields outside its section too: the lock prefers readers, and on one
 * CPU readers that yielded only inside would never let a writer in.
 */
static int rw_reader(void *arg)
{
	int bad = 0;

	(void)arg;
	for (int i = 1; i <= LOCK_ROUNDS && __atomic_load_n(&writers_left, __ATOMIC_ACQUIRE); i++) {
		q_read_lock(&rwlock);
		unsigned long a = pair[0];

		if (i % 8 == 0)
			q_yield();
		bad += a != pair[1];	/* a writer inside with us */
		q_read_unlock(&rwlock);
		if (i % 8 == 4)
			q_yield();
	}
	return bad;
}

/* n threads of fn, on the CPUs in turn: the sum of their exit statuses. */
static int run_threads(int (*fn)(void *), int n)
{
	struct sys_exit_status st;
	int tids[LOCKERS], sum = 0;

	for (int i = 0; i < n; i++) {
		tids[i] = q_thread_create(fn, NULL, i % q_nr_cpus());
		CHECK(tids[i] > 0);
	}
	for (int i = 0; i < n; i++) {
		CHECK(tids[i] > 0 && q_thread_join(tids[i], &st) == 0 && !st.killed);
		sum += st.status;
	}
	return sum;
}

static void sleeping_locks(void)
{
	struct sys_exit_status st;
	int readers[LOCKERS / 2];

	CHECK_EQ(q_mutex_init(&mutex), 0);
	CHECK_EQ(q_rwlock_init(&rwlock), 0);
	CHECK_EQ(run_threads(mutex_user, LOCKERS), 0);
	CHECK_EQ(counter, LOCKERS * LOCK_ROUNDS);
	writers_left = LOCKERS / 2;
	for (int i = 0; i < LOCKERS / 2; i++)
		readers[i] = q_thread_create(rw_reader, NULL, (i + 1) % q_nr_cpus());
	CHECK_EQ(run_threads(rw_writer, LOCKERS / 2), 0);
	for (int i = 0; i < LOCKERS / 2; i++) {
		CHECK(readers[i] > 0 && q_thread_join(readers[i], &st) == 0);
		CHECK_EQ(st.status, 0);		/* no reader saw a writer inside */
	}
	CHECK_EQ(pair[0], LOCKERS / 2 * (LOCK_ROUNDS / 4));
	CHECK_EQ(pair[1], pair[0]);
}

int main(void)
{
	static struct job jobs[MAX_THREADS];
	int tids[MAX_THREADS], n = q_nr_cpus();
	struct sys_exit_status st;

	if (n > MAX_THREADS)
		n = MAX_THREADS;
	for (int i = 0; i < n; i++) {
		jobs[i].cpu = i;
		tids[i] = q_thread_create(pinned, &jobs[i], i);
		CHECK(tids[i] > 0);
	}
	for (int i = 0; i < n; i++) {
		if (tids[i] <= 0)
			continue;
		CHECK(q_thread_join(tids[i], &st) == 0);
		CHECK(st.killed == 0 && st.status == 10 + i);
		CHECK(jobs[i].ran_on == i);
		CHECK(jobs[i].errno_kept);
	}
	tids[0] = q_thread_create(exits_early, NULL, SYS_CPU_ANY);
	CHECK(q_thread_join(tids[0], &st) == 0 && st.status == 7);
	CHECK(q_thread_join(tids[0], &st) == -SYS_ESRCH);	/* collected once */
	for (int i = 0; i < ROUNDS; i++) {
		int tid = q_thread_create(returns_arg, (void *)(long)i, SYS_CPU_ANY);

		CHECK(tid > 0 && q_thread_join(tid, &st) == 0 && st.status == i);
	}
	sleeping_locks();
	printf("threads on %d CPUs\n", n);
	return utest_result("threads");
}
