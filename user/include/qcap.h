/*
 * Capabilities and IPC for programs: a typed layer over the ABI of
 * lib/ipc.h (docs/microkernel.md has the rules, this the calls).
 *
 * Capabilities are slot numbers (ints).  Every call returns what the
 * kernel returned: a slot, a count, a badge or 0 -- or a negative error
 * (-SYS_EBADF: no capability there; -SYS_ENOTSUP: the wrong kind;
 * -SYS_EACCES: a right missing; -SYS_EPIPE: the other end is gone).
 *
 * A server reads as what it does:
 *
 *	static long echo(unsigned long badge, const struct q_msg *req,
 *			 struct q_msg *reply, void *arg)
 *	{
 *		reply->w[0] = req->w[0] + 1;
 *		return 0;
 *	}
 *	...
 *	q_serve(ep, echo, NULL);	// for ever, or until echo returns < 0
 *
 * and a client:
 *
 *	struct q_msg m = q_msg(LABEL_ECHO, 41, 0, 0, 0);
 *	if (q_call(ep, &m) == 0)
 *		printf("%lu\n", m.w[0]);	// 42
 */
#ifndef QCAP_H
#define QCAP_H

#include "quiescent.h"

/* A message: the info word (label, capability, flags: lib/ipc.h) and its words. */
struct q_msg {
	unsigned long info;
	unsigned long w[SYS_MSG_WORDS];
};

static inline struct q_msg q_msg(unsigned int label, unsigned long w0, unsigned long w1,
				 unsigned long w2, unsigned long w3)
{
	struct q_msg m = { SYS_MSG_INFO(label), { w0, w1, w2, w3 } };

	return m;
}

static inline unsigned int q_msg_label(const struct q_msg *m)
{
	return SYS_MSG_LABEL(m->info);
}

/* Sends the capability in slot with the message (a copy; q_msg_move_cap: moved). */
static inline void q_msg_give_cap(struct q_msg *m, int slot)
{
	m->info = (m->info & ~SYS_MSG_CAP_MASK) | SYS_MSG_CAP(slot);
}

static inline void q_msg_move_cap(struct q_msg *m, int slot)
{
	q_msg_give_cap(m, slot);
	m->info |= SYS_MSG_MOVE;
}

/* The slot a received capability landed in, or -1 (none; or lost: q_msg_cap_lost()). */
static inline int q_msg_cap(const struct q_msg *m)
{
	return SYS_MSG_CAP_SLOT(m->info);
}

static inline int q_msg_cap_lost(const struct q_msg *m)
{
	return (m->info & SYS_MSG_CAP_LOST) != 0;
}

/* The raw IPC call (arch/ARCH/ipc.S): the message in and out through *m. */
long q_ipc(long nr, long slot, struct q_msg *m);

/* Objects: a new one and its first capability, in slot (SYS_CAP_ANY_SLOT: the first empty). */
int q_endpoint_create(int slot);
int q_notification_create(int slot);
int q_memory_create(int slot, long pages);
int q_thread_cap(int slot, int tid);	/* a capability to thread tid of this task */

/* Capability operations: each returns the slot used (or the count, or 0). */
int q_cap_copy(int src, int dst);
int q_cap_mint(int src, int dst, int rights, unsigned long badge);
int q_cap_move(int src, int dst);
int q_cap_delete(int slot);
int q_cap_revoke(int slot);			/* how many capabilities it deleted */
int q_cap_inspect(int slot, struct sys_cap_info *info);

/* IPC on endpoints. */
long q_send(int ep, const struct q_msg *m);
long q_send_nonblock(int ep, const struct q_msg *m);	/* -SYS_EAGAIN if nobody waits */
long q_call(int ep, struct q_msg *m);			/* *m becomes the reply */
long q_recv(int ep, struct q_msg *m);			/* the sender's badge */
long q_recv_nonblock(int ep, struct q_msg *m);
long q_reply(const struct q_msg *m);
long q_reply_recv(int ep, struct q_msg *m);		/* replies *m, receives into *m */
/* Where received capabilities land: a slot, SYS_CAP_ANY_SLOT, or SYS_RECV_SLOT_NONE. */
int q_recv_slot(int slot);

/*
 * A server loop: receives on ep and calls handle(badge, req, reply, arg)
 * for each message; *reply starts as an empty message with req's label,
 * and is what the caller gets back (a sender that did not call gets
 * nothing).  Returns handle's first negative return, or the kernel's
 * error.
 */
typedef long (*q_handler)(unsigned long badge, const struct q_msg *req, struct q_msg *reply,
			  void *arg);
long q_serve(int ep, q_handler handle, void *arg);

/* Notifications. */
int q_signal(int ntf, unsigned long bits);
long q_wait(int ntf);		/* the bits, never 0 */
long q_poll(int ntf);		/* the bits, 0 if none */

/*
 * Interrupts (docs/drivers.md): a capability the kernel granted, bound to
 * a notification: each interrupt masks the line and signals bits; the
 * driver serves its device, then acknowledges (the line opens again).
 * -SYS_EBUSY: someone (the kernel, another driver) holds the line.
 */
int q_irq_bind(int irq, int ntf, unsigned long bits);
int q_irq_ack(int irq);
/*
 * A device's registers, from a capability the kernel granted: the address
 * they are mapped at (addr, or where there is room when NULL; AArch64:
 * uncached, never executable), or on x86-64 the device's first I/O port,
 * now open to this task (in and out on it; any other port faults).
 */
long q_dev_map(int dev, void *addr);

/* Memory objects. */
long q_memory_map(int mem, void *addr, int prot);	/* the address */
int q_memory_unmap(int mem);

/*
 * Tasks by capability: the program cmdline names (its first word, found
 * by q_program()) with the rest of cmdline as its arguments, copies of
 * caps[0 .. n-1] in its slots 0 .. n-1, and a capability to it in
 * task_slot (or SYS_RECV_SLOT_NONE).  q_spawn_caps's child spends from
 * our quota; q_spawn_quota's from the quota capability `quota` (one
 * carved out with q_quota_create(): a share of its own).  Its task id.
 */
int q_spawn_caps(const char *cmdline, const int *caps, int n, int task_slot);
int q_spawn_quota(const char *cmdline, int quota, const int *caps, int n, int task_slot);

/*
 * Quotas: q_quota_create carves kib KiB out of our quota into a new quota
 * object (-SYS_ENOMEM if ours cannot spare them; they come back when the
 * quota is freed: its capabilities, the tasks spending from it and
 * their objects all gone).  q_quota_info reads one's counts.
 */
int q_quota_create(int slot, long kib);
int q_quota_info(int quota, struct sys_quota_info *info);
int q_kill(int task_or_thread);
int q_wait_for(int task_or_thread, struct sys_exit_status *st);

#endif
