/*
 * System calls of IPC (lib/ipc.h, docs/microkernel.md): send, call,
 * receive, reply, reply-and-receive on endpoints; signal, wait and poll
 * on notifications.  The message travels in the argument registers 1-5,
 * and a received one is written back into them.
 *
 * Where the RCU read side ends: every call here looks its object up
 * without a reference (cap_lookup_noref(): no write to a line other CPUs
 * share).  The kernel is not preemptible, so the object stays valid
 * until this task's next quiescent state -- a sleep, cond_resched(), the
 * return to user mode -- and a call takes a reference only where it
 * sleeps and still needs the object after (docs/microkernel.md, "The
 * reference is the price of sleeping"): a thread blocked on an endpoint
 * or a notification is queued with the queue's own reference on it
 * (ipc_enqueue_locked()); a message or reply that carries a capability
 * takes cap_mutex, which may sleep, and takes a late reference before it
 * (ipc.c, hold_ep()); a call waiting for its reply no longer needs its
 * endpoint.  The checking build proves each use of a reference-free
 * object comes before the task's next quiescent state (cap_ref_obj()).
 */
#include "user/syscalls.h"
#include "object/cap.h"
#include "object/ipc.h"
#include "object/notification.h"
#include "object/lookup.h"
#include <errno.h>

#define INFO_SEND_FLAGS		(SYS_MSG_LABEL_MASK | SYS_MSG_CAP_MASK | SYS_MSG_MOVE | \
				 SYS_MSG_NONBLOCK)

static struct cspace *current_cspace(void)
{
	return current_user_task()->cspace;
}

/*
 * Decodes the message of a call (arguments 1..5) and the rights it needs
 * on the endpoint: -EINVAL for bits no sender may set, -EBADF for a
 * capability slot that cannot exist.
 */
static int decode_msg(const struct syscall_args *a, unsigned long allowed, struct ipc_msg *m,
		      unsigned int *rights)
{
	int cap;

	m->info = a->arg[1];
	for (int i = 0; i < SYS_MSG_WORDS; i++)
		m->w[i] = a->arg[2 + i];
	if (m->info & ~allowed)
		return -EINVAL;
	cap = SYS_MSG_CAP_SLOT(m->info);
	if (cap < 0 && (m->info & SYS_MSG_MOVE))
		return -EINVAL;		/* a move of no capability */
	if (cap >= SYS_CAP_MAX_SLOTS)
		return -EBADF;
	if (cap >= 0)
		*rights |= SYS_CAP_GRANT;
	return 0;
}

/* The received message, back into the caller's registers (lib/ipc.h). */
static void msg_to_regs(const struct ipc_msg *m)
{
	struct trap_frame *tf = current->user->syscall_frame;

	_Static_assert(SYS_MSG_WORDS == 4, "one line per message register");
	arch_syscall_set_arg(tf, 1, m->info);
	arch_syscall_set_arg(tf, 2, m->w[0]);
	arch_syscall_set_arg(tf, 3, m->w[1]);
	arch_syscall_set_arg(tf, 4, m->w[2]);
	arch_syscall_set_arg(tf, 5, m->w[3]);
}

/*
 * A slot number no table holds is -EBADF before anything is made for the
 * call: the arguments alone decide it (lib/ipc.h), not whether the
 * caller's quota has room for its thread object.  The object comes
 * first otherwise: making it may sleep, and the lookup after it takes no
 * reference.
 */
static bool no_such_slot(int slot)
{
	return slot < 0 || slot >= SYS_CAP_MAX_SLOTS;
}

/*
 * The caller's thread object and the endpoint in slot, with the rights,
 * reference-free (the system call `call`'s): 0, or -errno.
 */
static int endpoint_of(int slot, unsigned int rights, struct thread_obj **me, struct cap_ref *ref,
		       const char *call)
{
	int err = 0;

	if (no_such_slot(slot))
		return -EBADF;
	*me = current_thread_obj(&err);
	if (!*me)
		return err;
	return __cap_lookup(current_cspace(), slot, KOBJ_ENDPOINT, rights, ref, false, call);
}

long sys_ipc_send(const struct syscall_args *a)
{
	unsigned int rights = SYS_CAP_WRITE;
	struct thread_obj *me;
	struct cap_ref ref;
	struct ipc_msg m;
	int err = decode_msg(a, INFO_SEND_FLAGS, &m, &rights);

	if (!err)
		err = endpoint_of(arg_int(a->arg[0]), rights, &me, &ref, __func__);
	if (err)
		return err;
	/* Reference-free; held late if the message carries a capability (ipc.c). */
	err = ipc_send(me, &ref, ref.badge, &m, m.info & SYS_MSG_NONBLOCK);
	cap_ref_put(&ref);
	return err;
}

long sys_ipc_call(const struct syscall_args *a)
{
	unsigned int rights = SYS_CAP_WRITE;
	struct thread_obj *me;
	struct cap_ref ref;
	struct ipc_msg m;
	int err = decode_msg(a, INFO_SEND_FLAGS & ~SYS_MSG_NONBLOCK, &m, &rights);

	if (!err)
		err = endpoint_of(arg_int(a->arg[0]), rights, &me, &ref, __func__);
	if (err)
		return err;
	/* Reference-free; held late if the message carries a capability (ipc.c). */
	err = ipc_call(me, &ref, ref.badge, &m);
	cap_ref_put(&ref);
	if (!err)
		msg_to_regs(&m);
	return err;
}

