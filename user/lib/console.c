/* The console server's client side (qconsole.h), and the kernel's console for reports. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "qcap.h"
#include "qconsole.h"
#include "runtime.h"

int q_console_ep = -1;		/* newlib.c's read() and write(): the server, or none */
static int holding;		/* this program holds the console (CONSOLE_HOLD sent) */

/*
 * For reports made where stdout will not do: its lock may be the one a
 * dead thread held (lock.c), or stdout's IPC to the console server may
 * be the very misuse reported (urcu_check.c).  One system call; a line
 * longer than the buffer is cut.
 */
void q_console_printf(const char *fmt, ...)
{
	char line[320];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	q_console_write(line, n < 0 ? 0 : n < (int)sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

long q_console_read(int ep, void *buf, size_t n)
{
	struct q_msg m = q_msg(CONSOLE_READ, n, 0, 0, 0);
	long ret = q_call(ep, &m);
	size_t got = q_msg_label(&m);

	if (ret < 0)
		return ret;
	if (got > n || got > CONSOLE_READ_MAX)
		return -SYS_EINVAL;	/* not the console server's answer */
	memcpy(buf, m.w, got);
	return got;
}

/*
 * CONSOLE_HOLD, with a capability to the calling thread that may only
 * wait for it (moved to the server): the server lets the hold go when
 * this thread ends, however it ends.  Without the right to give
 * capabilities on ep, the hold goes without it (and lasts until
 * q_console_detach()).
 */
static long hold(int ep)
{
	struct q_msg m = q_msg(CONSOLE_HOLD, 0, 0, 0, 0);
	int all = q_thread_cap(SYS_CAP_ANY_SLOT, q_thread_id());
	int waiter = all < 0 ? all : q_cap_mint(all, SYS_CAP_ANY_SLOT, SYS_CAP_READ, 0);
	long ret;

	if (all >= 0)
		q_cap_delete(all);
	if (waiter >= 0)
		q_msg_move_cap(&m, waiter);
	ret = q_call(ep, &m);
	if (ret == -SYS_EACCES && waiter >= 0) {
		m = q_msg(CONSOLE_HOLD, 0, 0, 0, 0);
		ret = q_call(ep, &m);
	}
	if (ret < 0 && waiter >= 0)
		q_cap_delete(waiter);	/* (not sent) */
	return ret;
}

int q_console_attach(int ep)
{
	long ret = hold(ep);

	if (ret < 0)
		return ret;
	q_console_ep = ep;
	holding = 1;
	return 0;
}

void q_console_detach(void)
{
	struct q_msg m = q_msg(CONSOLE_RELEASE, 0, 0, 0, 0);

	if (q_console_ep >= 0 && holding)
		q_call(q_console_ep, &m);
	q_console_ep = -1;
	holding = 0;
}

/* The runtime's, before main(): the server the kernel gave us, if any (lib/ipc.h). */
void q_console_use_given(void)
{
	struct sys_cap_info info;

	if (q_cap_inspect(SYS_CAP_CONSOLE_SLOT, &info) == 0 && info.type == SYS_OBJ_ENDPOINT &&
	    (info.rights & SYS_CAP_WRITE))
		q_console_ep = SYS_CAP_CONSOLE_SLOT;
}

long q_console_stdin(void *buf, size_t n)
{
	if (q_console_ep < 0)
		return 0;
	if (!holding && hold(q_console_ep) >= 0)
		holding = 1;	/* the first read holds the console: keys wait for us now */
	return n ? q_console_read(q_console_ep, buf, n) : 0;
}

long q_console_stdout(const void *buf, size_t n)
{
	long ret = -SYS_EPIPE;

	if (q_console_ep >= 0)
		ret = q_console_send(q_console_ep, buf, n);
	if (ret < 0 && ret != -SYS_EFAULT) {	/* no server (any more): the kernel's console */
		q_console_ep = -1;
		ret = q_console_write(buf, n);
	}
	return ret;
}

long q_console_send(int ep, const void *buf, size_t n)
{
	const char *p = buf;
	int tid = current_tls()->tid;
	size_t done = 0;

	while (done < n) {
		size_t k = n - done < CONSOLE_READ_MAX ? n - done : CONSOLE_READ_MAX;
		struct q_msg m = q_msg(CONSOLE_WRITE(k, tid), 0, 0, 0, 0);
		long ret;

		memcpy(m.w, p + done, k);
		ret = q_call(ep, &m);
		if (ret < 0)
			return done ? (long)done : ret;
		done += k;
	}
	return done;
}

long q_console_lines(int cons, const void *buf, size_t n)
{
	return q_syscall(SYS_console_lines, cons, (long)buf, (long)n, 0, 0, 0);
}

long q_console_push(int cons, const void *buf, size_t n)
{
	return q_syscall(SYS_console_push, cons, (long)buf, (long)n, 0, 0, 0);
}
