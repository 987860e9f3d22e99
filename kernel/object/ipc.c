/*
 * The IPC paths (ipc.h).  Whoever arrives second at an endpoint does the
 * work: it takes the first thread of the other queue (which is then
 * CLAIMED: it cannot leave, even if killed, until we finish), moves the
 * capability the message carries, copies the message and completes the
 * other thread's wait.
 *
 * No IPC state spans a sleep (thread.h; docs/microkernel.md, "Rule 3").
 * Moving a capability may sleep (cap_mutex; a quota that waits for the
 * frees in flight; a capability table that grows), so it is made ready
 * before the partner is claimed: cap_mutex is taken, the partner at the
 * head of the queue is looked at (not taken), the capability checked,
 * the slot it will land in reserved and its node allocated; then the
 * queue is locked again and, if that same wait (wait_seq) is still at its
 * head, the partner is claimed and the capability committed -- which
 * never sleeps -- before cap_mutex goes.  If someone else came first, the
 * ready capability is undone and we look again.  The same for a reply
 * that carries one: made ready, then the caller claimed only if it still
 * waits for that reply, so a capability is never moved to a caller that
 * gave up (-ESRCH leaves it where it was).
 *
 * A call leaves the receiver holding a one-shot reply capability to the
 * caller (thread_obj.reply_to, numbered by the caller's wait_seq: a reply
 * to a call the caller gave up is refused), which may carry a capability
 * only if the endpoint capability the call was received through had the
 * grant right.  A call and a reply-and-receive that make a thread ready
 * on this CPU and then block switch straight to it (schedule_to()): the
 * round trip of a client and a server on one CPU never touches the run
 * queue.  The thread switched to is woken the ordinary way first if
 * anything between its completion and the switch could sleep.
 *
 * This is the general way.  The fast path's object halves,
 * ipc_call_fast() and ipc_reply_recv_fast(), are in ipc_fast.c; the
 * helpers both files share are in ipc_internal.h.
 *
 * Lock order: cap_mutex, then an endpoint's lock, then a thread object's.
 */
#include "object/ipc_internal.h"
#include "object/cap.h"
#include <errno.h>

DEFINE_PER_CPU(struct ipc_stats, ipc_stats);

static bool carries_cap(unsigned long info)
{
	return SYS_MSG_CAP_SLOT(info) >= 0;
}

/*
 * A message's capability on its way: made ready (cap_mutex held, nothing
 * claimed, may sleep), then committed once the partner is claimed (never
 * sleeps), or undone.  `peer` and `seq` name the wait it was made ready
 * for.
 */
struct cap_send {
	struct cap_xfer x;
	struct thread_obj *peer;	/* with a reference; NULL: nothing ready */
	unsigned long seq;
	bool locked;			/* we hold cap_mutex */
};

static void cap_send_lock(struct cap_send *cs)
{
	mutex_lock(&cap_mutex);
	cs->locked = true;
}

static void cap_send_undo(struct cap_send *cs)
{
	if (!cs->peer)
		return;
	cap_transfer_cancel(&cs->x);
	kobject_put(&cs->peer->base);
	cs->peer = NULL;
}

/* Nothing is sent after all: what was made ready goes, and cap_mutex. */
static void cap_send_end(struct cap_send *cs)
{
	cap_send_undo(cs);
	if (cs->locked)
		mutex_unlock(&cap_mutex);
	cs->locked = false;
}

/*
 * The sender's own start, for a message from `from` that carries the
 * capability `info` names: cap_mutex taken and 0, or the sender's error
 * -- the slot empty, the capability busy (cap_transfer_check()) -- with
 * nothing taken.  Checked before anything is sent or claimed; what
 * changes after (the source deleted while the message waits in a queue)
 * makes the capability lost instead.
 */
static int cap_send_start(struct cap_send *cs, struct cspace *from, unsigned long info)
{
	int err;

	cap_send_lock(cs);
	err = cap_transfer_check(from, SYS_MSG_CAP_SLOT(info), info & SYS_MSG_MOVE);
	if (err)
		cap_send_end(cs);
	return err;
}

/*
 * Makes the capability `info` names ready to go from `from` to peer's
 * receive slot in `to` (dst), for peer's wait seq; cap_mutex held, peer
 * not claimed (we hold a reference).  May sleep.
 */
