/*
 * irq_driver: the console UART's receive side driven from user mode, as
 * small as can be, for tests/irq_driver.c, which grants it an interrupt
 * capability for the UART's line in slot 0 and one for its registers in
 * slot 1 (the kernel lets the line go first).
 *
 *   irq_driver serve CPU TEXT  moves to CPU, gets the registers, binds the
 *                              line to a notification; on each interrupt
 *                              reads what the UART holds and acknowledges,
 *                              until TEXT came in; exits with 64 + the CPU
 *                              it woke on (7: other characters came)
 *   irq_driver hold CPU        binds, then waits for ever (to be killed)
 *   irq_driver late CPU TEXT LEVEL
 *                              as serve, but takes its first interrupt and
 *                              neither reads the UART nor acknowledges
 *                              until the test signals GO_BIT on the same
 *                              notification: another interrupt before that
 *                              exits 11.  Then it acknowledges, and on a
 *                              level line (LEVEL 1: the UART still asserts
 *                              it) waits for the interrupt once more (12:
 *                              something else came) before it serves
 *   irq_driver poke CPU        gets the registers, then touches a device it
 *                              was not given (x86-64: the PIC's port 0x21;
 *                              AArch64: the GIC distributor's address): killed
 *   irq_driver grab CPU        gets the registers, reads the UART's status, exits 0
 *   irq_driver two CPU         gets the registers and a second device's (slot
 *                              2), reads both, exits 0 (10: the second refused)
 *   irq_driver drop CPU        gets the registers; a second thread on another
 *                              CPU reads the UART's status over and over while
 *                              the first deletes the device capability: the
 *                              reader is killed (exits 9 if not, 2 s later)
 *   irq_driver sneak CPU       reads the UART's status without asking for its
 *                              registers (x86-64: COM1's port; AArch64: the
 *                              PL011's physical address): killed
 *
 * A bind that fails exits with its error (16: -SYS_EBUSY, someone holds
 * the line).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "qcap.h"
#include "quart.h"

#define IRQ		0
#define DEV		1
#define DEV2		2		/* a second device (tests/irq_driver.c) */
#define IRQ_BIT		1
#define GO_BIT		2		/* late: the test's go-ahead */

/* What it touches without being given it: the PIC's port, the GIC; and the UART itself. */
#if defined(__x86_64__)
#define NOT_GIVEN	0x21		/* the PIC's mask register */
#define COM1_LSR	0x3fd		/* COM1's line status */

static int inb(unsigned short p)
{
	unsigned char v;

	__asm__ __volatile__("inb %w1, %b0" : "=a"(v) : "Nd"(p));
	return v;
}

static void poke(void)
{
	inb(NOT_GIVEN);
}

static void sneak(void)
{
	inb(COM1_LSR);
}

/* The second device: its line status register, at the first port it was given. */
static void read_second(long where)
{
	inb(where + 5);
}
#else
#define NOT_GIVEN	0x08000000UL	/* QEMU virt's GIC distributor */
#define PL011_FR	0x09000018UL	/* QEMU virt's UART's flags, where they are physically */

static void poke(void)
{
	(void)*(volatile unsigned int *)NOT_GIVEN;
}

static void sneak(void)
{
	(void)*(volatile unsigned int *)PL011_FR;
}

/* The second device: its first register, where it was mapped. */
static void read_second(long where)
{
	(void)*(volatile unsigned int *)where;
}
#endif

static int reading;

/* drop's second thread: reads the UART until the grant is gone and the fault kills us. */
static int __attribute__((noreturn)) read_on(void *arg)
{
	(void)arg;
	for (;;) {
		q_uart_getc();
		__atomic_store_n(&reading, 1, __ATOMIC_RELEASE);
	}
}

