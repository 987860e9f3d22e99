#ifndef KERNEL_PRINTK_H
#define KERNEL_PRINTK_H

#include <stdarg.h>
#include "compiler.h"
#include "atomic.h"

/*
 * Formats with newlib's vsnprintf and writes the result to the serial
 * console in one piece: lines from different CPUs never interleave.
 */
int printk(const char *fmt, ...) __printf(1, 2);
int vprintk(const char *fmt, va_list ap);

#define pr_emerg(fmt, ...)	printk(fmt, ##__VA_ARGS__)
#define pr_err(fmt, ...)	printk(fmt, ##__VA_ARGS__)
#define pr_warn(fmt, ...)	printk(fmt, ##__VA_ARGS__)
#define pr_info(fmt, ...)	printk(fmt, ##__VA_ARGS__)
#define pr_debug(fmt, ...)	do { } while (0)

/*
 * Copies all console output, from every CPU, into buf too (NULL stops);
 * for tests.  When buf fills up, it keeps the start.
 */
void console_capture(char *buf, size_t size);
/* For tests: console_capture() calls it, if set, while it holds the console lock. */
extern void (*console_capture_hook)(void);
/* NMI messages held back because their CPU was inside printk (for tests). */
extern atomic_t printk_nmi_held;

/*
 * Console input (kernel/console_input.c), for the monitor and the demos:
 * the next character typed, -1 when nothing is waiting.
 */
int console_getc(void);
void console_input_init(void);
/* The UART's receive interrupt line (-1: input is polled). */
int console_input_irq(void);
/* Does the kernel's own handler hold it (not a driver: the boot's console server)? */
bool console_input_held(void);
/* The kernel lets the line go (a driver takes it), and takes it back: 0 or -errno. */
void console_input_release(void);
int console_input_reclaim(void);
/* Keys read by whoever holds the line, for console_getc()'s readers. */
void console_input_push(const char *s, size_t n);
/* Receive interrupts the kernel's handler took on cpu (tests). */
unsigned long console_rx_interrupts(int cpu);

/* Writes n bytes to the console as they are, in one piece (newlib's write()). */
void console_write(const char *s, size_t n);

/* Used by panic: writes without the console lock a stopped CPU may hold. */
void console_write_unlocked(const char *s, size_t n);

#endif
