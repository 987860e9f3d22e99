/*
 * Time.  ktime_get_ns() is a monotonic clock since boot (x86-64: the TSC
 * calibrated against the PIT; AArch64: the generic timer).  The timer
 * tick runs at HZ on every CPU and never preempts: it only counts and
 * wakes sleepers.  udelay()/mdelay() are pure busy waits that never
 * schedule, so they are legal anywhere, even inside rcu_read_lock().
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include "types.h"
#include "param.h"	/* HZ */

#define NSEC_PER_USEC	1000ULL
#define NSEC_PER_MSEC	1000000ULL
#define NSEC_PER_SEC	1000000000ULL

extern volatile u64 jiffies;	/* ticks since boot, counted by CPU 0 */

u64 arch_clock_ns(void);
/* (inline: the scheduler stamps every switch with it, for the stall reports) */
static inline u64 ktime_get_ns(void)
{
	return arch_clock_ns();
}
void delay_calibrate(void);
void ndelay(u64 ns);
void udelay(u64 us);
void mdelay(u64 ms);

#endif
