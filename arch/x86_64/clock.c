/*
 * The monotonic clock: the TSC, calibrated once against the PIT (whose
 * 1.193182 MHz input is fixed).  Under TCG the TSC is not invariant and
 * neighbouring reads differ by up to ~100 ticks, which is fine for a
 * nanosecond clock of microsecond precision.
 */
#include "x86.h"

#define PIT_HZ		1193182ULL
#define CALIBRATE_MS	10

static u64 tsc_at_boot;
static u64 ns_per_tsc_q32;	/* nanoseconds per TSC tick, 32.32 fixed point */
u64 tsc_khz;

void clock_init(void)
{
	u16 latch = PIT_HZ * CALIBRATE_MS / 1000;
	u64 t0, t1;

	/* PIT channel 2, gate on, speaker off; mode 0 raises OUT2 at zero. */
	outb(0x61, (inb(0x61) & ~0x02) | 0x01);
	outb(0x43, 0xb0);
	outb(0x42, latch & 0xff);
	outb(0x42, latch >> 8);
	t0 = rdtsc();
	while (!(inb(0x61) & 0x20))
		;
	t1 = rdtsc();
	tsc_khz = (t1 - t0) / CALIBRATE_MS;
	ns_per_tsc_q32 = (1000000ULL << 32) / tsc_khz;
	tsc_at_boot = t0;
}

u64 arch_cycles(void)
{
	return rdtsc();
}

u64 arch_clock_ns(void)
{
	if (!ns_per_tsc_q32)
		return 0;
	return (u64)(((unsigned __int128)(rdtsc() - tsc_at_boot) * ns_per_tsc_q32) >> 32);
}
