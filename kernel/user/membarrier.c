/*
 * SYS_membarrier, in the manner of Linux's membarrier(): a task-wide
 * memory barrier.  MEMBARRIER_CMD_PRIVATE_EXPEDITED returns only after
 * every CPU that runs one of the caller's threads has executed a full
 * barrier, so that those threads' compiler barriers act as full ones
 * against the caller: the readers of user-space RCU's memb flavor
 * (user/lib/urcu_memb.c) pay a compiler barrier, the writer this call.
 *
 * The guarantee, as Linux states it: for every thread of the task
 * running at some moment of the call, there is a point of its execution
 * during the call where it is as if it ran smp_mb(); and the call itself
 * is a full barrier for the caller.  A thread that runs no moment of the
 * call needs nothing: it is switched out, and a switch is a full barrier
 * on each side of it (below).
 *
 * How (membarrier_private_expedited()):
 *   1. [membarrier_begin_mb]: what the caller did before the call is
 *      visible before step 2 reads anything.
 *   2. Each CPU's current address space (mm_loaded_on(), kernel/user/
 *      tlb.c): a pointer compared with the caller's, never followed.  A
 *      remote task_struct is never read: those are freed with a plain
 *      kfree() once off their CPU, with no grace period to read them in.
 *   3. An IPI to each CPU that has ours loaded; its handler is a full
 *      barrier ([membarrier_ipi_mb]).  The call waits for every handler.
 *   4. [membarrier_end_mb]: what the handlers ordered is before what the
 *      caller does after the call.
 * A CPU that loads our address space after step 2 read it stored its
 * loaded_mm first, then ran [switch_mm_mb] before any code of ours: a
 * store and a load on each side with a full barrier between (store
 * buffering), so step 2 sees it (and interrupts it), or its loads see what
 * the caller did before the call.  A CPU that stops running our threads
 * before step 2 passed [schedule_mb] (or, for an exiting thread,
 * [membarrier_exit_mb]) before it stored its new loaded_mm: message
 * passing, so what our thread did there is visible after step 4.
 * tools/model/armv8/membarrier_*.wmm check these three pairs on ARMv8.
 *
 * CPUs coming and going during the call: a CPU that comes online runs
 * its idle task, no address space loaded, and reaches a thread of ours
 * only through switch_mm(), so [switch_mm_mb] as above.  A CPU that goes
 * down after step 2 saw our address space on it switched away from it
 * first ([schedule_mb]), then went offline ([cpu_offline_mb]); the IPI
 * machinery (kernel/smp.c) takes back a call to a CPU gone offline,
 * never waits for it, so the call returns.
 *
 * Registration, as Linux asks: MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED
 * once per task before the first PRIVATE_EXPEDITED (which returns
 * -EPERM otherwise).  MEMBARRIER_CMD_QUERY says which commands there are.
 */
#include "user/syscalls.h"
#include "user/membarrier.h"
#include "rcu/rcu.h"		/* the fault-injection table's helpers */
#include <errno.h>

static const struct rcu_injection_desc injection_descs[NR_MEMBARRIER_INJECTIONS] = {
	MEMBARRIER_INJECTIONS(__INJECTION_DESC)
};
static bool injections_on[NR_MEMBARRIER_INJECTIONS];

static bool set_inject(const struct kparam *p, const char *val)
{
	(void)p;
	return rcu_inject_table_set(injection_descs, injections_on, NR_MEMBARRIER_INJECTIONS, val);
}
KPARAM_CALL("membarrier.inject", set_inject, "one of:" MEMBARRIER_INJECTIONS(__INJECTION_HELP));

bool membarrier_injected(enum membarrier_injection which)
{
	return injections_on[which];
}

void membarrier_inject_announce(void)
{
	rcu_inject_table_announce("membarrier", injection_descs, injections_on,
				  NR_MEMBARRIER_INJECTIONS);
}

static DEFINE_PER_CPU(unsigned long, ipis_taken);

unsigned long membarrier_ipis_taken(int cpu)
{
	return READ_ONCE(per_cpu(ipis_taken, cpu));
}

/*
 * The checking build's witness of the guarantee, apart from the way the
 * call finds its CPUs: each call takes a number; each CPU notes the
 * highest number it has seen at each barrier the protocol counts on (an
 * IPI's, a switch's).  After the call, any CPU that runs one of the
 * caller's threads -- read under its run-queue lock -- must have noted
 * this call's number, or a thread of ours ran through the call with no
 * barrier (membarrier.inject=skip_cpu shows it).  A CPU that loaded our
 * address space after step 2 read its number after [switch_mm_mb], and
 * step 2 reads loaded_mm after taking the number and [membarrier_begin_mb]:
 * store buffering again, so it notes ours whenever step 2 missed it.
 */