static void cap_send_prepare(struct cap_send *cs, struct thread_obj *peer, unsigned long seq,
			     struct cspace *from, unsigned long info, struct cspace *to, long dst)
{
	cap_send_undo(cs);
	cs->peer = peer;
	cs->seq = seq;
	if (dst == SYS_RECV_SLOT_NONE)
		cs->x = (struct cap_xfer){ .slot = -EACCES };	/* it takes none: lost */
	else
		cap_transfer_prepare(&cs->x, from, SYS_MSG_CAP_SLOT(info), to, dst,
				     info & SYS_MSG_MOVE);
}

/* Was it made ready for th's wait as it is now?  (the queue's lock held) */
static bool cap_send_ready_for(struct cap_send *cs, struct thread_obj *th)
{
	return cs->peer == th && cs->seq == READ_ONCE(th->wait_seq);
}

/*
 * th is claimed: the capability goes (never sleeps), then cap_mutex.
 * Returns the info word as th receives it: the slot it landed in, or
 * SYS_MSG_CAP_LOST (none free, none wanted, the source gone).
 */
static unsigned long cap_send_commit(struct cap_send *cs, unsigned long info,
				     struct thread_obj *th)
{
	unsigned long out = info & ~(SYS_MSG_CAP_MASK | SYS_MSG_FLAGS_MASK);
	int slot = -EACCES;

	if (cs->locked && cap_send_ready_for(cs, th)) {
		slot = cap_transfer_commit(&cs->x);
		kobject_put(&cs->peer->base);
		cs->peer = NULL;
	}
	cap_send_end(cs);
	if (!carries_cap(info))
		return out;
	if (slot < 0) {
		ipc_count(caps_lost);
		return out | SYS_MSG_CAP_LOST;
	}
	ipc_count(caps_sent);
	return out | SYS_MSG_CAP(slot);
}

/* The endpoint epr names (the checking build proves a reference-free epr still valid). */
static struct endpoint *ep_of(const struct cap_ref *epr)
{
	return to_endpoint(cap_ref_obj(epr));
}

/*
 * Before a sleep on cap_mutex that the endpoint must outlive: a late
 * reference on it, if the lookup took none.  -EBADF: its last reference
 * went meanwhile (its last capability was deleted): the call fails as if
 * its lookup came after the delete.
 */
static int hold_ep(struct cap_ref *epr)
{
	if (CONFIG_RCU_CHECKING && cap_injected(CAP_INJECT_NOREF_SLEEP))
		return 0;	/* sleeps with the reference-free pointer, on purpose */
	return cap_ref_hold(epr);
}

/* Takes th, the first of its queue (ep->lock held): claimed, with the queue's reference. */
static void claim(struct endpoint *ep, struct thread_obj *th)
{
	spin_lock(&th->lock);
	ipc_dequeue_locked(th);
	th->state = IPC_CLAIMED;
	spin_unlock(&th->lock);
	ep->messages++;
	ipc_count(messages);
}

static void claimed_hook(struct thread_obj *th)
{
	if (CONFIG_RCU_CHECKING && ipc_claim_hook)
		ipc_claim_hook(th);
}

/*
 * peer, the first of its queue, is to receive from or send to us a
 * message that carries a capability: we look at it (a reference, its
 * wait's number) and make the capability ready, with ep->lock released.
 * The caller holds cap_mutex and locks the queue again to see whether
 * that wait is still first.
 */
static void look_at(struct cap_send *cs, struct endpoint *ep, unsigned long *flags,
		    struct thread_obj *peer, struct cspace *from, unsigned long info,
		    struct cspace *to, long dst)
{
	unsigned long seq = peer->wait_seq;

	kobject_get(&peer->base);
	spin_unlock_irqrestore(&ep->lock, *flags);
	cap_send_prepare(cs, peer, seq, from, info, to, dst);
}

/* Queues me on q of ep (ep->lock held) in state st. */
static void enqueue(struct thread_obj *me, struct endpoint *ep, struct list_head *q,
		    enum ipc_state st)
{
	ipc_enqueue_locked(me, &ep->base, &ep->lock, q, st);
}

