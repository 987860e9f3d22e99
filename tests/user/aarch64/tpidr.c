/*
 * AArch64: TPIDR_EL0 is the thread's own.  User mode may write it itself
 * (msr, as glibc does), and the kernel keeps what it wrote: two threads
 * on one CPU each set their own value, then yield to each other and spin
 * through ticks (interrupts, preemption) many times, and each must read
 * back only its own.  (The runtime's thread pointer is put back before
 * anything of newlib runs.)
 */
#include <stdint.h>
#include <stdio.h>
#include "quiescent.h"

#define ROUNDS		200
#define SPIN_NS		(2 * 1000 * 1000)	/* a fraction of a tick, now and then */

static uint64_t read_tpidr(void)
{
	uint64_t v;

	__asm__ __volatile__("mrs %0, tpidr_el0" : "=r"(v));
	return v;
}

static void write_tpidr(uint64_t v)
{
	__asm__ __volatile__("msr tpidr_el0, %0" : : "r"(v));
}

/* Returns the number of times the value read back was not ours. */
static int keep_own(uint64_t mine)
{
	uint64_t saved = read_tpidr();
	int wrong = 0;

	write_tpidr(mine);
	for (int i = 0; i < ROUNDS; i++) {
		q_yield();
		if (i % 16 == 0) {
			uint64_t t0 = q_clock_ns();

			while (q_clock_ns() - t0 < SPIN_NS)
				wrong += read_tpidr() != mine;
		}
		wrong += read_tpidr() != mine;
	}
	write_tpidr(saved);
	return wrong;
}

static int other(void *arg)
{
	(void)arg;
	return keep_own(0x1111222233334444ULL);
}

int main(void)
{
	struct sys_exit_status st;
	int tid, wrong;

	q_set_cpu(0);
	tid = q_thread_create(other, NULL, 0);
	if (tid < 0)
		return 2;
	wrong = keep_own(0x5555666677778888ULL);
	if (q_thread_join(tid, &st) || st.killed)
		return 3;
	printf("main read a wrong TPIDR_EL0 %d times, the other thread %d times\n", wrong,
	       st.status);
	return wrong || st.status ? 1 : 0;
}
