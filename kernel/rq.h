/*
 * The run queues, private to the scheduler's files and shared by nothing
 * else (the public API is sched.h):
 *   sched.c          pick and switch, wake-ups, the idle loop
 *   run_on.c         run_on(): moving the calling task to another CPU
 *   sleep.c          msleep() and the tick that ends it
 *   sched_hotplug.c  a CPU going down and coming back
 *   kthread.c        kernel threads, their stacks, the list of all tasks
 *   sched_report.c   what reports, the monitor and the tests read
 */
#ifndef KERNEL_RQ_H
#define KERNEL_RQ_H

#include "kernel.h"
#include "sched.h"

struct rq {
	spinlock_t lock;
	struct list_head queue;		/* runnable tasks waiting for the CPU */
	int nr_queued;
	struct task_struct *curr;
	struct task_struct *idle;
	struct task_struct *prev;	/* switched away from; finish_task_switch() */
	struct list_head sleepers;	/* msleep() */
	u64 nr_switches;
	u64 nr_direct_switches;		/* of those, IPC's (schedule_to()) */
	struct task_struct *handoff;	/* schedule_to()'s choice for the next switch */
	u64 last_switch_ns;
	bool unannounced;		/* queued by this CPU for itself (idle, or a user thread ran): no IPI says so */
	bool need_resched;		/* the running task should yield (need_resched()) */
	bool dying;			/* remove_cpu(): its idle task takes it down */
	bool offline;			/* down: tasks go elsewhere, per-CPU threads park */
	unsigned long halts_with_work;	/* checking build: halted with `unannounced` set */
	unsigned long user_returns_with_work;	/* ... returned to user mode with it set */
};


extern struct rq runqueues[NR_CPUS];

static inline struct rq *this_rq(void)
{
	return &runqueues[smp_processor_id()];
}

/* sched.c */
bool enqueue_locked(struct rq *rq, struct task_struct *t, int cpu);
void enqueue_on(struct task_struct *t, int cpu);
void kick_cpu(int cpu);
void finish_task_switch(void);
void __schedule(void);

/* run_on.c */
void finish_run_on(struct task_struct *prev);

/* sched_hotplug.c */
int fallback_cpu(int from);
void sched_cpu_dying(struct rq *rq);

/* kthread.c */
void add_to_task_list(struct task_struct *t);

#endif
