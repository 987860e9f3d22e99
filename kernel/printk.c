/*
 * printk: newlib's vsnprintf formats into a buffer, then the whole message
 * goes out under the console lock, so lines from different CPUs never
 * interleave.  Each CPU formats with its own newlib reentrancy structure
 * (newlib keeps errno and its number-conversion scratch there) and with
 * interrupts off, so nothing else can use that structure meanwhile.
 */
#include <stdio.h>
#include <reent.h>
#include "kernel.h"

#define PRINTK_BUF	1024

static DEFINE_SPINLOCK(console_lock);
static struct _reent printk_reent[NR_CPUS];
static bool reent_ready[NR_CPUS];
static char printk_buf[NR_CPUS][PRINTK_BUF];

/*
 * A copy of the console output, from every CPU, for tests and for the
 * demos' own tests (console_capture()); console_lock guards it.
 */
static struct { char *buf; size_t size, len; } capture;

void console_capture(char *buf, size_t size)
{
	unsigned long flags;

	spin_lock_irqsave(&console_lock, flags);
	capture.buf = buf;
	capture.size = size;
	capture.len = 0;
	if (buf && size)
		buf[0] = '\0';
	spin_unlock_irqrestore(&console_lock, flags);
}

/* Appends to the capture, if one is on; console_lock held. */
static void capture_append(const char *s, size_t n)
{
	if (!capture.buf || !capture.size)
		return;
	n = min(n, capture.size - capture.len - 1);
	memcpy(capture.buf + capture.len, s, n);
	capture.len += n;
	capture.buf[capture.len] = '\0';
}

static void console_emit(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(s[i]);
	}
}

void console_write_unlocked(const char *s, size_t n)
{
	console_emit(s, n);
}

int vprintk(const char *fmt, va_list ap)
{
	unsigned long flags = arch_irq_save();
	int cpu = smp_processor_id();
	char *buf = printk_buf[cpu];
	int n;

	if (!reent_ready[cpu]) {
		_REENT_INIT_PTR(&printk_reent[cpu]);
		reent_ready[cpu] = true;
	}
	n = _vsnprintf_r(&printk_reent[cpu], buf, PRINTK_BUF, fmt, ap);
	if (n < 0)
		n = 0;
	if (n >= PRINTK_BUF) {
		n = PRINTK_BUF - 1;
		buf[n - 1] = '\n';	/* a cut message still ends its line */
	}
	if (panic_in_progress()) {
		/* The other CPUs are stopped and one may hold the lock forever. */
		console_emit(buf, n);
	} else if (this_cpu()->in_nmi) {
		/* An NMI may have stopped this CPU inside printk: wait, but not forever. */
		u64 end = ktime_get_ns() + 50 * NSEC_PER_MSEC;
		bool locked;

		while (!(locked = spin_trylock(&console_lock)) && ktime_get_ns() < end)
			cpu_relax();
		console_emit(buf, n);
		if (locked) {
			capture_append(buf, n);
			spin_unlock(&console_lock);
		}
	} else {
		spin_lock(&console_lock);
		console_emit(buf, n);
		capture_append(buf, n);
		spin_unlock(&console_lock);
	}
	arch_irq_restore(flags);
	return n;
}

int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

int console_getc(void)
{
	return arch_console_getc();
}
