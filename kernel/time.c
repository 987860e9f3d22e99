/* Busy-wait delays on the monotonic clock; they never schedule. */
#include "kernel.h"

volatile u64 jiffies;

/*
 * ndelay() spins between reads of the clock, because reading it is no
 * plain load under emulation: QEMU's TCG serves x86-64's rdtsc under a
 * spinlock that every vCPU shares (cpu_get_ticks()), and with more vCPUs
 * than host cores the host often deschedules a vCPU while it holds it.
 * Readers spinning in udelay() on 64 vCPUs then waited on that lock for
 * most of their time (80% of QEMU's CPU time at SMP=64, perf).  So, as
 * Linux calibrates loops_per_jiffy at boot, delay_calibrate() measures
 * how fast spin() spins, and ndelay() spins for what is left of the
 * delay (at most DELAY_MAX_SPIN_NS) before it reads the clock again: a
 * 20 us delay reads it about twice (90 times before).  It never returns
 * early, since only the clock says when the delay is over, and the cap
 * bounds how late it can be when the spinning runs slower than at boot (a
 * vCPU that the host gives half a core spins half as fast).
 */
#define DELAY_CALIBRATE_SPINS	100000
#define DELAY_MAX_SPIN_NS	20000	/* the longest spin between two reads */

static u64 delay_spins_per_us = 1;	/* until delay_calibrate(): a read every spin */

static void spin(u64 n)
{
	for (u64 i = 0; i < n; i++)
		cpu_relax();	/* a compiler barrier: the loop is not optimized away */
}

void delay_calibrate(void)
{
	u64 t0 = ktime_get_ns(), ns;

	spin(DELAY_CALIBRATE_SPINS);
	ns = ktime_get_ns() - t0;
	delay_spins_per_us = max(1ULL, DELAY_CALIBRATE_SPINS * NSEC_PER_USEC / max(ns, 1ULL));
	printk("delay: calibrated at %llu spins per microsecond\n",
	       (unsigned long long)delay_spins_per_us);
}

void ndelay(u64 ns)
{
	u64 now = ktime_get_ns(), end = now + ns;

	while (now < end) {
		u64 spin_ns = min(end - now, (u64)DELAY_MAX_SPIN_NS);

		spin(spin_ns * delay_spins_per_us / NSEC_PER_USEC + 1);
		now = ktime_get_ns();
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