/* (ep, flags): the sender's badge; its message in the registers. */
long sys_ipc_recv(const struct syscall_args *a)
{
	int flags = arg_int(a->arg[1]);
	struct thread_obj *me;
	struct cap_ref ref;
	struct ipc_msg m;
	long ret;

	if (flags & ~SYS_RECV_NONBLOCK)
		return -EINVAL;
	ret = endpoint_of(arg_int(a->arg[0]), SYS_CAP_READ, &me, &ref, __func__);
	if (ret)
		return ret;
	/* Reference-free; held late if a sender's message carries a capability (ipc.c). */
	ret = ipc_recv(me, &ref, flags & SYS_RECV_NONBLOCK, ref.rights & SYS_CAP_GRANT, &m);
	cap_ref_put(&ref);
	if (ret >= 0)
		msg_to_regs(&m);
	return ret;
}

/* (0, info, w0..w3): through the thread's reply capability (no endpoint involved). */
long sys_ipc_reply(const struct syscall_args *a)
{
	unsigned int rights = 0;
	struct thread_obj *me;
	struct ipc_msg m;
	int err = decode_msg(a, SYS_MSG_LABEL_MASK | SYS_MSG_CAP_MASK | SYS_MSG_MOVE, &m, &rights);

	if (!err && a->arg[0])
		err = -EINVAL;
	if (err)
		return err;
	me = current_thread_obj(&err);
	return me ? ipc_reply(me, &m) : err;
}

/* (ep, info, w0..w3): the reply (if a call is owed), then a receive on ep. */
long sys_ipc_reply_recv(const struct syscall_args *a)
{
	unsigned int rights = 0;
	struct thread_obj *me;
	struct cap_ref ref;
	struct ipc_msg reply, m;
	long ret = decode_msg(a, SYS_MSG_LABEL_MASK | SYS_MSG_CAP_MASK | SYS_MSG_MOVE, &reply,
			      &rights);

	if (!ret)
		ret = endpoint_of(arg_int(a->arg[0]), SYS_CAP_READ, &me, &ref, __func__);
	if (ret)
		return ret;
	/* Reference-free; held late if the reply or a message carries a capability (ipc.c). */
	ret = ipc_reply_recv(me, &reply, &ref, ref.rights & SYS_CAP_GRANT, &m);
	cap_ref_put(&ref);
	if (ret >= 0)
		msg_to_regs(&m);
	return ret;
}

/* (slot): where capabilities this thread receives land: a slot, SYS_CAP_ANY_SLOT, SYS_RECV_SLOT_NONE. */
long sys_ipc_recv_slot(const struct syscall_args *a)
{
	int slot = arg_int(a->arg[0]);
	struct thread_obj *me;
	int err = 0;

	if (slot < SYS_RECV_SLOT_NONE || slot >= SYS_CAP_MAX_SLOTS)
		return -EBADF;
	me = current_thread_obj(&err);
	if (!me)
		return err;
	WRITE_ONCE(me->recv_slot, slot);
	return 0;
}

/* (ntf, bits): bits | the capability's badge, never 0, never wider than a badge. */
long sys_ntf_signal(const struct syscall_args *a)
{
	unsigned long bits = a->arg[1];
	struct cap_ref ref;
	int err;

	if (bits > SYS_BADGE_MAX)
		return -EINVAL;
	/* Reference-free: a signal never sleeps. */
	err = cap_lookup_noref(current_cspace(), arg_int(a->arg[0]), KOBJ_NOTIFICATION,
			       SYS_CAP_WRITE, &ref);
	if (err)
		return err;
	if (bits | ref.badge)
		err = notification_signal(cap_ref_obj(&ref), bits | ref.badge);
	else
		err = -EINVAL;		/* nothing to signal */
	cap_ref_put(&ref);
	return err;
}

long sys_ntf_wait(const struct syscall_args *a)
{
	struct thread_obj *me;
	struct cap_ref ref;
	int err = 0;
	long ret;

	if (no_such_slot(arg_int(a->arg[0])))
		return -EBADF;
	me = current_thread_obj(&err);
	if (!me)
		return err;
	/*
	 * Reference-free: a thread that blocks is queued with the queue's
	 * reference on the notification, and reads only its own thread
	 * object once woken.
	 */
	ret = cap_lookup_noref(current_cspace(), arg_int(a->arg[0]), KOBJ_NOTIFICATION,
			       SYS_CAP_READ, &ref);
	if (ret)
		return ret;
	ret = notification_wait(me, cap_ref_obj(&ref));
	cap_ref_put(&ref);
	return ret;
}

long sys_ntf_poll(const struct syscall_args *a)
{
	struct cap_ref ref;
	/* Reference-free: a poll never sleeps. */
	long ret = cap_lookup_noref(current_cspace(), arg_int(a->arg[0]), KOBJ_NOTIFICATION,
				    SYS_CAP_READ, &ref);

	if (ret)
		return ret;
	ret = notification_poll(cap_ref_obj(&ref));
	cap_ref_put(&ref);
	return ret;
}
