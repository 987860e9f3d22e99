/* Busy-wait delays on the monotonic clock; they never schedule. */
#include "kernel.h"

volatile u64 jiffies;

u64 ktime_get_ns(void)
{
	return arch_clock_ns();
}

/*
 * Spins between two reads of the clock in ndelay().  Reading the clock is
 * no plain load under emulation: QEMU's TCG serves x86-64's rdtsc under a
 * lock that every vCPU shares (cpu_get_ticks()), and a delay loop that
 * reads it back to back on 64 vCPUs made them wait on each other for
 * seconds.  A few hundred spins between reads cost a delay well under a
 * microsecond of precision.
 */
#define DELAY_SPINS_PER_READ	256

void ndelay(u64 ns)
{
	u64 end = ktime_get_ns() + ns;

	while (ktime_get_ns() < end) {
		for (int i = 0; i < DELAY_SPINS_PER_READ; i++)
			cpu_relax();
	}
}

void udelay(u64 us)
{
	ndelay(us * NSEC_PER_USEC);
}

void mdelay(u64 ms)
{
	ndelay(ms * NSEC_PER_MSEC);
}
