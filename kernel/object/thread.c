/*
 * Thread objects (thread.h): making one for a user thread, its end, and
 * the two halves of every IPC wait -- blocking, and completing another
 * thread's wait.
 */
#include "object/thread.h"
#include "object/cspace.h"
#include "object/ipc.h"
#include "object/holds.h"
#include "user/thread.h"
#include "object/lookup.h"
#include <errno.h>

static void thread_release(struct kobject *obj)
{
	struct thread_obj *th = container_of(obj, struct thread_obj, base);

	holds_unlink(th, "ut", th->ut);
	user_thread_put(th->ut);
}

static const struct kobj_ops thread_ops = {
	.name = "thread",
	.size = sizeof(struct thread_obj),
	.release = thread_release,
};

static struct thread_obj *thread_obj_new(struct user_thread *ut, int *err)
{
	struct kobject *obj = kobject_create(KOBJ_THREAD, ut->task->quota, 0);
	struct thread_obj *th;

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	th = container_of(obj, struct thread_obj, base);
	spin_lock_init(&th->lock);
	th->lock.name = "thread_obj";
	INIT_LIST_HEAD(&th->wait_node);
	th->recv_slot = SYS_RECV_SLOT_NONE;
	atomic_inc(&ut->refs);
	th->ut = ut;
	holds_link(HOLD_OBJECT, th, "ut", HOLD_USER_THREAD, ut);
	return th;
}

/*
 * ut's object, with a reference for the caller; made if it has none.
 * Two threads may race to make it: the compare-and-swap picks one, the
 * other is dropped.  NULL (-ESRCH) once the thread exited.
 */
static struct thread_obj *get_obj(struct user_thread *ut, int *err)
{
	struct thread_obj *th, *new;

	rcu_read_lock();
	/* [thread_obj_dep] pairs [thread_obj_publish]: an address dependency orders the reads of *th. */
	th = READ_ONCE(ut->obj);
	if (th && th != THREAD_OBJ_EXITED && kobject_tryget(&th->base)) {
		rcu_read_unlock();
		return th;
	}
	rcu_read_unlock();
	if (th == THREAD_OBJ_EXITED) {
		*err = -ESRCH;
		return NULL;
	}
	new = thread_obj_new(ut, err);
	if (!new)
		return NULL;
	kobject_get(&new->base);	/* one for ut->obj, one for the caller */
	/*
	 * [thread_obj_publish] pairs [thread_obj_dep], [thread_obj_exit_xchg]:
	 * fully ordered, so the object's fields are visible before the
	 * pointer to it, and an exit that swapped in EXITED first wins.
	 */
	th = cmpxchg(&ut->obj, NULL, new);
	if (th) {
		kobject_put(&new->base);
		kobject_put(&new->base);
		*err = -ESRCH;
		return th == THREAD_OBJ_EXITED ? NULL : get_obj(ut, err);
	}
	return new;
}

struct thread_obj *current_thread_obj(int *err)
{
	struct user_thread *ut = current->user;
	struct thread_obj *th = READ_ONCE(ut->obj);	/* ([thread_obj_dep]) */

	if (th && th != THREAD_OBJ_EXITED)
		return th;	/* only this thread's exit drops ut->obj's reference */
	th = get_obj(ut, err);
	if (th)
		kobject_put(&th->base);	/* ut->obj keeps one until we exit */
	return th;
}

struct kobject *thread_obj_of_tid(struct user_task *t, long tid, int *err)
{
	struct user_thread *ut, *found = NULL;
	struct thread_obj *th;
	unsigned long flags;

	spin_lock_irqsave(&t->lock, flags);
	list_for_each_entry(ut, &t->threads, node) {
		if (ut->tid == tid && !ut->exited) {
			atomic_inc(&ut->refs);
			found = ut;
			break;
		}
	}
	spin_unlock_irqrestore(&t->lock, flags);
	if (!found) {
		*err = -ESRCH;
		return NULL;
	}
	th = get_obj(found, err);
	user_thread_put(found);
	return th ? &th->base : NULL;
}

