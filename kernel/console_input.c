/*
 * The console's input (docs/drivers.md).  The UART raises its receive
 * interrupt whenever a character waits; the kernel's handler, on the CPU
 * the line is routed to (the boot CPU unless irq_set_affinity() moves
 * it), takes every waiting character into a ring, and console_getc() --
 * the monitor, the demos' pacing -- takes them from there.  Without an
 * interrupt line (the machine has none the kernel can route, or the
 * command line says console.irq=0), console_getc() polls the UART.
 *
 * Whoever holds the line reads the UART's receive side: the kernel here,
 * and no one else meanwhile.  console_input_release() lets the line go,
 * for a test or for a driver in user mode; console_input_push() is how
 * that driver hands keys back for the kernel's readers;
 * console_input_reclaim() takes the line back.
 */
#include <errno.h>
#include "kernel.h"
#include "irq.h"

#define RING_SIZE	256	/* a power of two */

static struct {
	spinlock_t lock;		/* the ring, and the UART's receive side in the handler */
	char buf[RING_SIZE];
	unsigned int head, tail;	/* head - tail characters wait */
	unsigned long dropped;		/* characters the full ring had no room for */
	int irq;			/* the UART's line; -1: polled */
	bool held;			/* the kernel's handler holds the line */
} in = { .lock = __SPIN_LOCK_UNLOCKED(in.lock), .irq = -1 };

static bool use_irq = true;
KPARAM_BOOL("console.irq", use_irq);

/* Receive interrupts the console's handler took on each CPU (tests). */
static DEFINE_PER_CPU(unsigned long, rx_irqs);

/* Puts c in the ring, or counts it dropped; in.lock held. */
static void ring_put(char c)
{
	if (in.head - in.tail == RING_SIZE) {
		if (!in.dropped++)
			printk("console: input ring full (%d characters nobody read): "
			       "dropping what comes next\n", RING_SIZE);
		return;
	}
	in.buf[in.head++ % RING_SIZE] = c;
}

/* Moves every character the UART holds into the ring; in.lock held. */
static void drain_uart(void)
{
	int c;

	while ((c = arch_console_getc()) >= 0)
		ring_put((char)c);
}

static void console_rx_interrupt(unsigned int irq, void *data)
{
	(void)irq, (void)data;
	this_cpu_inc(rx_irqs);
	spin_lock(&in.lock);
	if (in.held)
		drain_uart();
	spin_unlock(&in.lock);
}

int console_getc(void)
{
	unsigned long flags;
	int c = -1;

	if (in.irq < 0)
		return arch_console_getc();	/* polled: nobody else reads it */
	spin_lock_irqsave(&in.lock, flags);
	if (in.head != in.tail)
		c = (unsigned char)in.buf[in.tail++ % RING_SIZE];
	spin_unlock_irqrestore(&in.lock, flags);
	return c;
}

void console_input_push(const char *s, size_t n)
{
	unsigned long flags;

	spin_lock_irqsave(&in.lock, flags);
	for (size_t i = 0; i < n; i++)
		ring_put(s[i]);
	spin_unlock_irqrestore(&in.lock, flags);
}

int console_input_irq(void)
{
	return in.irq;
}

bool console_input_held(void)
{
	return READ_ONCE(in.held);
}

unsigned long console_rx_interrupts(int cpu)
{
	return READ_ONCE(per_cpu(rx_irqs, cpu));
}

/*
 * Takes the line and empties the UART: a character that arrived while
 * nobody held the line keeps an edge-triggered line high, and no new
 * edge would come until someone read it.
 */
int console_input_reclaim(void)
{
	unsigned long flags;
	int ret = request_irq(in.irq, console_rx_interrupt, "console", &in);

	if (ret)
		return ret;
	spin_lock_irqsave(&in.lock, flags);
	in.held = true;
	drain_uart();
	spin_unlock_irqrestore(&in.lock, flags);
	return 0;
}

void console_input_release(void)
{
	unsigned long flags;

	spin_lock_irqsave(&in.lock, flags);
	in.held = false;
	spin_unlock_irqrestore(&in.lock, flags);
	free_irq(in.irq, &in);
}

void console_input_init(void)
{
	int irq = arch_console_irq();
	char what[64];
	int ret;

	if (irq < 0 || !use_irq) {
		printk("console: input polled (%s)\n", irq < 0 ? "no interrupt line for the UART" :
		       "console.irq=0");
		return;
	}
	in.irq = irq;
	ret = console_input_reclaim();
	if (ret) {
		in.irq = -1;
		printk("console: the UART's interrupt cannot be used (error %d): input polled\n",
		       ret);
		return;
	}
	arch_console_rx_irq(true);
	arch_irq_describe(irq, what, sizeof(what));
	printk("console: input by interrupt: %s, to CPU0\n", what);
}
