/* Busy-wait delays on the monotonic clock; they never schedule. */
#include "kernel.h"

volatile u64 jiffies;

u64 ktime_get_ns(void)
{
	return arch_clock_ns();
}

void ndelay(u64 ns)
{
	u64 end = ktime_get_ns() + ns;

	while (ktime_get_ns() < end)
		cpu_relax();
}

void udelay(u64 us)
{
	ndelay(us * NSEC_PER_USEC);
}

void mdelay(u64 ms)
{
	ndelay(ms * NSEC_PER_MSEC);
}
