/*
 * What captorture's two halves agree on (tests/captorture.c, the kernel's;
 * tests/user/helpers/captorture.c, the program's): the region of slots
 * the clients call through, whose lookups the kernel makes linger on the
 * even CPUs, and the CPUs the mutators run on (the odd ones, which never
 * linger: a CPU whose lookup lingers runs nothing else, and a thread
 * waiting there for cap_mutex would hold up every other update).
 *
 * And the lifetimes part (issue 39): the victims' calls, which the
 * kernel side kills while the holder -- on a lingering CPU -- holds them
 * claimed; the slots where the kernel side keeps granting an interrupt
 * and a device capability, which the program binds and maps and the
 * kernel side deletes now and then in the middle of it.
 */
#ifndef TESTS_CAPTORTURE_H
#define TESTS_CAPTORTURE_H

#define CT_NAME			"captorture"	/* the program's task name */
#define CT_REGION		300		/* the clients' slots */
#define CT_REGION_SLOTS		8

#define CT_LABEL_HOLD		4	/* a victim's call: held until the victim is gone */
#define CT_LABEL_GIVE_THREAD	5	/* a child's call giving the holder a capability to its thread */
#define CT_KILLED_CLAIMED	0x6b111edUL	/* a victim's word 3, as the kernel side marks it: killed while claimed */
#define CT_IRQ_SLOT		320	/* the kernel side's interrupt capability (the console's line) */
#define CT_DEV_SLOT		321	/* ... and device capability (the UART's registers) */

/* Do lookups on cpu linger (and mutators stay off it)? */
static inline int ct_lingering_cpu(int cpu, int nr_cpus)
{
	return nr_cpus > 1 && cpu % 2 == 0;
}

#endif
