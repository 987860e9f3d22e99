/*
 * The IPC paths (kernel/object/ipc.c; the fast path's halves in
 * ipc_fast.c): send, call, receive, reply and reply-and-receive on an
 * endpoint, as the system calls use them.
 *
 * me is the calling thread's object; ep the endpoint as the system
 * call's lookup found it, usually without a reference
 * (cap_lookup_noref()): valid until the task's next quiescent state.
 * These take what each sleep needs (docs/microkernel.md, "The reference
 * is the price of sleeping"): a thread that blocks on the endpoint is
 * queued with the queue's reference on it (ipc_enqueue_locked()), one
 * that sleeps on cap_mutex first takes a late one (cap_ref_hold()), and
 * one that only waits for its reply needs none: it is done with the
 * endpoint.  A message the call receives is written to *out (the system
 * call writes it back to the registers); its badge is the return value
 * of a receive.
 */
#ifndef KERNEL_OBJECT_IPC_H
#define KERNEL_OBJECT_IPC_H

#include "object/cspace.h"
#include "object/endpoint.h"

int ipc_send(struct thread_obj *me, struct cap_ref *ep, unsigned long badge,
	     const struct ipc_msg *msg, bool nonblock);
/* Sends msg and waits for the reply, which replaces it in *msg. */
int ipc_call(struct thread_obj *me, struct cap_ref *ep, unsigned long badge,
	     struct ipc_msg *msg);
/*
 * The sender's badge (>= 0) and its message in *out, or -errno.  grant:
 * the endpoint capability received through has the grant right (a reply
 * to what it receives may carry a capability).
 */
long ipc_recv(struct thread_obj *me, struct cap_ref *ep, bool nonblock, bool grant,
	      struct ipc_msg *out);
/*
 * Answers the call me received last (its one-shot reply capability): 0,
 * or -ESRCH (no caller now: a capability the reply carries stays where
 * it was), or -EACCES (it carries a capability, and the call came
 * through an endpoint capability without the grant right: nothing
 * happened, the reply capability stays).
 */
int ipc_reply(struct thread_obj *me, const struct ipc_msg *msg);
/* Replies if me holds a reply capability (a caller gone is no error; -EACCES is), then receives. */
long ipc_reply_recv(struct thread_obj *me, const struct ipc_msg *reply, struct cap_ref *ep,
		    bool grant, struct ipc_msg *out);
/* Drops me's reply capability unanswered: its caller wakes with -EPIPE. */
void ipc_drop_reply(struct thread_obj *me);

/*
 * IPC's fast path (kernel/user/fastpath.c, docs/microkernel.md "The fast
 * path"): the object halves (kernel/object/ipc_fast.c), interrupts off,
 * never sleeping, for a message that carries no capability.
 *
 * ipc_call_fast(): if ep's first receiver waits blocked on this CPU and
 * is not killed, delivers msg to it as a call: me is then in REPLY_WAIT
 * (true), and *next is the receiver to switch to (NULL: it was woken the
 * ordinary way after all).  False: nothing done.
 */
bool ipc_call_fast(struct thread_obj *me, struct endpoint *ep, unsigned long badge,
		   const struct ipc_msg *msg, struct task_struct **next);
/*
 * ipc_reply_recv_fast(): if no sender waits on ep and one still can send,
 * queues me as ep's receiver, then replies with the reply capability me
 * held: true, and *next is the caller to switch to (NULL: it was gone,
 * waits elsewhere or was killed, and was woken the ordinary way).  False:
 * nothing done (ipc_reply_recv() does it all, interrupts on).
 */
bool ipc_reply_recv_fast(struct thread_obj *me, const struct ipc_msg *reply,
			 struct endpoint *ep, bool grant, struct task_struct **next);

/*
 * Direct switches and messages so far (tests, reports): the sum over the
 * CPUs.  fast_calls, fast_replies: the fast path's switches (a call, a
 * reply-and-receive); fast_declined: the fast switches that found more
 * owed (a grace period waiting, a kill...) and went the general way.
 */
struct ipc_stats {
	unsigned long messages, calls, replies, handoffs, caps_sent, caps_lost;
	unsigned long fast_calls, fast_replies, fast_declined;
} __aligned(SMP_CACHE_BYTES);	/* (a per-CPU slot: lines of its own) */
void ipc_get_stats(struct ipc_stats *s);

/*
 * The counts, one set per CPU: an IPC counts on its own CPU and writes
 * nothing another CPU shares (a global atomic per call would be one more
 * cache line every CPU's IPC fights for).  Not preempted half-way
 * (PREEMPT=1), so an increment is never lost.
 */
DECLARE_PER_CPU(struct ipc_stats, ipc_stats);
#define ipc_count(field)						\
	do {								\
		preempt_disable();					\
		this_cpu_ptr(&ipc_stats)->field++;			\
		preempt_enable();					\
	} while (0)

#endif
