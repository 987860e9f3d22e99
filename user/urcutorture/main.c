/*
 * urcutorture: a torture test for the user-space RCU library (docs/urcu.md)
 * in the manner of Linux's rcutorture and of the kernel's own
 * (tests/rcutorture.c): one reader per CPU, a writer and fake writers
 * hammer one flavor for duration seconds, and the readers check that no
 * grace period ever ends under their feet.
 *
 *	user/urcutorture [flavor=memb|qsbr] [duration=S] [readers=N]
 *			 [fakewriters=N] [inject=no_wait|qs_in_reader] [mode=window]
 *
 * The writer publishes elements through ut_current, one after another.
 * Each carries a pipe_count: 0 while current, 1 once the writer replaced
 * it (before it waits for anything), one more for each grace period the
 * writer then waits for (synchronize_rcu(), or call_rcu() and its
 * callback), back to the pool at UT_PIPE_LEN (mbtest 0; its gen grows
 * when it is handed out again).  A quarter of the retired elements take
 * the deferred path instead: a call_rcu() chain, each callback one more.
 *
 * The invariant.  A reader that found an element in ut_current found it
 * current (0) or just retired (1).  Every grace period counted after that
 * began after the reader did, so must wait for it: while the reader
 * holds the element its pipe_count goes from 0 to 1 at most.  So with a
 * correct RCU only buckets 0 and 1 of the Reader Pipe histogram fill;
 * bucket 2 and up means a grace period ended under a reader, and bucket
 * UT_PIPE_LEN that the element was freed (perhaps reused) under it.  The
 * Reader Batch histogram counts the writer's grace periods that ended
 * during a section: at most the one running when it began.
 *
 * The readers of the QSBR flavor announce a quiescent state after each
 * pass and now and then go offline for a nap; every reader naps now and
 * then.  inject=no_wait: synchronize_rcu() waits for nothing (the library's
 * fault injection); inject=qs_in_reader (QSBR): readers announce a
 * quiescent state while they hold their element.  Either, on two CPUs or
 * more, must end in FAILURE.  (On one CPU a QSBR grace period that waits
 * for nothing is still safe when readers never block: the test passes.)
 *
 * Ends with the statistics, then "--- End of test: SUCCESS" (exit status
 * 0) or "FAILURE" (1).  tests/urcutorture.c runs it for each flavor.
 * mode=window is the deterministic test of one held reader (window.c).
 */
#include <stdlib.h>
#include <string.h>
#include "urcutorture.h"

/* Only a hung writer takes this long: 16 CPUs under TCG make every grace period slow. */
#define UT_HUNG_WRITER_NS(ncpus)	((120 + 10 * (uint64_t)(ncpus)) * UT_NS_PER_S)
#define UT_TICK_NS		(10 * UT_NS_PER_MS)

const struct ut_ops *ut = &ut_memb_ops;
bool ut_qs_in_reader;
volatile int ut_stop;

static int duration_s = 3, nreaders, nfakers = 2;
static const char *mode = "torture", *inject = "";

static struct ut_reader readers[UT_MAX_READERS];
static struct ut_faker fakers[UT_MAX_FAKERS];
static int reader_tids[UT_MAX_READERS], faker_tids[UT_MAX_FAKERS], writer_tid;
static struct urcu_stats s0, s1;
static uint64_t t0, t_run;

/* key=value arguments; false (and a line saying why) for one it does not know. */
static bool parse(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *v = strchr(argv[i], '=');

		if (!v)
			goto bad;
		*v++ = '\0';
		if (!strcmp(argv[i], "flavor") && !strcmp(v, "memb"))
			ut = &ut_memb_ops;
		else if (!strcmp(argv[i], "flavor") && !strcmp(v, "qsbr"))
			ut = &ut_qsbr_ops;
		else if (!strcmp(argv[i], "duration"))
			duration_s = atoi(v);
		else if (!strcmp(argv[i], "readers"))
			nreaders = atoi(v);
		else if (!strcmp(argv[i], "fakewriters"))
			nfakers = atoi(v);
		else if (!strcmp(argv[i], "inject"))
			inject = v;
		else if (!strcmp(argv[i], "mode") && !strcmp(v, "window"))
			mode = v;
		else
			goto bad;
		continue;
bad:
		printf("urcutorture: %s: not flavor=memb|qsbr, duration=S, readers=N, "
		       "fakewriters=N, inject=no_wait|qs_in_reader, mode=window\n", argv[i]);
		return false;
	}
	return true;
}

