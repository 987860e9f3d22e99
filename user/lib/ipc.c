/* IPC for programs (qcap.h): endpoints, the server loop, notifications. */
#include "qcap.h"
#include "runtime.h"

/*
 * A thread that reads with QSBR (urcu-qsbr.h) is offline while it blocks
 * here, or a server waiting for requests would hold up every grace period
 * of its task: the hooks (runtime.h) are QSBR's once a thread registered.
 */
bool (*urcu_block_begin_hook)(const char *call);
void (*urcu_block_end_hook)(void);

static bool block_begin(const char *call)
{
	return urcu_block_begin_hook && urcu_block_begin_hook(call);
}

static long ipc_blocking(const char *call, long nr, long slot, struct q_msg *m)
{
	bool offline = block_begin(call);
	long r = q_ipc(nr, slot, m);

	if (offline)
		urcu_block_end_hook();
	return r;
}

long q_send(int ep, const struct q_msg *m)
{
	struct q_msg tmp = *m;	/* (a send receives nothing: the registers come back as they went) */

	return ipc_blocking("q_send()", SYS_ipc_send, ep, &tmp);
}

long q_send_nonblock(int ep, const struct q_msg *m)
{
	struct q_msg tmp = *m;

	tmp.info |= SYS_MSG_NONBLOCK;
	return q_ipc(SYS_ipc_send, ep, &tmp);
}

long q_call(int ep, struct q_msg *m)
{
	return ipc_blocking("q_call()", SYS_ipc_call, ep, m);
}

long q_recv(int ep, struct q_msg *m)
{
	m->info = 0;		/* argument 1 of a receive: its flags */
	return ipc_blocking("q_recv()", SYS_ipc_recv, ep, m);
}

long q_recv_nonblock(int ep, struct q_msg *m)
{
	m->info = SYS_RECV_NONBLOCK;
	return q_ipc(SYS_ipc_recv, ep, m);
}

long q_reply(const struct q_msg *m)
{
	struct q_msg tmp = *m;

	return q_ipc(SYS_ipc_reply, 0, &tmp);
}

long q_reply_recv(int ep, struct q_msg *m)
{
	return ipc_blocking("q_reply_recv()", SYS_ipc_reply_recv, ep, m);
}

int q_recv_slot(int slot)
{
	return q_syscall(SYS_ipc_recv_slot, slot, 0, 0, 0, 0, 0);
}

long q_serve(int ep, q_handler handle, void *arg)
{
	struct q_msg m = { 0 }, req;
	long badge = q_recv(ep, &m), r;

	while (!SYS_IS_ERROR(badge)) {
		req = m;
		m = q_msg(q_msg_label(&req), 0, 0, 0, 0);
		r = handle(badge, &req, &m, arg);
		if (r < 0)
			return r;
		badge = q_reply_recv(ep, &m);	/* (the reply goes nowhere if req was a send) */
	}
	return badge;
}

int q_signal(int ntf, unsigned long bits)
{
	return q_syscall(SYS_ntf_signal, ntf, (long)bits, 0, 0, 0, 0);
}

long q_wait(int ntf)
{
	bool offline = block_begin("q_wait()");
	long r = q_syscall(SYS_ntf_wait, ntf, 0, 0, 0, 0, 0);

	if (offline)
		urcu_block_end_hook();
	return r;
}

long q_poll(int ntf)
{
	return q_syscall(SYS_ntf_poll, ntf, 0, 0, 0, 0, 0);
}

int q_irq_bind(int irq, int ntf, unsigned long bits)
{
	return q_syscall(SYS_irq_bind, irq, ntf, (long)bits, 0, 0, 0);
}

int q_irq_ack(int irq)
{
	return q_syscall(SYS_irq_ack, irq, 0, 0, 0, 0, 0);
}

long q_dev_map(int dev, void *addr)
{
	return q_syscall(SYS_dev_map, dev, (long)addr, 0, 0, 0, 0);
}
