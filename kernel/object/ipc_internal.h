/*
 * What the IPC paths' two files share, and nothing outside them uses:
 * ipc.c (the general way) and ipc_fast.c (the fast path's object
 * halves) both look at an endpoint's queues, hand out and take back a
 * thread's one-shot reply capability, and end a caller's wait with its
 * reply.  The short helpers are inline here, so each path inlines them
 * as it did when both were one file; reply_gone(), which takes a lock
 * and drops a reference, stays out of line in ipc.c.
 *
 * Lock order as in ipc.c: cap_mutex, then an endpoint's lock, then a
 * thread object's.
 */
#ifndef KERNEL_OBJECT_IPC_INTERNAL_H
#define KERNEL_OBJECT_IPC_INTERNAL_H

#include "object/ipc.h"
#include "object/holds.h"

/* The first thread of q, looked at (ep->lock held), not taken. */
static inline struct thread_obj *first_of(struct list_head *q)
{
	return list_first_entry_or_null(q, struct thread_obj, wait_node);
}

/*
 * Does caller (caller->lock held) still wait for the reply to its wait
 * seq?  (READ_ONCE(): caller may be beginning a new wait without its
 * lock, thread.h's "Its own wait"; no mix of old and new matches seq.)
 */
static inline bool reply_awaited_locked(struct thread_obj *caller, unsigned long seq)
{
	return READ_ONCE(caller->state) == IPC_REPLY_WAIT && READ_ONCE(caller->wait_seq) == seq;
}

/*
 * me, running, begins its wait for the reply to the call it is making
 * (the receiver claimed, not yet given the reply capability): the wait's
 * number, for that capability, which takes a reference on me.  Without
 * me->lock (thread.h, "Its own wait"): the receiver learns of the wait
 * only from the capability, set under its lock after these stores.
 * The caller is marked blocked already, or ipc_wait() marks it.
 */
static inline unsigned long reply_wait_begin(struct thread_obj *me)
{
	unsigned long seq = me->wait_seq + 1;

	WRITE_ONCE(me->wait_seq, seq);
	WRITE_ONCE(me->state, IPC_REPLY_WAIT);	/* before the receiver can run and reply */
	kobject_get(&me->base);			/* the reply capability's */
	return seq;
}

/* A reply capability dropped unused (ipc.c): its caller, if still waiting, gets -EPIPE. */
void reply_gone(struct thread_obj *caller, unsigned long seq);

/*
 * Puts (caller, seq, grant) in me's reply slot, me->lock held -- or me
 * running and not queued, when only me writes there (thread.h) -- (caller
 * NULL: empties it); returns what was there, for reply_gone() once the
 * lock is dropped (one reply capability at a time).  The new caller's
 * reference goes with it.
 */
static inline struct thread_obj *set_reply_cap_locked(struct thread_obj *me,
						      struct thread_obj *caller,
						      unsigned long seq, bool grant,
						      unsigned long *old_seq)
{
	struct thread_obj *old = me->reply_to;

	*old_seq = me->reply_seq;
	if (old)
		holds_unlink(me, "reply_to", old);
	me->reply_to = caller;
	me->reply_seq = seq;
	me->reply_grant = grant;
	if (caller)
		holds_link(HOLD_OBJECT, me, "reply_to", HOLD_OBJECT, caller);
	return old;
}

/* The reply, msg with info, ends caller's wait (caller->lock held); *handoff as ipc_complete_locked(). */
static inline void deliver_reply_locked(struct thread_obj *caller, const struct ipc_msg *msg,
					unsigned long info, struct task_struct **handoff)
{
	caller->msg = *msg;
	caller->msg.info = info;
	caller->badge = 0;
	ipc_complete_locked(caller, 0, handoff);
	ipc_count(replies);
}

#endif