void thread_obj_exit(struct user_thread *ut)
{
	/*
	 * [thread_obj_exit_xchg] pairs [thread_obj_publish]: whichever comes
	 * first wins; a thread_obj_of_tid() that comes later finds EXITED.
	 */
	struct thread_obj *th = xchg(&ut->obj, THREAD_OBJ_EXITED);
	unsigned long flags;

	if (!th || th == THREAD_OBJ_EXITED)
		return;
	spin_lock_irqsave(&th->lock, flags);
	if (th->state != IPC_IDLE)
		panic("BUG: thread %d exits in IPC state %d", ut->tid, th->state);
	th->exited = true;
	spin_unlock_irqrestore(&th->lock, flags);
	ipc_drop_reply(th);
	kobject_put(&th->base);
}

/* (th holds its user thread, which holds its task: the chain stays while th does) */
struct cspace *thread_obj_cspace(struct thread_obj *th)
{
	return th->ut->task->cspace;
}

void (*ipc_claim_hook)(struct thread_obj *th);

void ipc_enqueue_locked(struct thread_obj *th, struct kobject *obj, spinlock_t *lock,
			struct list_head *q, enum ipc_state st)
{
	kobject_get(&th->base);		/* the queue's */
	/*
	 * th->waits_on's: a late reference, since the system call looked obj
	 * up without one (cap_lookup_noref()), so increment-unless-zero.  It
	 * cannot fail: the caller saw, under `lock`, a capability that can
	 * still reach us (an endpoint's recv_caps or send_caps, a
	 * notification's signal_caps), and each capability holds a reference.
	 * Relaxed: whoever drops it (the dequeuer, ipc_cancel()) takes
	 * `lock` first, whose release here orders the increment before.
	 */
	if (!kobject_tryget_relaxed(obj))
		panic("BUG: %s %lu: queued on with no reference left", kobject_type_name(obj->head.type),
		      obj->id);
	/* (th's own wait, begun without th->lock: thread.h, "Its own wait") */
	WRITE_ONCE(th->wait_seq, th->wait_seq + 1);
	WRITE_ONCE(th->state, st);
	th->waits_on = obj;
	th->queue_lock = lock;
	list_add_tail(&th->wait_node, q);
	holds_link(HOLD_OBJECT, obj, "queue", HOLD_OBJECT, th);
	holds_link(HOLD_OBJECT, th, "waits_on", HOLD_OBJECT, obj);
}

void ipc_dequeue_locked(struct thread_obj *th)
{
	struct kobject *obj = th->waits_on;

	list_del_init(&th->wait_node);
	th->waits_on = NULL;
	th->queue_lock = NULL;
	holds_unlink(th, "waits_on", obj);
	holds_unlink(obj, "queue", th);
	kobject_put(obj);	/* (perhaps the last: the thread's system call holds none) */
}

/*
 * Takes th out of whatever it waits for, because its task is being
 * killed: true, or false if a partner claimed it meanwhile (it will
 * finish without sleeping: wait for DONE).
 */
static bool ipc_cancel(struct thread_obj *th)
{
	unsigned long flags, qflags;
	enum ipc_state st;
	spinlock_t *q;

	for (;;) {
		spin_lock_irqsave(&th->lock, flags);
		st = th->state;
		q = th->queue_lock;
		if (st == IPC_REPLY_WAIT) {
			th->state = IPC_IDLE;
			th->wait_seq++;		/* its reply capability answers nobody now */
			spin_unlock_irqrestore(&th->lock, flags);
			return true;
		}
		spin_unlock_irqrestore(&th->lock, flags);
		if (st == IPC_CLAIMED || st == IPC_DONE)
			return false;
		/* Queued: the queue's lock comes first (thread.h). */
		spin_lock_irqsave(q, qflags);
		spin_lock(&th->lock);
		if (th->state == st && th->queue_lock == q) {
			ipc_dequeue_locked(th);
			th->state = IPC_IDLE;
			th->wait_seq++;		/* a partner that made ready for this wait finds it gone */
			spin_unlock(&th->lock);
			spin_unlock_irqrestore(q, qflags);
			kobject_put(&th->base);	/* the queue's */
			return true;
		}
		spin_unlock(&th->lock);
		spin_unlock_irqrestore(q, qflags);
	}
}

