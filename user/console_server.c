/*
 * console_server: the console's input served from user mode (issue 31,
 * docs/drivers.md).  Whoever starts it gives it, in its slots:
 *
 *   0  an interrupt capability for the UART's receive line
 *   1  a device capability for the UART's registers
 *   2  the endpoint it serves (clients call it: user/include/qconsole.h)
 *   3  the kernel's console capability, to print its clients' lines
 *
 * Two threads.  The driver thread binds the line to a notification and,
 * on each interrupt, reads every character the UART holds into a ring,
 * acknowledges, looks once more (an edge that came while the line was
 * masked is lost), and signals the server thread.  The server thread
 * answers CONSOLE_READ with what the ring holds, waiting for the driver's
 * signal while it is empty.  One writer, one reader: the ring's indices
 * are published with release stores and read with acquire loads.
 *
 * While no client holds the console (CONSOLE_HOLD, CONSOLE_RELEASE), the
 * driver thread hands the keys to the kernel instead (SYS_console_push):
 * the monitor and the demos' pacing read them there.
 *
 * Output: CONSOLE_WRITE's bytes gather in a line buffer per client (by
 * badge); a line is printed when its newline comes (or the buffer is
 * full), whole, through the console capability: the kernel prints it
 * with one printk(), so it never mixes with the kernel's messages or
 * another client's line.
 */
#include <stdbool.h>
#include <stdio.h>
#include "qcap.h"
#include "qconsole.h"
#include "quart.h"

#define IRQ		0
#define DEV		1
#define EP		2
#define CONS		3
#define CLIENTS		8	/* line buffers: clients writing at once */
#define LINE_MAX	120
#define IRQ_BIT		1
#define RING_SIZE	1024	/* a power of two */

static char ring[RING_SIZE];
static unsigned int head, tail;	/* head: the driver's; tail: the server's */
static unsigned long dropped;
static int irq_ntf, input_ntf;
static int holders;		/* clients holding the console (both threads read it) */

static struct client_line {
	unsigned long badge;
	size_t len;
	char buf[LINE_MAX + 1];		/* its newline too */
} lines[CLIENTS];

/* badge's line buffer: its own, a free one, or the first (flushed: a line may break, never mix). */
static struct client_line *line_of(unsigned long badge)
{
	struct client_line *free = NULL;

	for (int i = 0; i < CLIENTS; i++) {
		if (lines[i].len && lines[i].badge == badge)
			return &lines[i];
		if (!lines[i].len && !free)
			free = &lines[i];
	}
	if (!free) {
		free = &lines[0];
		q_console_lines(CONS, free->buf, free->len);
		free->len = 0;
	}
	free->badge = badge;
	return free;
}

static void write_bytes(unsigned long badge, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct client_line *l = line_of(badge);

		l->buf[l->len++] = p[i];
		if (p[i] == '\n' || l->len == LINE_MAX) {
			q_console_lines(CONS, l->buf, l->len);	/* whole: one printk() */
			l->len = 0;
		}
	}
}

/* The driver thread's, with nobody holding the console: the keys, to the kernel. */
static bool push_input(void)
{
	char keys[64];
	size_t n;
	int c;

	if (__atomic_load_n(&holders, __ATOMIC_RELAXED))
		return false;
	do {
		for (n = 0; n < sizeof(keys) && (c = q_uart_getc()) >= 0; n++)
			keys[n] = c;
		if (n)
			q_console_push(CONS, keys, n);
	} while (n == sizeof(keys));
	return true;
}

/* The driver thread's: what the UART holds, into the ring (or to the kernel). */
static void take_input(void)
{
	unsigned int h = head;
	int c;

	if (push_input())
		return;
	while ((c = q_uart_getc()) >= 0) {
		if (h - __atomic_load_n(&tail, __ATOMIC_ACQUIRE) == RING_SIZE) {
			dropped++;	/* nobody reads: the oldest input stays */
			continue;
		}
		ring[h++ % RING_SIZE] = c;
	}
	if (h != head) {
		__atomic_store_n(&head, h, __ATOMIC_RELEASE);
		q_signal(input_ntf, 1);
	}
}

static int driver(void *arg)
{
	(void)arg;
	for (;;) {
		if (q_wait(irq_ntf) < 0)
			return 1;
		take_input();
		q_irq_ack(IRQ);
		take_input();
	}
}

static long serve(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	size_t want = req->w[0], n = 0;
	unsigned int h;
	char *out = (char *)reply->w;

	(void)arg;
	if (q_msg_label(req) == CONSOLE_HOLD || q_msg_label(req) == CONSOLE_RELEASE) {
		if (q_msg_label(req) == CONSOLE_HOLD || holders > 0)	/* (we are its only writer) */
			__atomic_add_fetch(&holders, q_msg_label(req) == CONSOLE_HOLD ? 1 : -1,
					   __ATOMIC_RELAXED);
		return 0;
	}
	if (CONSOLE_OP(q_msg_label(req)) == CONSOLE_WRITE_OP) {
		n = CONSOLE_COUNT(q_msg_label(req));
		write_bytes(badge, (const char *)req->w, n < CONSOLE_READ_MAX ? n : CONSOLE_READ_MAX);
		return 0;
	}
	if (q_msg_label(req) != CONSOLE_READ) {
		reply->info = SYS_MSG_INFO(0);
		return 0;
	}
	if (want > CONSOLE_READ_MAX)
		want = CONSOLE_READ_MAX;
	while ((h = __atomic_load_n(&head, __ATOMIC_ACQUIRE)) == tail)
		q_wait(input_ntf);
	while (n < want && tail + n != h)
		out[n] = ring[(tail + n) % RING_SIZE], n++;
	__atomic_store_n(&tail, tail + n, __ATOMIC_RELEASE);
	reply->info = SYS_MSG_INFO(n);
	return 0;
}

int main(void)
{
	long err;

	irq_ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	input_ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	if (irq_ntf < 0 || input_ntf < 0)
		return 1;
	err = q_uart_map(DEV);
	if (!err)
		err = q_irq_bind(IRQ, irq_ntf, IRQ_BIT);
	if (err) {
		printf("console_server: the UART: error %ld\n", -err);
		return 2;
	}
	take_input();		/* what came before the bind */
	if (q_thread_create(driver, NULL, SYS_CPU_ANY) < 0)
		return 3;
	printf("console_server: serving the console's input\n");
	return q_serve(EP, serve, NULL) < 0 ? 4 : 0;
}
