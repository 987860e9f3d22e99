/*
 * The memb flavor of user-space RCU, with liburcu's urcu_memb_ names
 * (urcu.h maps the usual ones onto these; docs/urcu.md).  A reader costs a
 * nesting count and compiler barriers; the writer pays for the full
 * barriers the readers skip, with SYS_membarrier: every CPU that runs one
 * of the task's threads executes one for it (kernel/user/membarrier.c).
 */
#ifndef URCU_URCU_MEMB_H
#define URCU_URCU_MEMB_H

#include "urcu/urcu-common.h"

extern struct urcu_gp urcu_memb_gp;

/*
 * Every thread that reads registers first, and unregisters before it
 * ends (outside any read-side section).
 */
void urcu_memb_register_thread(void);
void urcu_memb_unregister_thread(void);

/*
 * The outermost lock stores the grace-period number it sees; the
 * outermost unlock stores 0.  Between them, compiler barriers only:
 * [urcu_memb_reader_membarrier] pairs [urcu_memb_gp_membarrier]: the
 * writer's SYS_membarrier makes each of these a full barrier on whatever
 * CPU this thread runs (the memb_reader model checks the pair).
 */
static inline void urcu_memb_read_lock(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_MEMB);

	if (unlikely(!r)) {
		urcu_misuse_unregistered(URCU_MEMB, "rcu_read_lock()");
		return;
	}
	if (r->nesting++ == 0) {
		WRITE_ONCE(r->ctr, READ_ONCE(urcu_memb_gp.seq));
		barrier();	/* the section's loads stay after the store */
	}
}

static inline void urcu_memb_read_unlock(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_MEMB);

	if (unlikely(!r || r->nesting <= 0)) {
		urcu_misuse_unbalanced(URCU_MEMB);
		return;
	}
	if (--r->nesting == 0) {
		barrier();	/* the section's loads stay before the store */
		WRITE_ONCE(r->ctr, 0);
		barrier();	/* the store before the look at waiting */
		if (unlikely(READ_ONCE(urcu_memb_gp.waiting)))
			urcu_wake_writer(&urcu_memb_gp);
	}
}

/* Inside a read-side section of this flavor? */
static inline bool urcu_memb_read_ongoing(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_MEMB);

	return r && r->nesting > 0;
}

/* Waits until every read-side section that began before it has ended. */
void urcu_memb_synchronize_rcu(void);
/*
 * func(head) after a grace period, from the flavor's callback thread
 * (which it starts at the first call).  From any thread, registered or
 * not, and from callbacks.
 */
void urcu_memb_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
/* Waits until every callback queued before it has run (liburcu's rcu_barrier()). */
void urcu_memb_barrier(void);
void urcu_memb_get_stats(struct urcu_stats *s);

#endif