/* caller's wait number seq is answered with -EPIPE: its reply capability went unused. */
void reply_gone(struct thread_obj *caller, unsigned long seq)
{
	unsigned long flags;

	spin_lock_irqsave(&caller->lock, flags);
	if (reply_awaited_locked(caller, seq))
		ipc_complete_locked(caller, -EPIPE, NULL);
	spin_unlock_irqrestore(&caller->lock, flags);
	kobject_put(&caller->base);
}

static void swap_reply_cap(struct thread_obj *me, struct thread_obj *caller, unsigned long seq,
			   bool grant)
{
	struct thread_obj *old;
	unsigned long flags, old_seq;

	spin_lock_irqsave(&me->lock, flags);
	old = set_reply_cap_locked(me, caller, seq, grant, &old_seq);
	spin_unlock_irqrestore(&me->lock, flags);
	if (old)
		reply_gone(old, old_seq);
}

void ipc_drop_reply(struct thread_obj *me)
{
	swap_reply_cap(me, NULL, 0, false);
}

/*
 * The sender's half of send and call up to its wait, with r a receiver we
 * claimed; info: as r receives it.  A call leaves me in REPLY_WAIT and
 * *handoff set if r waits on this CPU (the caller switches to it).
 */
static void deliver_msg(struct thread_obj *me, struct thread_obj *r, unsigned long badge,
			const struct ipc_msg *msg, unsigned long info, bool call,
			struct task_struct **handoff)
{
	struct thread_obj *old = NULL;
	unsigned long flags, seq = 0, old_seq = 0;

	if (call)
		seq = reply_wait_begin(me);
	spin_lock_irqsave(&r->lock, flags);
	r->msg = *msg;
	r->msg.info = info;
	r->badge = badge;
	if (call)	/* the reply capability is r's before r runs */
		old = set_reply_cap_locked(r, me, seq, r->recv_grant, &old_seq);
	ipc_complete_locked(r, 0, call ? handoff : NULL);
	spin_unlock_irqrestore(&r->lock, flags);
	if (old)
		reply_gone(old, old_seq);
	kobject_put(&r->base);		/* our claim's */
}

/* The sender's half of send and call, with r a receiver we claimed; info: as r receives it. */
static int deliver(struct thread_obj *me, struct thread_obj *r, unsigned long badge,
		   struct ipc_msg *msg, unsigned long info, bool call)
{
	struct task_struct *handoff = NULL;
	int ret;

	deliver_msg(me, r, badge, msg, info, call, &handoff);
	if (!call)
		return 0;
	if (handoff)
		ipc_count(handoffs);
	ret = ipc_wait(me, handoff);	/* (nothing between the handoff and here sleeps) */
	if (!ret)
		*msg = me->msg;
	return ret;
}

static int send_common(struct thread_obj *me, struct cap_ref *epr, unsigned long badge,
		       struct ipc_msg *msg, bool call, bool nonblock)
{
	struct cap_send cs = { 0 };
	struct endpoint *ep;
	struct thread_obj *r;
	unsigned long flags;
	int ret;

	if (carries_cap(msg->info)) {
		ret = hold_ep(epr);	/* cap_mutex may sleep: a reference */
		if (!ret)	/* before anything is claimed: it may sleep */
			ret = cap_send_start(&cs, thread_obj_cspace(me), msg->info);
		if (ret)
			return ret;
	}
	for (;;) {
		ep = ep_of(epr);
		spin_lock_irqsave(&ep->lock, flags);
		r = ep->recv_caps ? first_of(&ep->receivers) : NULL;
		if (!r)
			break;
		if (!cs.locked || cap_send_ready_for(&cs, r)) {
			claim(ep, r);
			spin_unlock_irqrestore(&ep->lock, flags);
			return deliver(me, r, badge, msg, cap_send_commit(&cs, msg->info, r), call);
		}
		look_at(&cs, ep, &flags, r, thread_obj_cspace(me), msg->info, thread_obj_cspace(r),
			READ_ONCE(r->recv_slot));
	}
	if (!ep->recv_caps || nonblock) {
		ret = ep->recv_caps ? -EAGAIN : -EPIPE;	/* (-EPIPE: nobody can ever receive it) */
		spin_unlock_irqrestore(&ep->lock, flags);
		cap_send_end(&cs);
		return ret;
	}
	me->msg = *msg;
	me->send_badge = badge;
	me->is_call = call;
	enqueue(me, ep, &ep->senders, IPC_SEND_BLOCKED);	/* (the queue's reference on ep) */
	spin_unlock_irqrestore(&ep->lock, flags);
	cap_send_end(&cs);		/* (a receiver makes it ready itself) */
	ret = ipc_wait(me, NULL);	/* a receiver takes us (and, for a call, replies) */
	if (!ret && call)
		*msg = me->msg;
	return ret;
}

