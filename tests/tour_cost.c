/*
 * What one synchronize_rcu() tour over idle CPUs costs, event by event:
 * the trace of a few tours, for tools/tourcost.py (docs/rcu.md, "What a
 * hop costs"), beside two IPI round trips timed in the same run: back to
 * back (as make bench times it), and to a CPU that has halted first (as
 * every hop of a tour over idle CPUs finds its target).
 */
#include "ktest.h"
#include <stdlib.h>

#define TC_TOURS	10
#define TC_IPIS		50
#define TC_HALTED_IPIS	9	/* an odd count: the median is one of them */
#define TC_HALT_MS	3	/* long enough for the target to halt and its vCPU to sleep */

static void tc_noop(void *info)
{
	(void)info;
}

/* Nanoseconds of one IPI round trip to `cpu`, the sender spinning (as make bench times it). */
static u64 tc_ipi_round_trip(int cpu)
{
	u64 t0 = ktime_get_ns();

	for (int i = 0; i < TC_IPIS; i++)
		smp_call_function_single(cpu, tc_noop, NULL, true);
	return (ktime_get_ns() - t0) / TC_IPIS;
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/*
 * Nanoseconds of one IPI round trip to `cpu` after it has sat idle for
 * TC_HALT_MS (the median of TC_HALTED_IPIS): the target has halted, and
 * under emulation its vCPU thread sleeps in the host, which must wake it,
 * as it must for every hop of a tour over idle CPUs.  Back to back, the
 * next IPI mostly reaches a target that has not halted yet.
 */
static u64 tc_halted_ipi_round_trip(int cpu)
{
	u64 ns[TC_HALTED_IPIS];

	for (int i = 0; i < TC_HALTED_IPIS; i++) {
		u64 t0;

		msleep(TC_HALT_MS);
		t0 = ktime_get_ns();
		smp_call_function_single(cpu, tc_noop, NULL, true);
		ns[i] = ktime_get_ns() - t0;
	}
	qsort(ns, TC_HALTED_IPIS, sizeof(ns[0]), cmp_u64);
	return ns[TC_HALTED_IPIS / 2];
}

/*
 * Every other CPU idle (nothing else runs during the suite's tests), so
 * every hop to another CPU finds it in its idle loop, most often halted:
 * the scheduler must kick it, an IPI per hop.  A hop that the target's
 * tick wakes instead (a lost kick) costs up to 10 ms; tools/tourcost.py
 * counts those from the dump, this test that the kicks were sent.
 */
KTEST(tour_cost_idle_tours_kick_each_cpu)
{
	int ncpu = num_online_cpus(), home = smp_processor_id();
	bool was_on = trace_enabled;
	u64 t0, tours_ns, kicks, ipi_ns = 0, halted_ipi_ns = 0;

	if (ncpu > 1) {
		ipi_ns = tc_ipi_round_trip(home == 0 ? 1 : 0);
		halted_ipi_ns = tc_halted_ipi_round_trip(home == 0 ? 1 : 0);
	}
	trace_stop();
	trace_clear();
	msleep(20);		/* the other CPUs settle in their idle loops */
	WRITE_ONCE(trace_sched_events, true);	/* kick, irq, halt, unhalt */
	trace_start();
	trace_mark("idle tours");
	t0 = ktime_get_ns();
	for (int i = 0; i < TC_TOURS; i++)
		synchronize_rcu();
	tours_ns = ktime_get_ns() - t0;
	trace_stop();
	WRITE_ONCE(trace_sched_events, false);
	kicks = trace_count(TR_KICK);
	KEXPECT_EQ(trace_count(TR_SYNC_END), TC_TOURS);
	/* Each tour leaves home for every other CPU and comes back to it. */
	KEXPECT_EQ(trace_count(TR_HOP), (u64)TC_TOURS * (ncpu + 1));
	/*
	 * A hop to another CPU whose idle task runs kicks it; a tour over
	 * idle CPUs makes ncpu such hops (out to ncpu - 1, home again).
	 * Some may find a CPU still busy (its rcuc thread, say) and need no
	 * kick, but never most of them.
	 */
	if (ncpu > 1)
		KEXPECT(kicks >= (u64)TC_TOURS * ncpu / 2);
	ktest_info("%d CPUs: %d tours, %llu ns per tour, %llu ns per hop; %llu kicks; "
		   "IPI round trip %llu ns, to a halted CPU %llu ns", ncpu, TC_TOURS,
		   (unsigned long long)(tours_ns / TC_TOURS),
		   (unsigned long long)(tours_ns / TC_TOURS / (ncpu + 1)),
		   (unsigned long long)kicks, (unsigned long long)ipi_ns,
		   (unsigned long long)halted_ipi_ns);
	trace_dump();
	trace_clear();
	if (was_on)
		trace_start();
}
