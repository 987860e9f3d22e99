/*
 * Thread objects (kernel/object/thread.c): a user thread as the kernel's
 * objects see it -- what a capability to the thread names, and the
 * thread's IPC state: what it waits for, the message it carries or
 * received, and its one-shot reply capability.
 *
 * A user thread gets its object the first time it needs one (its first
 * IPC, or a capability to it), and drops its reference when it exits;
 * the object may live on (a capability or a pending reply names it) but
 * its thread is gone: `exited` says so, and no IPC reaches it.
 *
 * States and who moves a thread between them (under obj->lock but the
 * first step out of IDLE, below; the queues under their endpoint's or
 * notification's lock, taken first):
 *
 *   IDLE --queue itself--> SEND_BLOCKED / RECV_BLOCKED / NTF_WAIT
 *   SEND_BLOCKED / RECV_BLOCKED --a partner dequeues it--> CLAIMED
 *   CLAIMED --the partner finishes--> DONE (result set), or REPLY_WAIT (its call was received)
 *   IDLE --its call was delivered at once--> REPLY_WAIT
 *   REPLY_WAIT --the reply claims it--> CLAIMED (a reply that carries a capability)
 *   REPLY_WAIT --the reply, or its reply capability dropped--> DONE
 *   NTF_WAIT --a signal, or the notification dies--> DONE
 *   DONE --the thread itself, as it returns--> IDLE
 *
 * Every wait gets a number (wait_seq, bumped when it begins and when it
 * is given up): whoever answers a wait later -- a reply, a partner that
 * made a capability ready before claiming -- names it by that number,
 * and finds out if the thread gave up meanwhile.
 *
 * Its own wait: the thread itself, running, takes the first step out of
 * IDLE -- into a queue (ipc_enqueue_locked()) or into REPLY_WAIT
 * (reply_wait_begin(), ipc_internal.h) -- without obj->lock, which saves
 * a lock round trip a wait.  No partner can find the wait before it is
 * published: on a queue, under the queue's lock, or in the receiver's
 * reply capability, under the receiver's lock, each taken after these
 * stores, and a partner takes that lock before it looks.  Only a
 * thread holding a reply capability from an earlier wait can look
 * before: it names a wait number below the new one (the number only
 * rises; an earlier reply wait's capability was used, dropped, or the
 * wait was numbered again when given up: ipc_cancel()), so whatever mix
 * of old and new state and number it reads, reply_awaited_locked() says
 * no.  The stores are WRITE_ONCE() and its loads READ_ONCE() for that.
 * The same holds for a running thread's own reply slot (reply_to and
 * what goes with it): only it writes there until it is queued as a
 * receiver, so it reads and empties the slot without its lock.
 *
 * A partner on its CPU: a thread blocked on the CPU that runs its
 * partner with interrupts off cannot run before that CPU switches -- a
 * kill's wake-up only queues it there -- so a partner that took it off
 * its queue (the queue's lock held, which every other partner takes
 * first) may finish its wait without its lock, as the fast path's call
 * does (ipc_call_fast()).
 *
 * No state spans a sleep unseen (docs/microkernel.md, "Rule 3").  A
 * thread killed while it waits leaves any state but CLAIMED at once.
 * CLAIMED never spans a sleep: a partner claims only once what may sleep
 * is done (the capability a message carries is made ready under
 * cap_mutex first: ipc.c), so a killed thread that finds itself claimed
 * sleeps only until its partner's few steps are over -- and the partner
 * that moves it on to REPLY_WAIT wakes it if it was killed meanwhile
 * (ipc_reply_wait_locked()), since the kill's own wake-up found it
 * claimed and was spent.
 */
#ifndef KERNEL_OBJECT_THREAD_H
#define KERNEL_OBJECT_THREAD_H

#include "object/object.h"
#include "user/thread.h"

struct user_thread;
struct user_task;
struct endpoint;
struct cspace;

enum ipc_state {
	IPC_IDLE,
	IPC_SEND_BLOCKED,		/* queued on an endpoint's senders (a send or a call) */
	IPC_RECV_BLOCKED,		/* queued on an endpoint's receivers */
	IPC_CLAIMED,			/* taken off the queue by a partner that is delivering */
	IPC_REPLY_WAIT,			/* its call was received: waits for the reply */
	IPC_NTF_WAIT,			/* queued on a notification */
	IPC_DONE,			/* result (and message) ready: it runs on */
};

struct ipc_msg {
	unsigned long info;
	unsigned long w[SYS_MSG_WORDS];
};

struct thread_obj {
	struct kobject base;
	struct user_thread *ut;		/* with a reference */
	spinlock_t lock;		/* what follows */
	enum ipc_state state;
	bool exited;			/* its thread left for good */
	int result;			/* DONE: 0 or -errno */
	unsigned long badge;		/* DONE after a receive: the sender's badge */
	struct ipc_msg msg;		/* queued sender: to send; DONE: received */
	bool is_call;			/* queued sender: a call (wants a reply) */
	struct list_head wait_node;	/* on an endpoint's or a notification's queue (which holds a reference on us) */
	struct kobject *waits_on;	/* queued: that endpoint or notification (a reference) */
	spinlock_t *queue_lock;		/* its queue's lock (for the cancel on a kill) */
	unsigned long send_badge;	/* queued sender: the badge of the capability it sent with */
	bool recv_grant;		/* queued receiver: its capability had the grant right */
	/* The one-shot reply capability, held after receiving a call: */
	struct thread_obj *reply_to;	/* the caller (a reference), or NULL */
	unsigned long reply_seq;	/* which of the caller's waits */
	bool reply_grant;		/* the reply may carry a capability (the receive's grant right) */
	unsigned long wait_seq;		/* this thread's waits, numbered (above) */
	long recv_slot;			/* where received capabilities land; -1: nowhere */
	unsigned long ntf_bits;		/* NTF_WAIT done: the bits */
};