int ipc_send(struct thread_obj *me, struct cap_ref *ep, unsigned long badge,
	     const struct ipc_msg *msg, bool nonblock)
{
	struct ipc_msg m = *msg;

	return send_common(me, ep, badge, &m, false, nonblock);
}

int ipc_call(struct thread_obj *me, struct cap_ref *ep, unsigned long badge,
	     struct ipc_msg *msg)
{
	ipc_count(calls);
	return send_common(me, ep, badge, msg, true, false);
}

/*
 * The receiver's half, with s a sender we claimed: its message (info as
 * we receive it), and its reply capability if a call (which may carry a
 * capability back if grant).
 */
static long take(struct thread_obj *me, struct thread_obj *s, unsigned long info, bool grant,
		 struct ipc_msg *out)
{
	unsigned long flags, badge, seq = 0;
	bool call;

	spin_lock_irqsave(&s->lock, flags);
	*out = s->msg;
	out->info = info;
	badge = s->send_badge;
	call = s->is_call;
	if (call) {
		ipc_reply_wait_locked(s);	/* it sleeps on, now for the reply */
		seq = s->wait_seq;
	} else {
		ipc_complete_locked(s, 0, NULL);
	}
	spin_unlock_irqrestore(&s->lock, flags);
	if (call)
		swap_reply_cap(me, s, seq, grant);	/* (our claim's reference becomes its) */
	else
		kobject_put(&s->base);
	return badge;
}

static long recv_common(struct thread_obj *me, struct cap_ref *epr, bool nonblock, bool grant,
			struct ipc_msg *out, struct task_struct *handoff)
{
	struct cap_send cs = { 0 };
	struct endpoint *ep;
	struct thread_obj *s;
	unsigned long flags;
	long ret;

	for (;;) {
		ep = ep_of(epr);
		spin_lock_irqsave(&ep->lock, flags);
		s = first_of(&ep->senders);
		if (!s)
			break;
		if (!carries_cap(s->msg.info) || cap_send_ready_for(&cs, s)) {
			claim(ep, s);
			spin_unlock_irqrestore(&ep->lock, flags);
			claimed_hook(s);
			ret = take(me, s, cap_send_commit(&cs, s->msg.info, s), grant, out);
			if (handoff)
				wake_up_process(handoff);	/* we do not block: the ordinary way */
			return ret;
		}
		if (!cs.locked) {
			spin_unlock_irqrestore(&ep->lock, flags);
			if (handoff) {
				/* cap_mutex may sleep: no handoff across it */
				wake_up_process(handoff);
				handoff = NULL;
			}
			ret = hold_ep(epr);	/* cap_mutex may sleep: a reference */
			if (ret)
				return ret;
			cap_send_lock(&cs);
			continue;
		}
		look_at(&cs, ep, &flags, s, thread_obj_cspace(s), s->msg.info, thread_obj_cspace(me),
			READ_ONCE(me->recv_slot));
	}
	if (!ep->send_caps || nonblock) {
		spin_unlock_irqrestore(&ep->lock, flags);
		cap_send_end(&cs);
		if (handoff)
			wake_up_process(handoff);	/* we do not block: the ordinary way */
		return ep->send_caps ? -EAGAIN : -EPIPE;	/* (-EPIPE: nobody can ever send) */
	}
	me->recv_grant = grant;
	enqueue(me, ep, &ep->receivers, IPC_RECV_BLOCKED);	/* (the queue's reference on ep) */
	spin_unlock_irqrestore(&ep->lock, flags);
	cap_send_end(&cs);
	if (handoff)
		ipc_count(handoffs);
	ret = ipc_wait(me, handoff);	/* a sender comes and fills me->msg */
	if (!ret) {
		*out = me->msg;
		ret = me->badge;
	}
	return ret;
}

