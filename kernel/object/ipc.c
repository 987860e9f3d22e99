/*
 * The IPC paths (ipc.h).  Whoever arrives second at an endpoint does the
 * work: it takes the first thread of the other queue (which is then
 * CLAIMED: it cannot leave, even if killed, until we finish), moves the
 * capability the message carries (this may sleep: cap_mutex), copies
 * the message and completes the other thread's wait.
 *
 * A call leaves the receiver holding a one-shot reply capability to the
 * caller (thread_obj.reply_to, numbered by the caller's call_seq: a reply
 * to a call the caller gave up is refused).  A call and a
 * reply-and-receive that make a thread ready on this CPU and then block
 * switch straight to it (schedule_to()): the round trip of a client and
 * a server on one CPU never touches the run queue.
 *
 * Lock order: an endpoint's lock, then a thread object's; cap_mutex is
 * taken with neither held.
 */
#include "object/ipc.h"
#include "object/cap.h"
#include <errno.h>

DEFINE_PER_CPU(struct ipc_stats, ipc_stats);

/*
 * The capability msg_info names, moved or copied from `from` into to's
 * receive slot; returns the info word as to receives it: the slot the
 * capability landed in, or SYS_MSG_CAP_LOST.
 */
static unsigned long transfer_cap(struct cspace *from, unsigned long msg_info,
				  struct thread_obj *to)
{
	unsigned long info = msg_info & ~(SYS_MSG_CAP_MASK | SYS_MSG_FLAGS_MASK);
	int src = SYS_MSG_CAP_SLOT(msg_info), slot = -EACCES;
	long dst = READ_ONCE(to->recv_slot);

	if (src < 0)
		return info;
	if (dst != SYS_RECV_SLOT_NONE)
		slot = cap_transfer(from, src, thread_obj_cspace(to), dst,
				    msg_info & SYS_MSG_MOVE);
	if (slot < 0) {
		ipc_count(caps_lost);
		return info | SYS_MSG_CAP_LOST;
	}
	ipc_count(caps_sent);
	return info | SYS_MSG_CAP(slot);
}

/* Takes the first thread of q (ep->lock held), claimed, with a reference; NULL if none. */
static struct thread_obj *claim_first(struct endpoint *ep, struct list_head *q)
{
	struct thread_obj *th = list_first_entry_or_null(q, struct thread_obj, wait_node);

	if (!th)
		return NULL;
	list_del_init(&th->wait_node);
	spin_lock(&th->lock);
	th->state = IPC_CLAIMED;
	th->queue_lock = NULL;
	spin_unlock(&th->lock);
	kobject_get(&th->base);
	ep->messages++;
	ipc_count(messages);
	return th;
}

/* Queues me on q of ep (ep->lock held) in state st; a call gets its number. */
static void enqueue(struct thread_obj *me, struct endpoint *ep, struct list_head *q,
		    enum ipc_state st)
{
	spin_lock(&me->lock);
	if (st == IPC_SEND_BLOCKED && me->is_call)
		me->call_seq++;
	me->state = st;
	me->queue_lock = &ep->lock;
	list_add_tail(&me->wait_node, q);
	spin_unlock(&me->lock);
}

/* caller's call number seq is answered with -EPIPE: its reply capability went unused. */
static void reply_gone(struct thread_obj *caller, unsigned long seq)
{
	unsigned long flags;

	spin_lock_irqsave(&caller->lock, flags);
	if (caller->state == IPC_REPLY_WAIT && caller->call_seq == seq)
		ipc_complete_locked(caller, -EPIPE, NULL);
	spin_unlock_irqrestore(&caller->lock, flags);
	kobject_put(&caller->base);
}

/*
 * Puts (caller, seq) in me's reply slot (caller NULL: empties it) and
 * drops what was there: its caller wakes with -EPIPE (one reply
 * capability at a time).  The new caller's reference goes with it.
 */
