/*
 * urcutorture's readers (main.c tells the whole story, and why only
 * buckets 0 and 1 of their histograms may be non-zero): one thread per
 * CPU, each registered with the flavor, each pass one read-side section
 * on ut_current.
 */
#include "urcutorture.h"

/* Has anything happened to p that a correct RCU forbids while we hold it? */
static bool saw_gp_end(struct ut_elem *p, unsigned long gen0, unsigned long b0)
{
	return torture_life_ended_under(&p->life, gen0) || READ_ONCE(ut_writer_gps) - b0 >= 2;
}

/*
 * Holds p until a grace period visibly ended under it, or until end (ns).
 * inject=qs_in_reader: announcing a quiescent state all the while, as a
 * reader that forgot its pointer was still in use would (it lets go,
 * announces, takes it again): the first grace period that begins then
 * ends under it.
 */
static void hold(struct ut_elem *p, unsigned long gen0, unsigned long b0, uint64_t end)
{
	while (ut_now() < end && !saw_gp_end(p, gen0, b0)) {
		if (ut_qs_in_reader) {
			ut->read_unlock();
			ut->quiescent_state();
			ut->read_lock();
		}
	}
}

/*
 * How long a reader holds its element: mostly a few microseconds, one
 * pass in eight 1-2 ms.  A long hold ends early only once the element
 * visibly went through a grace period under it (or two of the writer's
 * ended), which a correct RCU never lets happen: then every long hold
 * lasts its time, and with a broken one it lasts until the writer made
 * the progress that convicts it, however the host runs our CPUs.
 */
static bool delay(struct ut_reader *rd, struct ut_elem *p, unsigned long gen0, unsigned long b0)
{
	uint32_t r = prandom_u32(&rd->rng);

	if ((r & 7) == 0) {
		hold(p, gen0, b0, ut_now() + (1000 + (r >> 8) % 1000) * 1000ULL);
		return true;
	}
	for (uint32_t spin = (r >> 8) % 2000; spin; spin--)
		__asm__ __volatile__("" ::: "memory");
	return false;
}

/* One read-side section on ut_current, counted in rd; false if nothing was published. */
static bool pass(struct ut_reader *rd)
{
	struct torture_look look;
	unsigned long b0, b1;
	struct ut_elem *p;
	bool recycled;
	int pc;

	ut->read_lock();
	b0 = READ_ONCE(ut_writer_gps);
	p = rcu_dereference(ut_current);
	if (!p) {
		ut->read_unlock();
		rd->nulls++;
		return false;
	}
	torture_look_begin(&p->life, &look);
	if (!look.mbtest_ok)
		rd->mbtest_errs++;
	if (delay(rd, p, look.gen, b0))
		rd->long_holds++;
	pc = torture_look_end(&p->life, &look, &recycled);	/* (UT_PIPE_LEN: freed under us) */
	b1 = READ_ONCE(ut_writer_gps);
	ut->read_unlock();

	rd->recycled += recycled;
	rd->pipe[pc]++;
	rd->batch[b1 - b0 < UT_PIPE_LEN ? b1 - b0 : UT_PIPE_LEN]++;
	rd->passes++;
	return true;
}

/*
 * Between passes: QSBR's quiescent state; now and then a nap (QSBR: offline
 * for it), so the other threads of this CPU run and offline is tested too.
 */
static void rest(struct ut_reader *rd)
{
	if (ut->quiescent_state)
		ut->quiescent_state();
	if ((prandom_u32(&rd->rng) & rd->nap_mask) != 0)
		return;
	if (ut->offline)
		ut->offline();
	q_sleep_ns(rd->nap_ns);
	if (ut->online)
		ut->online();
}

int ut_reader(void *arg)
{
	struct ut_reader *rd = arg;

	ut->register_thread();
	while (!ut_stop) {
		if (pass(rd))
			rest(rd);
		else
			q_yield();
	}
	ut->unregister_thread();
	return 0;
}
