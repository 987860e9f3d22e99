/*
 * IPC's fast path (docs/microkernel.md, "The fast path"), in seL4's
 * manner: SYS_ipc_call and SYS_ipc_reply_recv between two threads on one
 * CPU, straight from the system call's entry, interrupts off from the
 * entry to the return, the partner switched to directly
 * (schedule_to_fast()).  Taken only when
 *   - the fast path is on (ipc.fastpath=1, the default; never PREEMPT=1,
 *     where no IPC hands off) and strace is off (it prints every call);
 *   - the message is in the registers and carries no capability: the info
 *     word is a label and nothing else (a capability to move takes
 *     cap_mutex, which may sleep; a bad flag is the general way's -EINVAL);
 *   - the caller has its thread object already, and the capability is an
 *     endpoint with the rights the general way asks;
 *   - the partner waits: a call's receiver is queued first on the
 *     endpoint, a reply's caller waits for it -- blocked on this CPU, not
 *     killed -- and a reply-and-receive finds no sender queued;
 *   - nothing is pending when it switches: no grace period waiting for
 *     this CPU's quiescent state, no kill, the CPU not going down
 *     (schedule_to_fast() declines, and the general switch reports).
 * Everything else is the general way, with interrupts on: before the
 * capability is looked up, sys_ipc_call() and sys_ipc_reply_recv() from
 * the start; after, with the same lookup, ipc_call() (no receiver
 * waiting here), ipc_reply_recv() (a sender queued), or the general wait,
 * ipc_wait() (the message delivered and the switch refused, or the
 * reply's caller not waiting here).  A lookup that fails is the call's
 * result, as it would be the general way's.
 *
 * The capability is looked up without a reference (cap_lookup_noref()),
 * as sys_ipc.c does: the endpoint is used only before this task's next
 * quiescent state -- interrupts off up to the switch -- or handed to the
 * general way, which takes what its sleeps need (ipc.h).  After the
 * switch it is not touched again.
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/ipc.h"
#include "user/fastpath.h"
#include "object/lookup.h"

/* ipc.fastpath=0: every IPC the general way (the comparison, and the switch off if it is wrong). */
static bool fastpath_on = true;
KPARAM_BOOL("ipc.fastpath", fastpath_on);

void (*ipc_fastpath_hook)(struct task_struct *next);

bool ipc_fastpath_enabled(void)
{
	return !CONFIG_PREEMPT && READ_ONCE(fastpath_on);
}

void ipc_fastpath_set(bool on)
{
	WRITE_ONCE(fastpath_on, on);
}

/* The message in the registers: its info word a label, nothing else. */
static bool plain_msg(const struct trap_frame *tf, struct ipc_msg *m)
{
	_Static_assert(SYS_MSG_WORDS == 4, "one line per message register");
	m->info = arch_syscall_arg(tf, 1);
	m->w[0] = arch_syscall_arg(tf, 2);
	m->w[1] = arch_syscall_arg(tf, 3);
	m->w[2] = arch_syscall_arg(tf, 4);
	m->w[3] = arch_syscall_arg(tf, 5);
	return !(m->info & ~SYS_MSG_LABEL_MASK);
}

static void msg_to_frame(struct trap_frame *tf, const struct ipc_msg *m)
{
	arch_syscall_set_arg(tf, 1, m->info);
	arch_syscall_set_arg(tf, 2, m->w[0]);
	arch_syscall_set_arg(tf, 3, m->w[1]);
	arch_syscall_set_arg(tf, 4, m->w[2]);
	arch_syscall_set_arg(tf, 5, m->w[3]);
}

/*
 * me waits for its partner's answer, marked blocked, having made next --
 * blocked on this CPU -- ready (next NULL: it was woken the ordinary
 * way).  The fast switch when it can; else the general wait, interrupts
 * on, which switches to next or wakes it.  Interrupts off on entry and
 * on return.
 */