static void swap_reply_cap(struct thread_obj *me, struct thread_obj *caller, unsigned long seq)
{
	struct thread_obj *old;
	unsigned long flags, old_seq;

	spin_lock_irqsave(&me->lock, flags);
	old = me->reply_to;
	old_seq = me->reply_seq;
	me->reply_to = caller;
	me->reply_seq = seq;
	spin_unlock_irqrestore(&me->lock, flags);
	if (old)
		reply_gone(old, old_seq);
}

void ipc_drop_reply(struct thread_obj *me)
{
	swap_reply_cap(me, NULL, 0);
}

/* The sender's half of send and call, with r a receiver we claimed. */
static int deliver(struct thread_obj *me, struct thread_obj *r, unsigned long badge,
		   struct ipc_msg *msg, bool call)
{
	unsigned long info = transfer_cap(thread_obj_cspace(me), msg->info, r);
	struct task_struct *handoff = NULL;
	struct thread_obj *old = NULL;
	unsigned long flags, seq = 0, old_seq = 0;
	int ret;

	if (call) {
		spin_lock_irqsave(&me->lock, flags);
		me->state = IPC_REPLY_WAIT;	/* before r can run and reply */
		seq = ++me->call_seq;
		spin_unlock_irqrestore(&me->lock, flags);
		kobject_get(&me->base);		/* the reply capability's */
	}
	spin_lock_irqsave(&r->lock, flags);
	r->msg = *msg;
	r->msg.info = info;
	r->badge = badge;
	if (call) {
		/* The reply capability is r's before r runs (one at a time: an older one is dropped). */
		old = r->reply_to;
		old_seq = r->reply_seq;
		r->reply_to = me;
		r->reply_seq = seq;
	}
	ipc_complete_locked(r, 0, call ? &handoff : NULL);
	spin_unlock_irqrestore(&r->lock, flags);
	if (old)
		reply_gone(old, old_seq);
	kobject_put(&r->base);
	if (!call)
		return 0;
	if (handoff)
		ipc_count(handoffs);
	ret = ipc_wait(me, handoff);
	if (!ret)
		*msg = me->msg;
	return ret;
}

static int send_common(struct thread_obj *me, struct endpoint *ep, unsigned long badge,
		       struct ipc_msg *msg, bool call, bool nonblock)
{
	struct thread_obj *r;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ep->lock, flags);
	if (!ep->recv_caps) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return -EPIPE;		/* nobody can ever receive it */
	}
	r = claim_first(ep, &ep->receivers);
	if (r) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return deliver(me, r, badge, msg, call);
	}
	if (nonblock) {
		spin_unlock_irqrestore(&ep->lock, flags);
		return -EAGAIN;
	}
	me->msg = *msg;
	me->send_badge = badge;
	me->is_call = call;
	enqueue(me, ep, &ep->senders, IPC_SEND_BLOCKED);
	spin_unlock_irqrestore(&ep->lock, flags);
	ret = ipc_wait(me, NULL);	/* a receiver takes us (and, for a call, replies) */
	if (!ret && call)
		*msg = me->msg;
	return ret;
}

int ipc_send(struct thread_obj *me, struct endpoint *ep, unsigned long badge,
	     const struct ipc_msg *msg, bool nonblock)
{
	struct ipc_msg m = *msg;

	return send_common(me, ep, badge, &m, false, nonblock);
}

int ipc_call(struct thread_obj *me, struct endpoint *ep, unsigned long badge,
	     struct ipc_msg *msg)
{
	ipc_count(calls);
	return send_common(me, ep, badge, msg, true, false);
}