static int drop(int cpu)
{
	int other = (cpu + 1) % q_nr_cpus();

	if (q_uart_map(DEV) < 0)
		return 8;
	if (q_thread_create(read_on, NULL, other) < 0)
		return 4;
	while (!__atomic_load_n(&reading, __ATOMIC_ACQUIRE))
		q_yield();
	if (q_cap_delete(DEV) < 0)
		return 5;
	q_sleep_ns(2000000000ULL);	/* the reader must be killed meanwhile */
	return 9;
}

/* Takes what the UART holds, checking it against want: 0, or 7 (another character). */
static int take(const char *want, size_t n, size_t *got)
{
	int c;

	while (*got < n && (c = q_uart_getc()) >= 0) {
		if (c != want[(*got)++]) {
			printf("irq_driver: read %#x where %#x was expected\n", c, want[*got - 1]);
			return 7;
		}
	}
	return 0;
}

/*
 * Reads until want came in.  After each ack it looks once more: a
 * character that came while the line was masked raised an edge nobody
 * saw (COM1's line is edge-triggered), and no new edge comes until the
 * UART is read.
 */
static int serve(int ntf, const char *want, bool woken)
{
	size_t got = 0, n = strlen(want);
	int ret = 0;

	while (!ret && got < n) {
		if (!woken && q_wait(ntf) != IRQ_BIT)
			return 5;
		woken = false;
		ret = take(want, n, &got);
		if (q_irq_ack(IRQ) < 0)
			return 6;
		if (!ret)
			ret = take(want, n, &got);
	}
	return ret;
}

/* late: the line stays masked from the interrupt until our acknowledgement. */
static int late(int ntf, bool level, const char *want)
{
	long bits;

	if (q_wait(ntf) != IRQ_BIT)
		return 5;
	bits = q_wait(ntf);		/* the test's go-ahead; the UART is not read */
	if (bits & IRQ_BIT) {
		printf("irq_driver: a second interrupt before the acknowledgement\n");
		return 11;
	}
	if (bits != GO_BIT)
		return 5;
	if (q_irq_ack(IRQ) < 0)
		return 6;
	if (level && q_wait(ntf) != IRQ_BIT)
		return 12;
	return serve(ntf, want, true);
}

int main(int argc, char **argv)
{
	int ntf, cpu, ret;
	long err;

	if (argc < 3)
		return 2;
	cpu = atoi(argv[2]);
	if (q_set_cpu(cpu) < 0)
		return 3;
	if (!strcmp(argv[1], "poke") || !strcmp(argv[1], "grab")) {
		if (q_uart_map(DEV) < 0)
			return 8;
		q_uart_getc();
		if (!strcmp(argv[1], "grab"))
			return 0;
		poke();
		return 9;		/* not killed: it was given after all */
	}
	if (!strcmp(argv[1], "drop"))
		return drop(cpu);
	if (!strcmp(argv[1], "two")) {
		long second;

		if (q_uart_map(DEV) < 0)
			return 8;
		second = q_dev_map(DEV2, NULL);
		if (second < 0) {
			printf("irq_driver: the second device: error %ld\n", -second);
			return 10;
		}
		q_uart_getc();
		read_second(second);
		return 0;
	}
	if (!strcmp(argv[1], "sneak")) {
		sneak();
		return 9;
	}
	ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	if (ntf < 0)
		return 4;
	if (strcmp(argv[1], "hold") && (err = q_uart_map(DEV)) < 0) {
		printf("irq_driver: the device's registers: error %ld\n", -err);
		return 8;
	}
	ret = q_irq_bind(IRQ, ntf, IRQ_BIT);
	if (ret < 0) {
		printf("irq_driver: bind: error %d\n", -ret);
		return -ret;
	}
	if (!strcmp(argv[1], "hold")) {
		for (;;)
			q_wait(ntf);
	}
	if (!strcmp(argv[1], "late"))
		ret = argc > 4 ? late(ntf, atoi(argv[4]), argv[3]) : 2;
	else
		ret = serve(ntf, argc > 3 ? argv[3] : "", false);
	return ret ? ret : 64 + q_cpu();
}
