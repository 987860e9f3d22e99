/*
 * The memb flavor (urcu-memb.h, urcu.h): readers store their ctr with
 * compiler barriers only, and the writer's SYS_membarrier makes each of
 * those a full barrier on whatever CPU the reader runs.  The orderings
 * (tools/model/armv8/urcu_memb.wmm, with every membarrier() written as
 * the full barrier it puts on the reader's CPU):
 *
 *  - a reader that began before the removal and still holds the old
 *    element: the writer's first membarrier() orders the reader's ctr
 *    store before the writer's look (or the reader's loads after the
 *    removal: then it holds the new one), so the writer waits;
 *  - a reader that reads the new grace-period number: it read it after
 *    the membarrier() that followed the removal, so its loads see it;
 *  - the end: the reader's section is over before its ctr = 0 is seen,
 *    and the last membarrier() orders the section's loads before
 *    whatever the writer frees next;
 *  - the writer going to sleep: waiting before its look, the reader's
 *    ctr = 0 before its look at waiting.
 */
#include "urcu_domain.h"

struct urcu_gp urcu_memb_gp = { .seq = 1 };

/*
 * [urcu_memb_gp_membarrier] pairs [urcu_memb_reader_membarrier]: every
 * CPU that runs one of our threads executes a full barrier before this
 * returns (kernel/user/membarrier.c), so the readers' compiler barriers
 * count as full barriers against what we did before and do after.
 */
static void memb_order_readers(void)
{
	long r = q_membarrier(SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0);

	if (r)
		panic("urcu: SYS_membarrier failed (error %ld): the memb flavor cannot order "
		      "its readers", -r);
}

/* The kernel wants the task registered once, before its first barrier. */
static void memb_setup(void)
{
	if (q_membarrier(SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0))
		panic("urcu: the kernel refused SYS_membarrier's registration");
}

static struct urcu_domain memb = {
	.flavor = URCU_MEMB,
	.gp = &urcu_memb_gp,
	.setup = memb_setup,
	.order_readers = memb_order_readers,
	.register_thread = urcu_memb_register_thread,
	.synchronize = urcu_memb_synchronize_rcu,
};

void urcu_memb_register_thread(void)
{
	urcu_register(&memb, "rcu_register_thread()");
}

void urcu_memb_unregister_thread(void)
{
	urcu_unregister(&memb);
}

void urcu_memb_synchronize_rcu(void)
{
	if (!urcu_waits_for_itself(&memb, "synchronize_rcu()"))
		urcu_synchronize(&memb);
}

void urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head))
{
	urcu_call(&memb, head, func);
}

void urcu_memb_barrier(void)
{
	urcu_barrier(&memb);
}

void urcu_memb_get_stats(struct urcu_stats *s)
{
	urcu_get_stats(&memb, s);
}