/* The calling user thread's object (made at its first use): NULL and *err if out of quota. */
struct thread_obj *current_thread_obj(int *err);
/* ut->obj once its thread exited: no object is made for it any more. */
#define THREAD_OBJ_EXITED	((struct thread_obj *)1)
/* The same if it has one already (never makes one, never sleeps: the IPC fast path), or NULL. */
static inline struct thread_obj *current_thread_obj_peek(void)
{
	struct thread_obj *th = READ_ONCE(current->user->obj);	/* ([thread_obj_dep]) */

	return th == THREAD_OBJ_EXITED ? NULL : th;
}
/* Thread tid of task t as an object, with a reference: for SYS_cap_create (-ESRCH: none). */
struct kobject *thread_obj_of_tid(struct user_task *t, long tid, int *err);
/* The calling thread exits: drops its reply capability (its caller gets -EPIPE) and its object. */
void thread_obj_exit(struct user_thread *ut);

/* The cspace of the task a thread object's thread belongs to. */
struct cspace *thread_obj_cspace(struct thread_obj *th);

/*
 * Blocking.  The caller put itself in a waiting state under th->lock;
 * ipc_wait() sleeps until DONE and returns the result, or returns -EINTR
 * when the task is killed (after taking th off its queue).  If handoff
 * is set, the thread it names was just made ready on this CPU:
 * ipc_wait() switches to it directly (schedule_to()), or wakes it if it
 * does not block after all.
 */
int ipc_wait(struct thread_obj *th, struct task_struct *handoff);
/*
 * Finishes th's wait (th->lock held): result (the message, if any, set
 * by the caller), then wakes it -- or, if it waits on this CPU and
 * handoff is not NULL, leaves the wake to the caller's ipc_wait(), which
 * switches to it without the run queue.  A handoff must never span a
 * sleep of the caller's: a kill could wake th, which could exit and be
 * freed before the switch (ipc.c wakes it before anything that may sleep).
 */
void ipc_complete_locked(struct thread_obj *th, int result, struct task_struct **handoff);
/*
 * The fast path's wait (kernel/user/fastpath.c), interrupts off.
 * ipc_mark_blocked(): the caller is TASK_BLOCKED from before any partner
 * can see its wait (as ipc_wait() marks it under th->lock, which every
 * completion takes): a completion that comes before the switch then
 * wakes it -- it is the running task, so it only becomes TASK_RUNNING,
 * and schedule_to_fast() queues it -- and is never lost.  The switch
 * reads the kill after its barrier ([fast_switch_mb]).  The caller that
 * does not switch after all marks itself TASK_RUNNING again before the
 * general wait.  ipc_wait_done(), without th->lock: once it runs again,
 * true and *ret if th is DONE (th is then IDLE); false: the general
 * ipc_wait() finishes.
 */
static inline void ipc_mark_blocked(void)
{
	current->state = TASK_BLOCKED;
}

/* Does th, which waits (its queue's or its own lock held), wait blocked on this CPU, not killed? */
static inline bool ipc_waits_here(struct thread_obj *th)
{
	struct task_struct *kt = th->ut->kt;	/* (it waits: kt is there) */

	return READ_ONCE(kt->cpu) == smp_processor_id() &&
	       READ_ONCE(kt->state) == TASK_BLOCKED && !fatal_signal_pending(kt);
}

static inline bool ipc_wait_done(struct thread_obj *th, int *ret)
{
	/*
	 * [ipc_done_acquire] pairs [ipc_done_release]: the result and the
	 * message we read after DONE are the completer's.  No lock: only
	 * th's own thread leaves DONE, and the others only compare the state
	 * (under th->lock) with states that DONE and IDLE both are not.
	 */
	if (smp_load_acquire(&th->state) != IPC_DONE)
		return false;
	*ret = th->result;
	WRITE_ONCE(th->state, IPC_IDLE);
	return true;
}
/* A claimed caller (th->lock held) now waits for its reply: woken if a kill came meanwhile. */
void ipc_reply_wait_locked(struct thread_obj *th);

/*
 * The queues (the queue's lock held): the running th joins q of obj in
 * state st, a new wait (without th->lock: "Its own wait", above); or th
 * leaves its queue (th->lock held too, or "A partner on its CPU").  The
 * queue holds a reference on th and th one on obj while it is there; on
 * leaving, obj's goes and th's passes to the caller (a claim's, or the
 * caller drops it).
 */
void ipc_enqueue_locked(struct thread_obj *th, struct kobject *obj, spinlock_t *lock,
			struct list_head *q, enum ipc_state st);
void ipc_dequeue_locked(struct thread_obj *th);

/*
 * Test hook (checking build): called by a receiver that just claimed
 * sender th, before it finishes with it (tests/lifetimes.c kills th there,
 * captorture kills its victims there; NULL: nothing).
 */
extern void (*ipc_claim_hook)(struct thread_obj *th);
void thread_obj_init(void);

#endif