static __always_inline int fast_wait(struct thread_obj *me, struct task_struct *next,
		     unsigned long *fast_count)
{
	int ret;

	if (next) {
		ipc_count(handoffs);
		if (CONFIG_RCU_CHECKING && ipc_fastpath_hook)
			ipc_fastpath_hook(next);
		if (schedule_to_fast(next)) {
			(*fast_count)++;	/* (interrupts off: this CPU's) */
			if (ipc_wait_done(me, &ret))
				return ret;
			next = NULL;	/* woken by a kill: the general wait ends it */
		} else {
			ipc_count(fast_declined);
		}
	}
	/*
	 * The general wait, which marks us blocked itself: we run on until
	 * then (a waker may have set it already; it looks at th->state again).
	 */
	current->state = TASK_RUNNING;
	local_irq_enable();
	ret = ipc_wait(me, next);
	local_irq_disable();
	return ret;
}

/*
 * The endpoint in the call's slot, with the rights, as sys_ipc.c looks it
 * up (for a plain message the general way's only possible error): 0, or
 * the error, which is then the call's result -- no second lookup for the
 * general way to count.
 */
static int fast_lookup(struct trap_frame *tf, unsigned int rights, struct cap_ref *ref)
{
	int err = cap_lookup_noref(current_user_task()->cspace, arg_int(arch_syscall_arg(tf, 0)),
				   KOBJ_ENDPOINT, rights, ref);

	if (err)
		arch_syscall_set_result(tf, err);
	return err;
}

static bool fast_call(struct trap_frame *tf, struct thread_obj *me)
{
	struct task_struct *next;
	struct cap_ref ref;
	struct ipc_msg m;
	int ret;

	if (!plain_msg(tf, &m) && !cap_injected(CAP_INJECT_FAST_CAP))
		return false;
	if (fast_lookup(tf, SYS_CAP_WRITE, &ref))
		return true;
	if (ipc_call_fast(me, to_endpoint(cap_ref_obj(&ref)), ref.badge, &m, &next)) {
		ret = fast_wait(me, next, &this_cpu_ptr(&ipc_stats)->fast_calls);
		if (!ret)
			msg_to_frame(tf, &me->msg);	/* the reply, straight to the frame */
	} else {
		/* No receiver waits here: the general call, with the same lookup. */
		local_irq_enable();
		ret = ipc_call(me, &ref, ref.badge, &m);
		local_irq_disable();
		if (!ret)
			msg_to_frame(tf, &m);
	}
	cap_ref_put(&ref);
	arch_syscall_set_result(tf, ret);
	return true;
}

static bool fast_reply_recv(struct trap_frame *tf, struct thread_obj *me)
{
	struct task_struct *next;
	struct ipc_msg reply, out;
	struct cap_ref ref;
	bool grant;
	long ret;

	if (!plain_msg(tf, &reply) || !READ_ONCE(me->reply_to))
		return false;	/* (no reply owed: a receive, the general way) */
	if (fast_lookup(tf, SYS_CAP_READ, &ref))
		return true;
	grant = ref.rights & SYS_CAP_GRANT;
	if (ipc_reply_recv_fast(me, &reply, to_endpoint(cap_ref_obj(&ref)), grant, &next)) {
		ret = fast_wait(me, next, &this_cpu_ptr(&ipc_stats)->fast_replies);
		if (!ret) {
			ret = me->badge;
			if (ret >= 0)
				msg_to_frame(tf, &me->msg);	/* the call, straight to the frame */
		}
	} else {
		/* A sender queued: the general reply-and-receive, with the same lookup. */
		local_irq_enable();
		ret = ipc_reply_recv(me, &reply, &ref, grant, &out);
		local_irq_disable();
		if (ret >= 0)
			msg_to_frame(tf, &out);
	}
	cap_ref_put(&ref);
	arch_syscall_set_result(tf, ret);
	return true;
}

bool ipc_fastpath(struct trap_frame *tf, unsigned long nr)
{
	struct thread_obj *me = current_thread_obj_peek();

	if (!me)
		return false;	/* its first IPC makes it, which may sleep */
	current->user->syscall_frame = tf;
	if (nr == SYS_ipc_call)
		return fast_call(tf, me);
	return fast_reply_recv(tf, me);
}
