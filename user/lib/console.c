/* The console server's client side (qconsole.h). */
#include <string.h>
#include "qcap.h"
#include "qconsole.h"

int q_console_ep = -1;		/* newlib.c's read() and write(): the server, or none */

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

int q_console_attach(int ep)
{
	struct q_msg m = q_msg(CONSOLE_HOLD, 0, 0, 0, 0);
	long ret = q_call(ep, &m);

	if (ret >= 0)
		q_console_ep = ep;
	return ret < 0 ? ret : 0;
}

void q_console_detach(void)
{
	struct q_msg m = q_msg(CONSOLE_RELEASE, 0, 0, 0, 0);

	if (q_console_ep >= 0)
		q_call(q_console_ep, &m);
	q_console_ep = -1;
}

long q_console_send(int ep, const void *buf, size_t n)
{
	const char *p = buf;
	size_t done = 0;

	while (done < n) {
		size_t k = n - done < CONSOLE_READ_MAX ? n - done : CONSOLE_READ_MAX;
		struct q_msg m = q_msg(CONSOLE_WRITE(k), 0, 0, 0, 0);
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
