/*
 * Device interrupts, with the one device every machine here has: the
 * console UART's receive interrupt (x86-64 COM1's IRQ 4 through the I/O
 * APIC, AArch64 the PL011's SPI through the GIC).  The runner types on
 * the serial line when asked (ktest_type_on_console(), tools/run.py), so
 * each character really comes in through the UART.
 */
#include "ktest.h"
#include "irq.h"

#define TYPED_WAIT_NS	ktest_budget_ns(60, 4)

/* Everything the console's ring holds now, thrown away. */
static void drain_console(void)
{
	while (console_getc() >= 0)
		;
}

/* Waits for want, character by character, on console_getc(); false on timeout. */
static bool read_typed(const char *want)
{
	u64 end = ktime_get_ns() + TYPED_WAIT_NS;
	const char *p = want;

	while (*p) {
		int c = console_getc();

		if (c < 0) {
			if (ktime_get_ns() > end)
				break;
			msleep(5);
			continue;
		}
		if (c != *p) {
			ktest_info("typed %#x where %#x was expected", c, (unsigned char)*p);
			return false;
		}
		p++;
	}
	if (*p)
		ktest_info("%zu of %zu characters came in", (size_t)(p - want), strlen(want));
	return !*p;
}

/*
 * The line routed to each CPU in turn, the test's own last: every
 * character typed must come in, and the interrupts that brought them
 * must have arrived on that CPU and no other.  (Without the end of
 * interrupt the controller would hold back the next one: the second
 * character would never come.)
 */
KTEST(irq_console_rx_arrives_on_the_routed_cpu)
{
	int irq = console_input_irq(), self = smp_processor_id();
	unsigned long before[NR_CPUS];
	char text[16];
	int cpu;

	if (irq < 0)
		KTEST_SKIP("console input is polled here (no interrupt line)");
	if (!console_input_held())
		KTEST_SKIP("a driver holds the console's line (the console server: console.server=0)");
	if (num_online_cpus() == 1)
		ktest_info("one CPU: the interrupt arrives on the test's own");
	drain_console();
	for (int i = 1; i <= nr_cpu_ids; i++) {
		cpu = (self + i) % nr_cpu_ids;
		if (!cpu_online(cpu))
			continue;
		KASSERT_EQ(irq_set_affinity(irq, cpu), 0);
		for (int c = 0; c < nr_cpu_ids; c++)
			before[c] = console_rx_interrupts(c);
		snprintf(text, sizeof(text), "cpu%d!\n", cpu);
		if (!ktest_type_on_console(text)) {
			irq_set_affinity(irq, 0);
			KTEST_SKIP("nobody types on the serial line (run from the monitor)");
		}
		KEXPECT(read_typed(text));
		for (int c = 0; c < nr_cpu_ids; c++) {
			if (c == cpu)
				KEXPECT(console_rx_interrupts(c) > before[c]);
			else
				KEXPECT_EQ(console_rx_interrupts(c), before[c]);
		}
	}
	KEXPECT_EQ(irq_set_affinity(irq, 0), 0);
}

/* Waits until the line has counted want unclaimed arrivals. */
static bool wait_unclaimed(int irq, unsigned long want)
{
	u64 end = ktime_get_ns() + TYPED_WAIT_NS;
	struct irq_stats st;

	while (irq_get_stats(irq, &st) && st.unclaimed < want && ktime_get_ns() < end)
		msleep(5);
	return irq_get_stats(irq, &st) && st.unclaimed >= want;
}

static char said[8192];

static int count_of(const char *hay, const char *needle)
{
	int n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

/*
 * The receive side with nobody on it: the test reads the UART itself,
 * until c came in.  (Waiting for c, not for a count of interrupts: an
 * edge line may count more than one for a character, and a character
 * still on its way would reach whoever holds the line next.)
 */
static bool read_uart_until(char c)
{
	u64 end = ktime_get_ns() + TYPED_WAIT_NS;
	int got;

	while ((got = arch_console_getc()) != c) {
		if (got < 0 && ktime_get_ns() > end)
			return false;
		if (got < 0)
			msleep(5);
	}
	return true;
}

/*
 * The kernel lets the console's line go; a character typed then raises
 * an interrupt nobody holds: counted, and said once.  A level-triggered
 * line (the PL011's) is masked then, or it would fire for ever; an
 * edge-triggered one (COM1's) stays open, and its next arrival is
 * counted without a second message.
 */
KTEST(irq_nobody_holds_is_counted_and_said_once)
{
	int irq = console_input_irq();
	struct irq_stats st;
	unsigned long base;

	if (irq < 0)
		KTEST_SKIP("console input is polled here (no interrupt line)");
	if (!console_input_held())
		KTEST_SKIP("a driver holds the console's line (the console server: console.server=0)");
	drain_console();
	console_input_release();
	KASSERT(irq_get_stats(irq, &st));
	base = st.unclaimed;
	console_capture(said, sizeof(said));
	if (!ktest_type_on_console("x")) {
		console_capture(NULL, 0);
		KEXPECT_EQ(console_input_reclaim(), 0);
		KTEST_SKIP("nobody types on the serial line (run from the monitor)");
	}
	KEXPECT(wait_unclaimed(irq, base + 1));
	KEXPECT(irq_get_stats(irq, &st) && !st.held);
	KEXPECT(read_uart_until('x'));
	if (st.level) {
		KEXPECT(st.masked);
	} else {
		KEXPECT(!st.masked);
		ktest_type_on_console("y");
		KEXPECT(read_uart_until('y'));
		KEXPECT(wait_unclaimed(irq, base + 2));
	}
	console_capture(NULL, 0);
	KEXPECT_EQ(count_of(said, "and nobody holds it"), 1);
	KEXPECT(strstr(said, "its last holder was console"));
	KEXPECT_EQ(console_input_reclaim(), 0);
	KEXPECT(irq_get_stats(irq, &st) && st.held && !st.masked);
}
