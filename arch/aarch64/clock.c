/*
 * The generic timer: the monotonic clock from the virtual counter
 * (CNTVCT_EL0, at CNTFRQ_EL0: 62.5 MHz under QEMU), and the per-CPU tick
 * at HZ from the EL1 virtual timer (its PPI is dispatched by gic.c).
 */
#include "aarch64.h"

#define CNTV_CTL_ENABLE	(1U << 0)

static u64 counter_at_boot;
static u64 ns_per_count_q32;	/* nanoseconds per counter tick, 32.32 fixed point */
static u64 counter_freq;
u32 timer_interval;		/* counter ticks per kernel tick */

/* The isb keeps the counter read from being done early, out of program order. */
static inline u64 read_counter(void)
{
	isb();
	return read_sysreg(cntvct_el0);
}

void clock_init(void)
{
	counter_freq = read_sysreg(cntfrq_el0);
	if (!counter_freq)
		counter_freq = 62500000;	/* firmware left it unset: QEMU's value */
	ns_per_count_q32 = (NSEC_PER_SEC << 32) / counter_freq;
	timer_interval = counter_freq / HZ;
	counter_at_boot = read_counter();
}

u64 arch_cycles(void)
{
	return read_counter();
}

u64 arch_clock_ns(void)
{
	if (!ns_per_count_q32)
		return 0;
	return (u64)(((unsigned __int128)(read_counter() - counter_at_boot) *
		      ns_per_count_q32) >> 32);
}

/* Per CPU: the first tick one interval from now. */
void timer_cpu_init(void)
{
	write_sysreg(cntv_cval_el0, read_counter() + timer_interval);
	write_sysreg(cntv_ctl_el0, CNTV_CTL_ENABLE);
	isb();
}

/*
 * Re-arms the timer one interval after the last deadline (no drift), or
 * from now if we fell behind (a long stretch with interrupts off).  The
 * timer's level drops once the deadline is in the future, before the EOI.
 */
void timer_handle(void)
{
	u64 next = read_sysreg(cntv_cval_el0) + timer_interval;
	u64 now = read_counter();

	if (next <= now)
		next = now + timer_interval;
	write_sysreg(cntv_cval_el0, next);
	isb();
}