/* inject=NAME: the library's (no_wait) or the readers' own (qs_in_reader, QSBR only). */
static bool set_inject(void)
{
	if (!*inject)
		return true;
	if (!strcmp(inject, "qs_in_reader") && ut->quiescent_state) {
		ut_qs_in_reader = true;
		printf("urcutorture: FAULT INJECTION qs_in_reader: readers announce a quiescent "
		       "state while they hold their element\n");
		return true;
	}
	if (urcu_inject(inject) == 0)
		return true;
	printf("urcutorture: inject=%s: not no_wait, or qs_in_reader with flavor=qsbr\n", inject);
	return false;
}

/*
 * Readers first, one per CPU (all on CPU 0 at SMP=1), the writer on the
 * last CPU, then the fake writers.  The host may have two cores for all
 * our CPUs: the more CPUs, the more often a reader naps (a pass in 32 at
 * 2 CPUs or fewer, in 16 at 4, in 8 beyond) and, from 16 CPUs on, the
 * longer (a tick per 8 CPUs), so that the writers still get to run.
 */
static bool start(int ncpus)
{
	uint32_t nap_mask = ncpus <= 2 ? 31 : ncpus <= 4 ? 15 : 7;
	uint64_t nap_ns = (ncpus >= 16 ? ncpus / 8 : 1) * UT_TICK_NS;
	bool ok = true;

	ut->get_stats(&s0);
	for (int i = 0; i < nreaders; i++) {
		readers[i].rng = prandom_seed((uint32_t)ut_now() ^ (0x9e3779b9u * (i + 1)));
		readers[i].cpu = i % ncpus;
		readers[i].nap_mask = nap_mask;
		readers[i].nap_ns = nap_ns;
		reader_tids[i] = q_thread_create(ut_reader, &readers[i], readers[i].cpu);
		ok &= reader_tids[i] > 0;
	}
	writer_tid = q_thread_create(ut_writer, NULL, ncpus - 1);
	ok &= writer_tid > 0;
	for (int i = 0; i < nfakers; i++) {
		fakers[i].rng = prandom_seed((uint32_t)ut_now() ^ (0x85ebca6bu * (i + 1)));
		faker_tids[i] = q_thread_create(ut_fake_writer, &fakers[i], SYS_CPU_ANY);
		ok &= faker_tids[i] > 0;
	}
	t0 = ut_now();
	return ok;
}

/* duration seconds, and at least UT_MIN_UPDATES updates however slow the machine. */
static void wait_for_the_run(int ncpus)
{
	q_sleep_ns(duration_s * UT_NS_PER_S);
	while (READ_ONCE(ut_wstats.updates) < UT_MIN_UPDATES &&
	       ut_now() - t0 < UT_HUNG_WRITER_NS(ncpus))
		q_sleep_ns(10 * UT_NS_PER_MS);
	t_run = ut_now() - t0;
}

static void join(int tid)
{
	struct sys_exit_status st;

	if (tid > 0)
		q_thread_join(tid, &st);
}

static void stop(void)
{
	ut_stop = 1;
	join(writer_tid);
	for (int i = 0; i < nfakers; i++)
		join(faker_tids[i]);
	for (int i = 0; i < nreaders; i++)
		join(reader_tids[i]);
}

static void print_hist(const char *label, unsigned long *h)
{
	printf("urcutorture: %s:", label);
	for (int i = 0; i <= UT_PIPE_LEN; i++)
		printf("%s%lu", i ? " " : "  ", h[i]);
	printf("\n");
}