#if CONFIG_RCU_CHECKING
static atomic_long_t calls_numbered;
static DEFINE_PER_CPU(long, barrier_seen);

void membarrier_note_barrier(int cpu)
{
	WRITE_ONCE(per_cpu(barrier_seen, cpu), atomic_long_read(&calls_numbered));
}

static long witness_begin(void)
{
	return atomic_long_inc_return_relaxed(&calls_numbered);	/* ([membarrier_begin_mb] follows) */
}

static void witness_check(struct mm_struct *mm, long number)
{
	int cpu, pid;

	for_each_possible_cpu(cpu) {
		if (cpu == smp_processor_id() || sched_curr_mm(cpu, &pid) != mm ||
		    READ_ONCE(per_cpu(barrier_seen, cpu)) >= number)
			continue;	/* (ours: the call's own barriers) */
		panic("BUG: membarrier() from %s (pid %d) on CPU%d returned, but CPU%d runs "
		      "thread %d of that address space and passed no full barrier during the "
		      "call (no IPI, no switch)", current->comm, current->pid, smp_processor_id(),
		      cpu, pid);
	}
}
#else
static long witness_begin(void) { return 0; }
static void witness_check(struct mm_struct *mm, long number) { (void)mm; (void)number; }
#endif

/* On each CPU asked, interrupts off. */
static void membarrier_ipi(void *info)
{
	(void)info;
	/*
	 * [membarrier_ipi_mb] pairs [membarrier_begin_mb], [membarrier_end_mb]:
	 * the interrupted thread's accesses before this point are visible
	 * before the caller, seeing our acknowledgement, goes on; its
	 * accesses after it see what the caller did before the call.
	 */
	smp_mb();
	this_cpu_inc(ipis_taken);
	membarrier_note_barrier(smp_processor_id());
}

void membarrier_private_expedited(struct mm_struct *mm)
{
	long number = witness_begin();
	int cpu, me = smp_processor_id(), skip = -1;	/* (a task never moves in the kernel) */
	struct cpumask targets;

	if (membarrier_injected(MEMBARRIER_INJECT_SKIP_CPU))
		skip = rcu_inject_victim(me);
	/*
	 * [membarrier_begin_mb] pairs [switch_mm_mb], [membarrier_ipi_mb]:
	 * the caller's accesses before the call are visible before we read
	 * which CPUs run our address space, and before our IPI asks a CPU
	 * for its barrier (the top of this file has each pair's race).
	 */
	smp_mb();
	cpumask_clear(&targets);
	for_each_possible_cpu(cpu)	/* (ours: this call's barriers are its own) */
		if (cpu != me && cpu != skip && mm_loaded_on(cpu) == mm)
			__cpumask_set_cpu(cpu, &targets);
	on_each_cpu_mask(&targets, membarrier_ipi, NULL, true);
	/*
	 * [membarrier_end_mb] pairs [membarrier_ipi_mb], [schedule_mb],
	 * [fast_switch_mb], [membarrier_exit_mb]: every handler acknowledged (their barriers
	 * done), and the CPUs we skipped stored their new loaded_mm after
	 * their last access in our address space: all of it is visible
	 * before the caller's next access.
	 */
	smp_mb();
	witness_check(mm, number);
}

/* (int cmd, unsigned int flags, int cpu_id): Linux's arguments; flags must be 0. */
long sys_membarrier(const struct syscall_args *a)
{
	int cmd = arg_int(a->arg[0]);
	unsigned int flags = (unsigned int)a->arg[1];
	struct mm_struct *mm = current->mm;

	if (flags)
		return -EINVAL;		/* (Linux's MEMBARRIER_CMD_FLAG_CPU: not here) */
	switch (cmd) {
	case SYS_MEMBARRIER_CMD_QUERY:
		return SYS_MEMBARRIER_CMDS;
	case SYS_MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED:
		WRITE_ONCE(mm->membarrier_registered, true);
		return 0;
	case SYS_MEMBARRIER_CMD_PRIVATE_EXPEDITED:
		if (!READ_ONCE(mm->membarrier_registered))
			return -EPERM;
		membarrier_private_expedited(mm);
		return 0;
	}
	return -EINVAL;
}
