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
 * States and who moves a thread between them (all under obj->lock; the
 * queues under their endpoint's or notification's lock, taken first):
 *
 *   IDLE --queue itself--> SEND_BLOCKED / RECV_BLOCKED / NTF_WAIT
 *   SEND_BLOCKED / RECV_BLOCKED --a partner dequeues it--> CLAIMED
 *   CLAIMED --the partner finishes--> DONE (result set), or REPLY_WAIT (its call was received)
 *   IDLE --its call was delivered at once--> REPLY_WAIT
 *   REPLY_WAIT --the reply, or its reply capability dropped--> DONE
 *   NTF_WAIT --a signal, or the notification dies--> DONE
 *   DONE --the thread itself, as it returns--> IDLE
 *
 * A thread killed while it waits leaves any state but CLAIMED at once
 * (its partner is mid-delivery and will finish without sleeping).
 */
#ifndef KERNEL_OBJECT_THREAD_H
#define KERNEL_OBJECT_THREAD_H

#include "object/object.h"

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
	struct list_head wait_node;	/* on an endpoint's or a notification's queue */
	spinlock_t *queue_lock;		/* that queue's lock (for the cancel on a kill) */
	unsigned long send_badge;	/* queued sender: the badge of the capability it sent with */
	/* The one-shot reply capability, held after receiving a call: */
	struct thread_obj *reply_to;	/* the caller (a reference), or NULL */
	unsigned long reply_seq;	/* which call of the caller's */
	unsigned long call_seq;		/* this thread's calls, numbered */
	long recv_slot;			/* where received capabilities land; -1: nowhere */
	unsigned long ntf_bits;		/* NTF_WAIT done: the bits */
};

/* The calling user thread's object (made at its first use): NULL and *err if out of quota. */
struct thread_obj *current_thread_obj(int *err);
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
 * switches to it without the run queue.
 */
void ipc_complete_locked(struct thread_obj *th, int result, struct task_struct **handoff);
void thread_obj_init(void);

#endif
