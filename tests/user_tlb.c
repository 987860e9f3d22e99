/*
 * TLB shootdowns (kernel/user/tlb.c), shown with event counts, not time.
 *
 * A page unmapped while a thread of the same task reads it on another
 * CPU: once unmap() returned, that thread's next read faults, and it
 * never reads the contents the freed frame gets next (the helper checks
 * that and exits 2 if it ever does).  Only CPUs that had the address
 * space loaded are asked to flush: CPU 1, where the reader ran; never a
 * CPU that ran no thread of the task.  A task that ran on one CPU only
 * needs no shootdown at all.
 */
#include "ktest.h"
#include "user/thread.h"

#define HELPER	"tests/user/helpers/tlb"

static struct user_task *run_helper(const char *cmdline, struct sys_exit_status *st)
{
	struct user_task *t;
	int err;

	t = user_spawn(cmdline, NULL, &err);
	if (!t)
		return NULL;
	if (user_task_wait_timeout(t, ktest_budget_ns(30, 2), st)) {
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, 0, st);
		st->killed = -1;	/* (a timeout: no expectation below holds) */
	}
	return t;
}

KTEST(user_unmap_shoots_down_the_tlb_of_the_cpus_that_ran_the_task_only)
{
	unsigned long taken[NR_CPUS];
	struct sys_exit_status st;
	struct user_task *t;
	int cpu;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs a second CPU to read the page");
	if (!boot_module_find(HELPER))
		KTEST_SKIP("no boot module " HELPER " (no user programs on this boot)");
	for_each_online_cpu(cpu)
		taken[cpu] = tlb_flush_ipis_taken(cpu);
	t = run_helper(HELPER " shoot", &st);
	KASSERT(t);
	ktest_info("ended: status %d, killed %d (%s at %#lx); shootdowns %lu, CPUs asked %lu",
		   st.status, st.killed, t->fault.kind ? t->fault.kind : "-",
		   (unsigned long)t->fault.addr, t->tlb_shootdowns, t->tlb_ipis);
	KEXPECT_EQ(st.killed, SYS_KILLED_FAULT);	/* exit 2: it saw the page's next contents */
	KEXPECT(t->fault.kind && !strcmp(t->fault.kind, "segfault"));
	KEXPECT(t->tlb_shootdowns >= 1);
	KEXPECT(cpumask_test_cpu(1, &t->tlb_ipi_cpus));
	for_each_online_cpu(cpu) {
		if (cpu <= 1)
			continue;	/* CPU 0 unmapped, CPU 1 read */
		KEXPECT(!cpumask_test_cpu(cpu, &t->tlb_ipi_cpus));
		KEXPECT_EQ(tlb_flush_ipis_taken(cpu) - taken[cpu], 0);
	}
	user_task_put(t);
}

KTEST(user_unmap_on_one_cpu_needs_no_shootdown)
{
	struct sys_exit_status st;
	struct user_task *t;

	if (!boot_module_find(HELPER))
		KTEST_SKIP("no boot module " HELPER " (no user programs on this boot)");
	t = run_helper(HELPER " solo", &st);
	KASSERT(t);
	KEXPECT_EQ(st.killed, 0);
	KEXPECT_EQ(st.status, 0);
	KEXPECT_EQ(t->tlb_shootdowns, 0);
	KEXPECT_EQ(t->tlb_ipis, 0);
	user_task_put(t);
}
