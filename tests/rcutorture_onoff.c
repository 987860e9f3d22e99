/*
 * rcutorture's CPU hotplug (the rcutorture_onoff test, tests/rcutorture.c).
 */
#include "rcutorture.h"

/*
 * The on/off thread (Linux's rcu_torture_onoff()): on the boot CPU, which
 * never goes down, it takes a random other CPU down, or brings it back,
 * every onoff_ms; readers, writers and rcuc threads move or park with
 * their CPUs.  At the end every CPU is online again.
 */
int rt_onoff(void *arg)
{
	u32 rng = rt_seed(300);
	int ret;

	(void)arg;
	while (!kthread_should_stop()) {
		int cpu = 1 + prandom_u32(&rng) % (nr_cpu_ids - 1);

		ret = cpu_online(cpu) ? remove_cpu(cpu) : add_cpu(cpu);
		if (ret)
			rt.onoff_errors++;
		else
			rt.onoffs++;
		msleep(rt.onoff_ms);
	}
	for (int cpu = 1; cpu < nr_cpu_ids; cpu++)
		if (!cpu_online(cpu) && add_cpu(cpu))
			rt.onoff_errors++;
	return 0;
}
