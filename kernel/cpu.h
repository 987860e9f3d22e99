/*
 * CPU hotplug with Linux's names (kernel/hotplug.c): take a CPU other than
 * the boot CPU offline and bring it back.
 *
 *	remove_cpu(cpu)	0 once cpu is down; 1 if it was already offline;
 *			-EINVAL for a CPU the firmware does not list;
 *			-EPERM for the boot CPU, which never goes down;
 *			-EBUSY when called from a per-CPU thread of cpu itself.
 *	add_cpu(cpu)	0 once cpu is up; 1 if it was already online;
 *			-EINVAL for a CPU the firmware does not list;
 *			-EIO if it did not come up.
 *
 * (1 is what Linux's device_offline()/device_online() return when there is
 * nothing to do.)  cpu_down() and cpu_up() are the same calls.  Both sleep,
 * and one hotplug operation runs at a time: each holds cpus_write_lock().
 * cpus_read_lock() keeps every CPU where it is until cpus_read_unlock(),
 * and readers share it: rcu_barrier() and synchronize_rcu_expedited()
 * hold it side by side (a reader must not take it twice).
 */
#ifndef KERNEL_CPU_H
#define KERNEL_CPU_H

#include "types.h"
#include "compiler.h"

int remove_cpu(unsigned int cpu);
int add_cpu(unsigned int cpu);
static inline int cpu_down(unsigned int cpu) { return remove_cpu(cpu); }
static inline int cpu_up(unsigned int cpu) { return add_cpu(cpu); }

void cpus_read_lock(void);
void cpus_read_unlock(void);
void cpus_write_lock(void);
void cpus_write_unlock(void);

/* Hotplug operations done since boot, for tests and the monitor. */
unsigned long cpu_hotplug_count(void);

/*
 * For tests: if set, called on the CPU going down in its last moments,
 * after its last context switch, with interrupts off for good, still
 * online: cpu_dying_hook before it takes a cross-CPU call addressed to it
 * (tests/hotplug_rcu_window.c holds readers there, and in such a call),
 * cpu_dying_late_hook after, when a call addressed to it is left to its
 * caller to take back (tests/hotplug.c).  Both run before it reports its
 * quiescent state (tests/hotplug_rcu.c starts a grace period there, which
 * only that report can end).
 */
extern void (*cpu_dying_hook)(int cpu);
extern void (*cpu_dying_late_hook)(int cpu);

/*
 * For tests: if set, called on the CPU coming up in its first moments,
 * right after rcu_cpu_starting() set it online, interrupts off, before
 * its idle loop runs (tests/hotplug_rcu.c starts a reader there, which
 * every grace period that starts from then on must wait for).
 */
extern void (*cpu_starting_hook)(int cpu);

/* The idle task of a CPU going down ends here (interrupts off, then the arch stops it). */
void cpu_die(void) __noreturn;

#endif
