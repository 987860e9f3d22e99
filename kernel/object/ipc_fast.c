/*
 * IPC's fast path (kernel/user/fastpath.c): its object halves,
 * ipc_call_fast() and ipc_reply_recv_fast() (ipc.h), entered with
 * interrupts off and never sleeping, for a message that carries no
 * capability (so cap_mutex, the only sleep of the general way, is never
 * taken).  They keep the general way's references -- every row of "Who
 * holds whom": the queue's on a queued thread and the thread's on its
 * endpoint, the reply capability's on its caller -- and its states, but
 * not its lock round trips: with the partner known to wait here and
 * nothing to make ready, a claim and its delivery are one step under the
 * endpoint's lock (no CLAIMED in between: nothing between them can
 * sleep) and without the receiver's lock (thread.h, "A partner on its
 * CPU"), and a reply-and-receive takes its reply capability and queues
 * itself without its own lock (thread.h, "Its own wait").  A round
 * trip takes three IPC lock round trips: the endpoint's in each half and
 * the caller's for its reply (docs/benchmarks.md).
 *
 * The general way -- send, call, receive, reply, reply-and-receive, every
 * message that carries a capability, and whatever the fast path declines
 * -- is in ipc.c; the helpers both files share are in ipc_internal.h.
 */
#include "object/ipc_internal.h"
#include "user/thread.h"

bool ipc_call_fast(struct thread_obj *me, struct endpoint *ep, unsigned long badge,
		   const struct ipc_msg *msg, struct task_struct **next)
{
	struct thread_obj *r, *old;
	unsigned long seq, old_seq;

	spin_lock(&ep->lock);
	r = ep->recv_caps ? first_of(&ep->receivers) : NULL;
	if (!r || !ipc_waits_here(r)) {
		spin_unlock(&ep->lock);
		return false;
	}
	ipc_mark_blocked();	/* r may run as soon as we switch */
	seq = reply_wait_begin(me);
	/*
	 * Without r->lock: r is blocked on this CPU, which runs us with
	 * interrupts off, so r cannot run -- not even woken by a kill --
	 * before we switch (the kernel is not preemptible), and no other
	 * partner reaches it once it is off the queue (ep->lock held).  Its
	 * lock would keep out nobody (thread.h, "A partner on its CPU").
	 */
	ipc_dequeue_locked(r);		/* (the queue's reference on r is now ours) */
	ep->messages++;
	ipc_count(messages);
	ipc_count(calls);
	r->msg = *msg;
	r->badge = badge;
	old = set_reply_cap_locked(r, me, seq, r->recv_grant, &old_seq);
	*next = NULL;
	ipc_complete_locked(r, 0, next);
	spin_unlock(&ep->lock);
	if (old)
		reply_gone(old, old_seq);
	kobject_put(&r->base);
	return true;
}

bool ipc_reply_recv_fast(struct thread_obj *me, const struct ipc_msg *reply,
			 struct endpoint *ep, bool grant, struct task_struct **next)
{
	struct thread_obj *caller;
	unsigned long seq, unused;

	spin_lock(&ep->lock);
	if (!list_empty(&ep->senders) || !ep->send_caps) {
		spin_unlock(&ep->lock);
		return false;	/* a message to take, or none can come: the general way */
	}
	ipc_mark_blocked();	/* before a sender can find us */
	/* (our reply slot and our wait without me->lock: thread.h, "Its own wait") */
	caller = me->reply_to;	/* (its reference is ours now) */
	seq = me->reply_seq;
	set_reply_cap_locked(me, NULL, 0, false, &unused);	/* one-shot */
	me->recv_grant = grant;
	ipc_enqueue_locked(me, &ep->base, &ep->lock, &ep->receivers, IPC_RECV_BLOCKED);
	spin_unlock(&ep->lock);
	/*
	 * The reply, after we are queued: a sender that finds us meanwhile
	 * fills our message and our reply slot, both free (the general wait
	 * then finds us done).  A caller gone (-ESRCH) is no error here.
	 */
	*next = NULL;
	if (!caller)
		return true;
	spin_lock(&caller->lock);
	if (reply_awaited_locked(caller, seq))
		deliver_reply_locked(caller, reply, reply->info, next);
	spin_unlock(&caller->lock);
	kobject_put(&caller->base);
	if (*next && fatal_signal_pending(*next)) {
		wake_up_process(*next);		/* killed: it leaves the ordinary way */
		*next = NULL;
	}
	return true;
}
