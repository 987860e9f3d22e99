/*
 * printk: newlib's vsnprintf formats into a buffer, then the whole message
 * goes out under the console lock, so lines from different CPUs never
 * interleave.  Each CPU formats into its own buffer with interrupts off,
 * so no interrupt handler can use that buffer meanwhile, and with newlib's
 * reentrancy structure of the context it runs in (lib/newlib_glue.c).
 *
 * An NMI can still arrive inside printk (x86-64: a backtrace request for
 * a stall report), so NMI context has a buffer of its own, and never
 * waits for the console lock when its own CPU holds it (inside printk or
 * console_capture()) -- it would wait for the code it interrupted,
 * forever.  Its message is then held back and written by the interrupted
 * code right after its own line, so both come out whole.
 */
#include <stdio.h>
#include <reent.h>
#include "kernel.h"

#define PRINTK_BUF	1024
#define NMI_HELD_BUF	4096

static DEFINE_SPINLOCK(console_lock);
static char printk_buf[NR_CPUS][PRINTK_BUF], nmi_buf[NR_CPUS][PRINTK_BUF];

/* > 0 while this CPU takes or holds the console lock outside NMI context (console_lock_cpu()). */
static int in_printk[NR_CPUS];

/* NMI messages held back while their CPU was inside printk. */
static struct {
	char buf[NMI_HELD_BUF];
	size_t len;		/* appended by the NMI, reset by the flush */
	size_t dropped;		/* bytes that did not fit */
} nmi_held[NR_CPUS];
atomic_t printk_nmi_held;

/*
 * A copy of the console output, from every CPU, for tests and for the
 * demos' own tests (console_capture()).  console_emit() appends to it,
 * always under console_lock but on the panic path, where nothing else runs.
 */
static struct { char *buf; size_t size, len; } capture;

void (*console_capture_hook)(void);

static bool console_lock_cpu(int cpu);
static void console_unlock_cpu(int cpu, bool locked);

/*
 * Takes the console lock as printk does, so an NMI arriving meanwhile
 * (a stall report's backtrace request) holds its message back instead of
 * waiting for the lock its own CPU holds.
 */
void console_capture(char *buf, size_t size)
{
	unsigned long flags = arch_irq_save();
	int cpu = smp_processor_id();
	bool locked = console_lock_cpu(cpu);
	void (*hook)(void) = READ_ONCE(console_capture_hook);

	capture.buf = buf;
	capture.size = size;
	capture.len = 0;
	if (buf && size)
		buf[0] = '\0';
	if (hook)
		hook();		/* a test: an NMI sent to ourselves, with the lock held */
	console_unlock_cpu(cpu, locked);
	arch_irq_restore(flags);
}

/* Appends to the capture, if one is on; when it fills up it keeps the start. */
static void capture_append(const char *s, size_t n)
{
	if (!capture.buf || !capture.size)
		return;
	n = min(n, capture.size - capture.len - 1);
	memcpy(capture.buf + capture.len, s, n);
	capture.len += n;
	capture.buf[capture.len] = '\0';
}

/*
 * Writes to the serial port, and to the capture: the capture shows what
 * the console shows, held NMI messages included.
 */
