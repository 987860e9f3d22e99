/* System calls about time and CPUs: yield, sleep, the clock, which CPU. */
#include "user/syscalls.h"
#include "user/thread.h"
#include <errno.h>

/* A sleep is cut in slices, so a thread whose task is killed leaves within one. */
#define SLEEP_SLICE_MS	100

long sys_yield(const struct syscall_args *a)
{
	(void)a;
	schedule();
	return 0;
}

/* (u64 ns): at least ns, rounded up to the tick. */
long sys_sleep(const struct syscall_args *a)
{
	u64 end = ktime_get_ns(), ns = a->arg[0];

	end = ns > UINT64_MAX - end ? UINT64_MAX : end + ns;
	for (;;) {
		u64 now = ktime_get_ns();

		if (now >= end || fatal_signal_pending(current))
			return 0;
		msleep(min((end - now + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC, (u64)SLEEP_SLICE_MS));
	}
}

long sys_clock(const struct syscall_args *a)
{
	(void)a;
	return ktime_get_ns();
}

/* (cpu): the calling thread moves there (and stays: nothing balances load). */
long sys_set_cpu(const struct syscall_args *a)
{
	int cpu = arg_int(a->arg[0]);

	if (cpu < 0 || cpu >= nr_cpu_ids || !cpu_online(cpu))
		return -EINVAL;
	return run_on(cpu) ? -ENODEV : 0;
}

long sys_cpu(const struct syscall_args *a)
{
	(void)a;
	return smp_processor_id();
}

long sys_nr_cpus(const struct syscall_args *a)
{
	(void)a;
	return num_online_cpus();
}
