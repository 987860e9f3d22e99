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
 * the monitor and the demos' pacing read them there.  A hold comes with a
 * capability to the client's thread that may only wait for it; a watcher
 * thread waits, and when the client's thread ends -- exit, fault, kill --
 * the hold goes with it and the client's unfinished line is printed.
 *
 * SERVERS threads answer calls on the endpoint, so that a client waiting
 * for a key does not hold up every other client's output; they share the
 * line buffers, the holds and the ring's read side under one lock.
 *
 * Output: CONSOLE_WRITE's bytes gather in a line buffer per writer (the
 * client's badge and the thread the message names); a line is printed
 * when its newline comes, whole, through the console capability: the
 * kernel prints it with one printk(), so it never mixes with the kernel's
 * messages or another writer's line.  A line
 * longer than the buffer (SYS_CONSOLE_LINE_MAX) goes in pieces without
 * their newline, which the kernel prints as cut (docs/drivers.md).
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
#define CLIENTS		8	/* holds; line buffers: writers at once */
#define SERVERS		3	/* threads answering calls */
#define LINE_MAX	SYS_CONSOLE_LINE_MAX
#define IRQ_BIT		1
#define RING_SIZE	1024	/* a power of two */

static char ring[RING_SIZE];
static unsigned int head, tail;	/* head: the driver's; tail: the server's */
static unsigned long dropped;
static int irq_ntf, input_ntf;
static int holders;		/* clients holding the console (the driver thread reads it) */
static int lock;		/* the line buffers, the holds, the ring's tail */

/* A client's hold: its badge, and the capability its watcher waits on (-1: none). */
static struct hold {
	unsigned long badge;
	int waiter;
	bool used, held;
} holds[CLIENTS];

static struct client_line {
	unsigned long badge, writer;
	size_t len;
	char buf[LINE_MAX + 1];		/* its newline too */
} lines[CLIENTS];

static void lock_take(void)
{
	while (__atomic_exchange_n(&lock, 1, __ATOMIC_ACQUIRE))
		q_yield();	/* (the holder may wait for this very CPU) */
}

static void lock_give(void)
{
	__atomic_store_n(&lock, 0, __ATOMIC_RELEASE);
}

/* The writer's line buffer: its own, a free one, or the first (flushed: a line may break, never mix). */
static struct client_line *line_of(unsigned long badge, unsigned long writer)
{
	struct client_line *free = NULL;

	for (int i = 0; i < CLIENTS; i++) {
		if (lines[i].len && lines[i].badge == badge && lines[i].writer == writer)
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
	free->writer = writer;
	return free;
}

static void write_bytes(unsigned long badge, unsigned long writer, const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct client_line *l = line_of(badge, writer);

		if (p[i] != '\n' && l->len == LINE_MAX) {
			q_console_lines(CONS, l->buf, l->len);	/* a piece: the kernel marks it cut */
			l->len = 0;
		}
		l->buf[l->len++] = p[i];
		if (p[i] == '\n') {
			q_console_lines(CONS, l->buf, l->len);	/* whole: one printk() */
			l->len = 0;
		}
	}
}

/* badge's unfinished lines, each writer's, printed (its client ended); lock held. */
static void flush_line(unsigned long badge)
{
	for (int i = 0; i < CLIENTS; i++) {
		if (lines[i].len && lines[i].badge == badge) {
			lines[i].buf[lines[i].len++] = '\n';
			q_console_lines(CONS, lines[i].buf, lines[i].len);
			lines[i].len = 0;
		}
	}
}

/* h's hold ends (lock held): with no holder left, keys go to the kernel again. */
static void unhold(struct hold *h)
{
	if (h->held)
		__atomic_sub_fetch(&holders, 1, __ATOMIC_RELAXED);
	h->held = false;
}

/* A watcher: waits for a holding client's thread to end, then lets its hold go. */
static int watch(void *arg)
{
	struct hold *h = arg;
	struct sys_exit_status st;

	q_wait_for(h->waiter, &st);
	lock_take();
	unhold(h);
	flush_line(h->badge);
	q_cap_delete(h->waiter);
	h->used = false;
	lock_give();
	q_signal(input_ntf, 1);		/* a server thread may still wait for a key for it */
	return 0;
}