long ipc_recv(struct thread_obj *me, struct cap_ref *ep, bool nonblock, bool grant,
	      struct ipc_msg *out)
{
	return recv_common(me, ep, nonblock, grant, out, NULL);
}

/*
 * Takes me's reply capability: the caller (our reference) and its wait's
 * number; NULL and *err (-ESRCH: none; -EACCES: the reply carries a
 * capability it may not, and the reply capability stays).
 */
static struct thread_obj *take_reply_cap(struct thread_obj *me, bool with_cap,
					 unsigned long *seq, int *err)
{
	struct thread_obj *caller;
	unsigned long flags, unused;

	spin_lock_irqsave(&me->lock, flags);
	caller = me->reply_to;
	*seq = me->reply_seq;
	*err = !caller ? -ESRCH : with_cap && !me->reply_grant ? -EACCES : 0;
	if (!*err)
		set_reply_cap_locked(me, NULL, 0, false, &unused);	/* one-shot */
	spin_unlock_irqrestore(&me->lock, flags);
	return *err ? NULL : caller;
}

/* The reply; *handoff: the caller, if it waits on this CPU (the caller of this switches to it). */
static int reply_common(struct thread_obj *me, const struct ipc_msg *msg,
			struct task_struct **handoff)
{
	struct cap_send cs = { 0 };
	struct thread_obj *caller;
	unsigned long flags, seq, info = msg->info;
	int ret;

	if (carries_cap(info)) {
		/* (others set our reply capability only while we wait in a receive: not now) */
		if (!READ_ONCE(me->reply_to))
			return -ESRCH;
		ret = cap_send_start(&cs, thread_obj_cspace(me), info);
		if (ret)
			return ret;	/* before the reply capability is spent */
	}
	caller = take_reply_cap(me, carries_cap(info), &seq, &ret);
	if (!caller) {
		cap_send_end(&cs);
		return ret;
	}
	if (carries_cap(info)) {
		kobject_get(&caller->base);	/* (cs's) */
		cap_send_prepare(&cs, caller, seq, thread_obj_cspace(me), info,
				 thread_obj_cspace(caller), READ_ONCE(caller->recv_slot));
	}
	spin_lock_irqsave(&caller->lock, flags);
	ret = reply_awaited_locked(caller, seq) ? 0 : -ESRCH;
	if (!ret && cs.locked) {
		/* The capability goes first, with the caller claimed: it cannot leave meanwhile. */
		caller->state = IPC_CLAIMED;
		spin_unlock_irqrestore(&caller->lock, flags);
		info = cap_send_commit(&cs, info, caller);
		spin_lock_irqsave(&caller->lock, flags);
	} else {
		info &= ~SYS_MSG_FLAGS_MASK;
	}
	if (!ret)
		deliver_reply_locked(caller, msg, info, handoff);
	spin_unlock_irqrestore(&caller->lock, flags);
	cap_send_end(&cs);		/* (-ESRCH: the capability stays where it was) */
	kobject_put(&caller->base);
	return ret;
}

int ipc_reply(struct thread_obj *me, const struct ipc_msg *msg)
{
	return reply_common(me, msg, NULL);
}

long ipc_reply_recv(struct thread_obj *me, const struct ipc_msg *reply, struct cap_ref *ep,
		    bool grant, struct ipc_msg *out)
{
	struct task_struct *handoff = NULL;
	long ret;

	/* (others set it only while we wait in a receive: not now) */
	if (READ_ONCE(me->reply_to)) {
		if (carries_cap(reply->info)) {
			ret = hold_ep(ep);	/* the reply's cap_mutex may sleep: a reference */
			if (ret)
				return ret;
		}
		ret = reply_common(me, reply, &handoff);
		if (ret && ret != -ESRCH)
			return ret;	/* a caller gone meanwhile is no error: the server goes on */
	}
	return recv_common(me, ep, false, grant, out, handoff);
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
		s->fast_calls += READ_ONCE(c->fast_calls);
		s->fast_replies += READ_ONCE(c->fast_replies);
		s->fast_declined += READ_ONCE(c->fast_declined);
	}
}