/* The statistics, then the verdict: every check one a broken RCU can fail. */
static int report(bool started, int pooled)
{
	unsigned long pipe[UT_PIPE_LEN + 1] = { 0 }, batch[UT_PIPE_LEN + 1] = { 0 };
	unsigned long bad_pipe = 0, bad_batch = 0, mbtest = 0, recycled = 0, min_passes = ~0UL;
	unsigned long fake_gps = 0;
	bool fail;

	for (int i = 0; i < nreaders; i++) {
		for (int n = 0; n <= UT_PIPE_LEN; n++) {
			pipe[n] += readers[i].pipe[n];
			batch[n] += readers[i].batch[n];
		}
		mbtest += readers[i].mbtest_errs;
		recycled += readers[i].recycled;
		if (readers[i].passes < min_passes)
			min_passes = readers[i].passes;
	}
	for (int n = 2; n <= UT_PIPE_LEN; n++) {
		bad_pipe += pipe[n];
		bad_batch += batch[n];
	}
	for (int i = 0; i < nfakers; i++)
		fake_gps += fakers[i].sync + fakers[i].call;
	print_hist("Reader Pipe", pipe);
	print_hist("Reader Batch", batch);
	printf("urcutorture: reader passes:");
	for (int i = 0; i < nreaders; i++)
		printf(" %lu", readers[i].passes);
	printf("\nurcutorture: mbtest errors: %lu, freed under a reader: %lu\n", mbtest, recycled);
	printf("urcutorture: updates %lu, frees %d, deferred %lu, writer grace periods %lu "
	       "(sync %lu, call_rcu %lu), rcu_barrier %lu, fake writers' %lu\n",
	       ut_wstats.updates, ut_wstats.frees, ut_wstats.deferred,
	       ut_wstats.gp_sync + ut_wstats.gp_call, ut_wstats.gp_sync, ut_wstats.gp_call,
	       ut_wstats.barriers, fake_gps);
	printf("urcutorture: %s: grace periods %lu, writer sleeps %lu, wakeups %lu, callbacks %lu, "
	       "ran %llu ms\n", ut->name, s1.grace_periods - s0.grace_periods,
	       s1.writer_sleeps - s0.writer_sleeps, s1.wakeups - s0.wakeups,
	       s1.callbacks_invoked - s0.callbacks_invoked,
	       (unsigned long long)(t_run / UT_NS_PER_MS));
	fail = !started || bad_pipe || bad_batch || mbtest || !min_passes ||
	       ut_wstats.updates < UT_MIN_UPDATES || !ut_wstats.frees || pooled != UT_NELEM;
	if (pooled != UT_NELEM)
		printf("urcutorture: %d of %d elements came back to the pool\n", pooled, UT_NELEM);
	printf("urcutorture: --- End of test: %s\n", fail ? "FAILURE" : "SUCCESS");
	return fail;
}

int main(int argc, char **argv)
{
	int ncpus = q_nr_cpus(), pooled;
	bool started;

	if (!parse(argc, argv) || !set_inject())
		return 2;
	if (!strcmp(mode, "window"))
		return ut_window();
	if (nreaders <= 0 || nreaders > UT_MAX_READERS)
		nreaders = ncpus < UT_MAX_READERS ? ncpus : UT_MAX_READERS;
	if (nfakers < 0 || nfakers > UT_MAX_FAKERS)
		nfakers = 2;
	printf("urcutorture: --- Start of test: flavor=%s nreaders=%d nfakewriters=%d "
	       "duration=%d s cpus=%d pipe_len=%d%s%s\n", ut->name, nreaders, nfakers, duration_s,
	       ncpus, UT_PIPE_LEN, *inject ? " inject=" : "", inject);
	ut_pool_init();
	started = start(ncpus);
	wait_for_the_run(ncpus);
	stop();
	pooled = ut_drain();
	ut->get_stats(&s1);
	return report(started, pooled);
}