/* CONSOLE_HOLD from badge, with waiter (a capability to wait for its thread, or -1); lock held. */
static void take_hold(unsigned long badge, int waiter)
{
	struct hold *h = NULL, *free = NULL;

	for (int i = 0; i < CLIENTS && !h; i++) {
		if (holds[i].used && holds[i].badge == badge)
			h = &holds[i];
		else if (!holds[i].used && !free)
			free = &holds[i];
	}
	if (!h && free) {
		h = free;
		*h = (struct hold){ .badge = badge, .waiter = waiter, .used = true };
		if (waiter >= 0 && q_thread_create(watch, h, SYS_CPU_ANY) >= 0)
			waiter = -1;	/* the watcher's now */
		else
			h->waiter = -1;
	}
	if (waiter >= 0)
		q_cap_delete(waiter);	/* (already watched, or no room: not needed) */
	if (!h) {
		__atomic_add_fetch(&holders, 1, __ATOMIC_RELAXED);	/* unwatched: until its release */
		return;
	}
	if (!h->held)
		__atomic_add_fetch(&holders, 1, __ATOMIC_RELAXED);
	h->held = true;
}

/* CONSOLE_RELEASE from badge; lock held. */
static void release_hold(unsigned long badge)
{
	for (int i = 0; i < CLIENTS; i++) {
		if (holds[i].used && holds[i].badge == badge && holds[i].held) {
			unhold(&holds[i]);
			if (holds[i].waiter < 0)
				holds[i].used = false;	/* (a watched one stays until its thread ends) */
			return;
		}
	}
	if (__atomic_load_n(&holders, __ATOMIC_RELAXED) > 0)	/* an unwatched hold, beyond the table */
		__atomic_sub_fetch(&holders, 1, __ATOMIC_RELAXED);
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

/*
 * Up to want bytes from the ring into out, waiting for some: how many.
 * 0 (end of file) once nobody holds the console: every reader holds it
 * (user/lib/console.c), so the caller died meanwhile and this thread is
 * free for the others.
 */
static size_t read_input(char *out, size_t want)
{
	size_t n = 0;
	unsigned int h;

	for (;;) {
		lock_take();
		h = __atomic_load_n(&head, __ATOMIC_ACQUIRE);
		if (h != tail)
			break;
		if (!__atomic_load_n(&holders, __ATOMIC_RELAXED)) {
			lock_give();
			q_signal(input_ntf, 1);		/* another reader of a dead holder may wait */
			return 0;
		}
		lock_give();
		q_wait(input_ntf);
	}
	while (n < want && tail + n != h)
		out[n] = ring[(tail + n) % RING_SIZE], n++;
	__atomic_store_n(&tail, tail + n, __ATOMIC_RELEASE);
	lock_give();
	return n;
}

static long serve(unsigned long badge, const struct q_msg *req, struct q_msg *reply, void *arg)
{
	unsigned int label = q_msg_label(req);
	size_t want = req->w[0], n;
	int cap = q_msg_cap(req);

	(void)arg;
	if (cap >= 0 && label != CONSOLE_HOLD) {
		q_cap_delete(cap);	/* nobody asked for it */
		cap = -1;
	}
	if (label == CONSOLE_HOLD || label == CONSOLE_RELEASE) {
		struct sys_cap_info info;

		if (cap >= 0 && (q_cap_inspect(cap, &info) || info.type != SYS_OBJ_THREAD)) {
			q_cap_delete(cap);
			cap = -1;
		}
		lock_take();
		if (label == CONSOLE_HOLD)
			take_hold(badge, cap);
		else
			release_hold(badge);
		lock_give();
		return 0;
	}
	if (CONSOLE_OP(label) == CONSOLE_WRITE_OP) {
		n = CONSOLE_COUNT(label);
		lock_take();
		write_bytes(badge, CONSOLE_WRITER(label), (const char *)req->w,
			    n < CONSOLE_READ_MAX ? n : CONSOLE_READ_MAX);
		lock_give();
		return 0;
	}
	if (label != CONSOLE_READ) {
		reply->info = SYS_MSG_INFO(0);
		return 0;
	}
	if (want > CONSOLE_READ_MAX)
		want = CONSOLE_READ_MAX;
	reply->info = SYS_MSG_INFO(read_input((char *)reply->w, want));
	return 0;
}

/* A thread answering calls: capabilities sent to it land in any free slot (a hold's). */
static int server(void *arg)
{
	(void)arg;
	q_recv_slot(SYS_CAP_ANY_SLOT);
	return q_serve(EP, serve, NULL) < 0 ? 4 : 0;
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
	for (int i = 1; i < SERVERS; i++)
		if (q_thread_create(server, NULL, SYS_CPU_ANY) < 0)
			return 3;
	printf("console_server: serving the console's input\n");
	return server(NULL);
}