int ipc_wait(struct thread_obj *th, struct task_struct *handoff)
{
	unsigned long flags;
	int ret;

	for (;;) {
		spin_lock_irqsave(&th->lock, flags);
		if (th->state == IPC_DONE) {
			th->state = IPC_IDLE;
			ret = th->result;
			spin_unlock_irqrestore(&th->lock, flags);
			break;
		}
		current->state = TASK_BLOCKED;
		/*
		 * [ipc_sleep_mb] pairs [task_kill_mb], [task_exit_mb], [thread_kill_mb]: as
		 * [killable_mb] in wait_for_completion_killable(): blocked
		 * before we read the kill, which the killer stores before its
		 * wake-up reads our state.  (A partner's completion needs no
		 * barrier: it takes th->lock, which we hold until we are
		 * marked blocked.)
		 */
		smp_mb();
		if (th->state != IPC_CLAIMED && fatal_signal_pending(current)) {
			current->state = TASK_RUNNING;
			spin_unlock_irqrestore(&th->lock, flags);
			if (ipc_cancel(th)) {
				ret = -EINTR;
				break;
			}
			continue;
		}
		spin_unlock_irqrestore(&th->lock, flags);
		if (handoff) {
			struct task_struct *next = handoff;

			handoff = NULL;
			schedule_to(next);	/* the direct switch: next runs, we sleep */
		} else {
			schedule();
		}
	}
	if (handoff)
		wake_up_process(handoff);	/* we did not block: it goes the ordinary way */
	return ret;
}

void ipc_reply_wait_locked(struct thread_obj *th)
{
	struct task_struct *kt = th->ut->kt;	/* (it waits: kt is there) */

	th->state = IPC_REPLY_WAIT;
	/*
	 * A kill that came while th was claimed is not lost.  th went to
	 * sleep in ipc_wait() under th->lock, having seen CLAIMED and so
	 * without looking at the kill, and we hold th->lock after it.  Either
	 * the killer's wake-up found th asleep and woke it -- th then slept
	 * again, under th->lock, after the killer's store: we see it -- or it
	 * found th still awake: the killer stored the kill and, after its
	 * barrier ([thread_kill_mb], [task_kill_mb]), read th's state before
	 * th stored TASK_BLOCKED, which th did before it let go of th->lock,
	 * and our acquire of the lock comes after that: a cycle ARMv8
	 * forbids, so we see the kill then too.  No barrier of our own.  We
	 * wake th, and it leaves.  A kill after our unlock finds th in
	 * REPLY_WAIT, which it gives up at once ([ipc_sleep_mb]).
	 */
	if (fatal_signal_pending(kt) && !cap_injected(CAP_INJECT_LOST_WAKEUP))
		wake_up_process(kt);
}

void ipc_complete_locked(struct thread_obj *th, int result, struct task_struct **handoff)
{
	struct task_struct *kt = th->ut->kt;	/* (it waits: not exited, so kt is there) */

	th->result = result;
	th->queue_lock = NULL;
	/*
	 * [ipc_done_release] pairs [ipc_done_acquire]: the result and the
	 * message (our caller set it) are visible before DONE, for the fast
	 * path, which reads DONE without th->lock (ipc_wait_done()).
	 */
	smp_store_release(&th->state, IPC_DONE);
	/*
	 * On this CPU, blocked: it cannot run before we switch (the kernel
	 * is not preemptible), so the caller may switch to it directly.
	 * PREEMPT=1 could run it (and let it exit) before that: never there.
	 */
	if (handoff && !*handoff && !CONFIG_PREEMPT &&
	    READ_ONCE(kt->cpu) == smp_processor_id() && READ_ONCE(kt->state) == TASK_BLOCKED)
		*handoff = kt;
	else
		wake_up_process(kt);
}

void thread_obj_init(void)
{
	kobject_register(KOBJ_THREAD, &thread_ops);
}
