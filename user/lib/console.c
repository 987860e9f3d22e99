/* The console server's client side (qconsole.h). */
#include <string.h>
#include "qcap.h"
#include "qconsole.h"

int q_stdin_ep = -1;		/* newlib.c's read(0, ...): the server, or none */

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

void q_console_attach(int ep)
{
	q_stdin_ep = ep;
}