static void console_emit(const char *s, size_t n)
{
	capture_append(s, n);
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

/*
 * Formats into buf with newlib, in this context's reentrancy structure
 * (_REENT: lib/newlib_glue.c); returns the length, a cut message still
 * ending its line.
 */
static int format(char *buf, const char *fmt, va_list ap)
{
	int n = _vsnprintf_r(_REENT, buf, PRINTK_BUF, fmt, ap);

	if (n < 0)
		n = 0;
	if (n >= PRINTK_BUF) {
		n = PRINTK_BUF - 1;
		buf[n - 1] = '\n';
	}
	return n;
}

/*
 * Writes what NMIs held back on this CPU; called with the console lock.
 * An NMI may append while we write: we go on until the length we reset
 * from is the length we wrote.  The compare-and-exchange closes the race
 * with our own NMI appending between our last read and the reset; no
 * other CPU touches nmi_held[cpu], so it needs no ordering (relaxed).
 */
static void flush_nmi_held(int cpu)
{
	size_t done = 0, len;

	for (;;) {
		len = READ_ONCE(nmi_held[cpu].len);
		if (len > done) {
			console_emit(nmi_held[cpu].buf + done, len - done);
			done = len;
			continue;
		}
		if (__atomic_compare_exchange_n(&nmi_held[cpu].len, &len, 0, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			break;
	}
	if (nmi_held[cpu].dropped) {
		char note[64];
		int n = snprintf(note, sizeof(note), "[%zu bytes of NMI output dropped]\n",
				 nmi_held[cpu].dropped);

		nmi_held[cpu].dropped = 0;
		console_emit(note, n);
	}
}

/* NMI context, its CPU inside printk: keep the message for that printk to write. */
static void hold_nmi_message(int cpu, const char *s, size_t n)
{
	size_t len = nmi_held[cpu].len, room = NMI_HELD_BUF - len;

	if (n > room) {
		nmi_held[cpu].dropped += n - room;
		n = room;
	}
	memcpy(nmi_held[cpu].buf + len, s, n);
	WRITE_ONCE(nmi_held[cpu].len, len + n);
	atomic_inc(&printk_nmi_held);
}

static int vprintk_nmi(int cpu, const char *fmt, va_list ap)
{
	char *buf = nmi_buf[cpu];
	int n = format(buf, fmt, ap);

	if (panic_in_progress()) {
		console_emit(buf, n);
	} else if (READ_ONCE(in_printk[cpu])) {
		hold_nmi_message(cpu, buf, n);	/* the console lock may be ours */
	} else {
		/* Held, if at all, by another CPU, which will let it go. */
		spin_lock(&console_lock);
		console_emit(buf, n);
		spin_unlock(&console_lock);
	}
	return n;
}

/*
 * The console lock as this CPU's own NMI must see it: in_printk is raised
 * first, so an NMI that finds the lock taken by its own CPU holds its
 * message back instead of waiting forever.  Our NMI reads in_printk
 * between any two of our instructions: compiler barriers keep the
 * accesses where they are.  Interrupts are off.  Returns false, without
 * the lock, once a panic is in progress: the other CPUs are stopped and
 * one may hold the lock forever.
 */
static bool console_lock_cpu(int cpu)
{
	WRITE_ONCE(in_printk[cpu], in_printk[cpu] + 1);
	barrier();
	if (panic_in_progress())
		return false;
	spin_lock(&console_lock);
	return true;
}

/* Writes what NMIs held back meanwhile, then lets the lock go. */
static void console_release(int cpu, bool locked)
{
	if (locked) {
		flush_nmi_held(cpu);
		spin_unlock(&console_lock);
	}
	barrier();
	WRITE_ONCE(in_printk[cpu], in_printk[cpu] - 1);
	barrier();
}

static void console_unlock_cpu(int cpu, bool locked)
{
	console_release(cpu, locked);
	/* An NMI between the flush and here held its message back: write it now. */
	while (READ_ONCE(nmi_held[cpu].len) && !panic_in_progress())
		console_release(cpu, console_lock_cpu(cpu));
}

/* Writes s to the console in one piece; interrupts are off. */
static void console_output(int cpu, const char *s, size_t n)
{
	bool locked = console_lock_cpu(cpu);

	console_emit(s, n);
	console_unlock_cpu(cpu, locked);
}

int vprintk(const char *fmt, va_list ap)
{
	unsigned long flags = arch_irq_save();
	int cpu = smp_processor_id();
	int n;

	if (this_cpu()->in_nmi)
		n = vprintk_nmi(cpu, fmt, ap);
	else {
		/* An NMI while we format uses its own buffer: no need to tell it. */
		n = format(printk_buf[cpu], fmt, ap);
		console_output(cpu, printk_buf[cpu], n);
	}
	arch_irq_restore(flags);
	return n;
}

void console_write(const char *s, size_t n)
{
	unsigned long flags = arch_irq_save();

	console_output(smp_processor_id(), s, n);
	arch_irq_restore(flags);
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