/* The receiver's half, with s a sender we claimed: its message, and its reply capability if a call. */
static long take(struct thread_obj *me, struct thread_obj *s, struct ipc_msg *out)
{
	unsigned long info = transfer_cap(thread_obj_cspace(s), s->msg.info, me);
	unsigned long flags, badge, seq = 0;
	bool call;

	spin_lock_irqsave(&s->lock, flags);
	*out = s->msg;
	out->info = info;
	badge = s->send_badge;
	call = s->is_call;
	if (call) {
		s->state = IPC_REPLY_WAIT;	/* it sleeps on, now for the reply */
		seq = s->call_seq;
	} else {
		ipc_complete_locked(s, 0, NULL);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (call)
		swap_reply_cap(me, s, seq);	/* (our claim's reference becomes its) */
	else
		kobject_put(&s->base);
	return badge;
}

static long recv_common(struct thread_obj *me, struct endpoint *ep, bool nonblock,
			struct ipc_msg *out, struct task_struct *handoff)
{
	struct thread_obj *s;
	unsigned long flags;
	long ret;

	spin_lock_irqsave(&ep->lock, flags);
	s = claim_first(ep, &ep->senders);
	if (s) {
		spin_unlock_irqrestore(&ep->lock, flags);
		ret = take(me, s, out);
	} else if (!ep->send_caps || nonblock) {
		spin_unlock_irqrestore(&ep->lock, flags);
		ret = ep->send_caps ? -EAGAIN : -EPIPE;	/* (-EPIPE: nobody can ever send) */
	} else {
		enqueue(me, ep, &ep->receivers, IPC_RECV_BLOCKED);
		spin_unlock_irqrestore(&ep->lock, flags);
		if (handoff)
			ipc_count(handoffs);
		ret = ipc_wait(me, handoff);	/* a sender comes and fills me->msg */
		if (!ret) {
			*out = me->msg;
			ret = me->badge;
		}
		return ret;
	}
	if (handoff)
		wake_up_process(handoff);	/* we do not block: it goes the ordinary way */
	return ret;
}

long ipc_recv(struct thread_obj *me, struct endpoint *ep, bool nonblock, struct ipc_msg *out)
{
	return recv_common(me, ep, nonblock, out, NULL);
}

/* The reply; *handoff: the caller, if it waits on this CPU (the caller of this switches to it). */
static int reply_common(struct thread_obj *me, const struct ipc_msg *msg,
			struct task_struct **handoff)
{
	struct thread_obj *caller;
	unsigned long flags, seq, info;
	int ret = -ESRCH;

	spin_lock_irqsave(&me->lock, flags);
	caller = me->reply_to;
	seq = me->reply_seq;
	me->reply_to = NULL;		/* one-shot */
	spin_unlock_irqrestore(&me->lock, flags);
	if (!caller)
		return -ESRCH;
	info = transfer_cap(thread_obj_cspace(me), msg->info, caller);
	spin_lock_irqsave(&caller->lock, flags);
	if (caller->state == IPC_REPLY_WAIT && caller->call_seq == seq) {
		caller->msg = *msg;
		caller->msg.info = info;
		caller->badge = 0;
		ipc_complete_locked(caller, 0, handoff);
		ipc_count(replies);
		ret = 0;
	}
	spin_unlock_irqrestore(&caller->lock, flags);
	kobject_put(&caller->base);
	return ret;
}

int ipc_reply(struct thread_obj *me, const struct ipc_msg *msg)
{
	return reply_common(me, msg, NULL);
}

long ipc_reply_recv(struct thread_obj *me, const struct ipc_msg *reply, struct endpoint *ep,
		    struct ipc_msg *out)
{
	struct task_struct *handoff = NULL;

	/* (others set it only while we wait in a receive: not now) */
	if (READ_ONCE(me->reply_to))
		reply_common(me, reply, &handoff);	/* a caller gone meanwhile: the server goes on */
	return recv_common(me, ep, false, out, handoff);
}

void ipc_get_stats(struct ipc_stats *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		const struct ipc_stats *c = &per_cpu(ipc_stats, cpu);

		s->messages += READ_ONCE(c->messages);
		s->calls += READ_ONCE(c->calls);
		s->replies += READ_ONCE(c->replies);
		s->handoffs += READ_ONCE(c->handoffs);
		s->caps_sent += READ_ONCE(c->caps_sent);
		s->caps_lost += READ_ONCE(c->caps_lost);
	}
}
