/*
 * The QSBR flavor (urcu-qsbr.h, urcu-qsbr.h's header comment has a
 * server's loop): readers are free; a registered thread announces
 * quiescent states, with a full barrier on each side of the store of its
 * ctr, and the writer uses plain full barriers.  The orderings
 * (tools/model/armv8/urcu_qsbr.wmm):
 *
 *  - a thread that held the old element announces after its section
 *    ([urcu_qsbr_qs_mb] before the store): the writer that reads the
 *    announcement frees after ([urcu_qsbr_writer_mb] at the end);
 *  - a thread that read the new number reads its next section after
 *    that load ([urcu_qsbr_qs_mb] again), and one that comes online
 *    after its store ([urcu_qsbr_online_mb]): what it reads then sees
 *    the removal, which the writer made before the number
 *    ([urcu_qsbr_writer_mb] at the start) -- or the writer saw it
 *    online with an older number and waits (urcu_qsbr_online.wmm);
 *  - a writer that sleeps for a thread is woken by its announcement
 *    ([urcu_qsbr_qs_after_mb] against the writer's look: urcu_wake.wmm);
 *  - going offline is a quiescent state that lasts: ctr = 0.
 */
#include "urcu_domain.h"
#include "runtime.h"

struct urcu_gp urcu_qsbr_gp = { .seq = 1 };

/* The writer's barrier: at a grace period's start, before a last look, at the end. */
static void qsbr_order_readers(void)
{
	/*
	 * [urcu_qsbr_writer_mb] pairs [urcu_qsbr_qs_mb], [urcu_qsbr_qs_after_mb],
	 * [urcu_qsbr_online_mb]: at the start, the removal before the new
	 * number; before the sleeping writer's last look, waiting before it;
	 * at the end, the readers' announcements before the free.
	 */
	smp_mb();
}

/* From the first use on, the blocking IPC calls put a QSBR thread offline (runtime.h). */
static void qsbr_setup(void)
{
	urcu_block_end_hook = urcu_qsbr_block_end;
	urcu_block_begin_hook = urcu_qsbr_block_begin;
}

static struct urcu_domain qsbr = {
	.flavor = URCU_QSBR,
	.gp = &urcu_qsbr_gp,
	.setup = qsbr_setup,
	.order_readers = qsbr_order_readers,
	.register_thread = urcu_qsbr_register_thread,
	.synchronize = urcu_qsbr_synchronize_rcu,
	.quiescent_state = urcu_qsbr_quiescent_state,
	.block_begin = urcu_qsbr_block_begin,
	.block_end = urcu_qsbr_thread_online,
};

/* The caller's reader if it may announce: registered, online, in no read-side section. */
static struct urcu_reader *announcer(const char *call)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

	if (!r || !r->ctr) {
		urcu_misuse_unregistered(URCU_QSBR, call);
		return NULL;
	}
	if (r->nesting) {
		urcu_misuse(URCU_QSBR, "%s inside rcu_read_lock() (nesting depth %d): the reader's "
			    "pointers would lose their protection", call, r->nesting);
		return NULL;
	}
	return r;
}

/* A quiescent state: ctr (a grace-period number, or 0: offline) after the sections, before the next. */
static void announce(struct urcu_reader *r, unsigned long ctr)
{
	smp_mb();	/* [urcu_qsbr_qs_mb] pairs [urcu_qsbr_writer_mb]: the sections before it, first */
	WRITE_ONCE(r->ctr, ctr);
	/*
	 * [urcu_qsbr_qs_after_mb] pairs [urcu_qsbr_writer_mb]: the store
	 * before our look at waiting: a writer about to sleep for us sees
	 * the store in its last look, or we see it waiting and wake it.
	 */
	smp_mb();
	if (unlikely(READ_ONCE(urcu_qsbr_gp.waiting)))
		urcu_wake_writer(&urcu_qsbr_gp);
}

void urcu_qsbr_quiescent_state(void)
{
	struct urcu_reader *r = announcer("rcu_quiescent_state()");
	unsigned long gp;

	if (!r)
		return;
	gp = READ_ONCE(urcu_qsbr_gp.seq);
	if (gp != r->ctr)	/* (none began since our last one: nothing waits for us) */
		announce(r, gp);
}

void urcu_qsbr_thread_offline(void)
{
	struct urcu_reader *r = announcer("rcu_thread_offline()");

	if (r)
		announce(r, 0);
}

void urcu_qsbr_thread_online(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

	if (!r || r->ctr) {
		if (r)
			urcu_misuse(URCU_QSBR, "rcu_thread_online() in a thread online already");
		else
			urcu_misuse_unregistered(URCU_QSBR, "rcu_thread_online()");
		return;
	}
	WRITE_ONCE(r->ctr, READ_ONCE(urcu_qsbr_gp.seq));
	/*
	 * [urcu_qsbr_online_mb] pairs [urcu_qsbr_writer_mb]: our ctr is
	 * visible before what we read next, so a writer that looks after
	 * our store waits for us, and one that looked before it removed
	 * before looking: we read its removal (store buffering).
	 */
	smp_mb();
}

void urcu_qsbr_register_thread(void)
{
	if (urcu_register(&qsbr, "rcu_register_thread()"))
		urcu_qsbr_thread_online();
}

void urcu_qsbr_unregister_thread(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

	if (r && r->ctr && !r->nesting)
		announce(r, 0);		/* offline first: nobody waits for it again */
	urcu_unregister(&qsbr);
}

/* Blocking: offline for the while, if online and in no section (then true). */
bool urcu_qsbr_block_begin(const char *call)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

	if (!r || !r->ctr)
		return false;	/* not a QSBR reader, or offline already */
	if (r->nesting) {
		urcu_misuse(URCU_QSBR, "%s blocks inside rcu_read_lock() (nesting depth %d): a "
			    "blocked thread is offline, and its pointers unprotected", call, r->nesting);
		return false;
	}
	announce(r, 0);
	return true;
}

void urcu_qsbr_block_end(void)
{
	urcu_qsbr_thread_online();
}

void urcu_qsbr_synchronize_rcu(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);
	bool online = r && r->ctr;

	if (urcu_waits_for_itself(&qsbr, "synchronize_rcu()"))
		return;
	if (online)
		announce(r, 0);		/* offline while we wait: we hold nothing */
	urcu_synchronize(&qsbr);
	if (online)
		urcu_qsbr_thread_online();
}

void urcu_qsbr_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	urcu_call(&qsbr, head, func);
}

void urcu_qsbr_barrier(void)
{
	urcu_barrier(&qsbr);
}

void urcu_qsbr_get_stats(struct urcu_stats *s)
{
	urcu_get_stats(&qsbr, s);
}
