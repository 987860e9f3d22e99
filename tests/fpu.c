/*
 * A context switch keeps every FP register a called function must
 * preserve (AArch64: d8-d15 and FPCR's control fields; x86-64: MXCSR's
 * control bits and the x87 control word).  The compiler may keep any
 * variable in them across a call that schedules, so two threads on one
 * CPU each load their own values, call cond_resched() (which switches to
 * the other) and check that their values came back.
 */
#include "ktest.h"

#define FP_ROUNDS	100

struct fp_thread {
	unsigned int seed;	/* even for one thread, odd for the other */
	int mismatches;
	int switched;		/* rounds in which cond_resched() really switched */
};

static bool fp_go;

static void yield(void *arg)
{
	(void)arg;
	cond_resched();
}

static void check_round(struct fp_thread *t, int round, const u64 *set, const u64 *got)
{
	for (int i = 0; i < ARCH_FP_CALLEE_SAVED_WORDS; i++) {
		if (got[i] == set[i])
			continue;
		if (!t->mismatches)
			ktest_info("thread %u round %d: register %d is %#llx, it held %#llx",
				   t->seed & 1, round, i, (unsigned long long)got[i],
				   (unsigned long long)set[i]);
		t->mismatches++;
	}
}

static int fp_thread_fn(void *arg)
{
	struct fp_thread *t = arg;
	u64 set[ARCH_FP_CALLEE_SAVED_WORDS], got[ARCH_FP_CALLEE_SAVED_WORDS];

	while (!READ_ONCE(fp_go))
		cond_resched();
	for (int round = 0; round < FP_ROUNDS; round++) {
		u64 before = current->switches;

		arch_fp_callee_saved_sample(t->seed + 2 * round, set);
		arch_fp_callee_saved_call(set, got, yield, NULL);
		t->switched += current->switches != before;
		check_round(t, round, set, got);
	}
	return 0;
}

KTEST(fpu_callee_saved_registers_survive_a_context_switch)
{
	struct fp_thread fp[2] = { { .seed = 0 }, { .seed = 1 } };
	struct task_struct *task[2];
	int cpu = num_online_cpus() - 1;

	WRITE_ONCE(fp_go, false);
	for (int i = 0; i < 2; i++)
		task[i] = kthread_run_on_cpu(fp_thread_fn, &fp[i], cpu, "fp_switch");
	WRITE_ONCE(fp_go, true);
	for (int i = 0; i < 2; i++) {
		if (!task[i]) {
			KEXPECT(task[i]);
			continue;
		}
		kthread_stop(task[i]);
		KEXPECT_EQ(fp[i].mismatches, 0);
		/* Not vacuous: most rounds ran the other thread in between. */
		KEXPECT(fp[i].switched >= FP_ROUNDS / 2);
	}
}
