/*
 * The QSBR flavor of user-space RCU (quiescent-state-based reclamation),
 * with liburcu's urcu_qsbr_ names (urcu-qsbr.h maps the usual ones onto
 * these; docs/urcu.md).  A reader costs nothing: rcu_read_lock() and
 * rcu_read_unlock() only count the nesting for the misuse checks
 * (URCU_CHECKING=0: not even that).  Instead each registered thread says,
 * now and then, that it holds no RCU-protected pointer: a quiescent state
 * (rcu_quiescent_state(): a server, between two requests), or for a
 * while (rcu_thread_offline() ... rcu_thread_online(): around anything
 * that blocks).  A grace period waits for every online thread's next
 * quiescent state.  The blocking IPC calls (qcap.h: q_recv(),
 * q_reply_recv(), q_call(), q_send(), q_wait()) put the thread offline
 * while they block: a server waiting for requests holds up nothing.
 */
#ifndef URCU_URCU_QSBR_H
#define URCU_URCU_QSBR_H

#include "urcu/urcu-common.h"

extern struct urcu_gp urcu_qsbr_gp;

/* Registers the calling thread, online; unregister before it ends. */
void urcu_qsbr_register_thread(void);
void urcu_qsbr_unregister_thread(void);

static inline void urcu_qsbr_read_lock(void)
{
	if (URCU_CHECKING) {
		struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

		if (unlikely(!r || !r->ctr))
			urcu_misuse_unregistered(URCU_QSBR, "rcu_read_lock()");
		else
			r->nesting++;
	}
}

static inline void urcu_qsbr_read_unlock(void)
{
	if (URCU_CHECKING) {
		struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

		if (unlikely(!r || r->nesting <= 0))
			urcu_misuse_unbalanced(URCU_QSBR);
		else
			r->nesting--;
	}
}

static inline bool urcu_qsbr_read_ongoing(void)
{
	struct urcu_reader *r = urcu_reader_of(URCU_QSBR);

	return r && r->nesting > 0;
}

/*
 * Quiescent states (user/lib/urcu_qsbr.c): outside every read-side
 * section, each a full barrier on each side of the store that announces
 * it.  rcu_quiescent_state() costs one load and a compare when no grace
 * period began since the last one.
 */
void urcu_qsbr_quiescent_state(void);
void urcu_qsbr_thread_offline(void);
void urcu_qsbr_thread_online(void);

/* As the memb flavor's (urcu-memb.h); a caller that is online goes offline while it waits. */
void urcu_qsbr_synchronize_rcu(void);
void urcu_qsbr_call_rcu(struct rcu_head *head, void (*func)(struct rcu_head *head));
void urcu_qsbr_barrier(void);
void urcu_qsbr_get_stats(struct urcu_stats *s);

/*
 * The blocking IPC calls' part (user/lib/ipc.c): a registered online
 * thread goes offline before it blocks (true), and online again after.
 * Blocking inside a read-side section is a misuse: a blocked thread's
 * pointers are not protected.
 */
bool urcu_qsbr_block_begin(const char *call);
void urcu_qsbr_block_end(void);

#endif
