/*
 * What captorture's two halves agree on (tests/captorture.c, the kernel's;
 * tests/user/helpers/captorture.c, the program's): the region of slots
 * the clients call through, whose lookups the kernel makes linger on the
 * even CPUs, and the CPUs the mutators run on (the odd ones, which never
 * linger: a CPU whose lookup lingers runs nothing else, and a thread
 * waiting there for cap_mutex would hold up every other update).
 */
#ifndef TESTS_CAPTORTURE_H
#define TESTS_CAPTORTURE_H

#define CT_NAME			"captorture"	/* the program's task name */
#define CT_REGION		300		/* the clients' slots */
#define CT_REGION_SLOTS		8

/* Do lookups on cpu linger (and mutators stay off it)? */
static inline int ct_lingering_cpu(int cpu, int nr_cpus)
{
	return nr_cpus > 1 && cpu % 2 == 0;
}

#endif
