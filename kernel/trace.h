/*
 * RCU event tracing: per-CPU ring buffers of timestamped events, switched
 * on by the command line (trace=rcu) or trace_start(), dumped on the
 * console by trace_dump() in the line format of docs/trace.md, which
 * tools/timeline.py draws.  Recording costs a flag test when off.
 */
#ifndef KERNEL_TRACE_H
#define KERNEL_TRACE_H

#include "types.h"
#include "compiler.h"

enum trace_type {
	TR_READ_LOCK,		/* outermost rcu_read_lock() (checking build only) */
	TR_READ_UNLOCK,		/* outermost rcu_read_unlock() (checking build only) */
	TR_SWITCH,		/* context switch: a = previous pid, b = next pid */
	TR_QS,			/* quiescent state reported: a = grace period */
	TR_HOP,			/* run_on() arrived on this CPU */
	TR_SYNC_BEGIN,		/* synchronize_rcu() tour began: a = tour */
	TR_SYNC_END,		/* synchronize_rcu() tour ended: a = tour */
	TR_GP_START,		/* asynchronous grace period started: a = gp_seq */
	TR_GP_END,		/* asynchronous grace period ended: a = gp_seq */
	TR_CB_QUEUE,		/* call_rcu(): b = rcu_head */
	TR_CB_INVOKE,		/* callback invoked: b = rcu_head */
	TR_PUBLISH,		/* rcu_assign_pointer(): b = the new pointer */
	TR_UNPUBLISH,		/* list_del_rcu()/hlist_del_rcu(): b = the element */
	TR_MARK,		/* a label from a demo or test: b = const char * */
	TR_HOP_QUEUE,		/* run_on() queued a task on its target: a = cpu, b = pid */
	TR_EXP_BEGIN,		/* synchronize_rcu_expedited() began: a = its wait number */
	TR_EXP_END,		/* synchronize_rcu_expedited() ended: a = its wait number */
	TR_EXP_QS,		/* a CPU's quiescent state for it was reported: a = that CPU */
	TR_KICK,		/* the scheduler sent an IPI to wake a CPU's idle loop: a = cpu */
	TR_IRQ,			/* an interrupt handler began: a = enum trace_irq */
	TR_HALT,		/* the idle loop halts (hlt / wfi) until an interrupt */
	TR_UNHALT,		/* the idle loop is back from its halt */
	TR_DIRECT,		/* IPC's direct switch: the next switch hands the CPU to a = pid */
	TR_NR_TYPES
};

/* One recorded event (its CPU is the ring's). */
struct trace_event {
	u64 ns;
	u64 b;
	u32 a;
	u16 type;
	u16 pid;
};

/* TR_IRQ's argument: which interrupt. */
enum trace_irq { TRACE_IRQ_TICK, TRACE_IRQ_CALL, TRACE_IRQ_RESCHED };

extern bool trace_enabled;

void __trace_record(enum trace_type type, u64 a, u64 b);

static __always_inline void trace_record(enum trace_type type, u64 a, u64 b)
{
	if (unlikely(trace_enabled))
		__trace_record(type, a, b);
}

/*
 * The scheduler's events (kick, irq, halt, unhalt: every tick of every
 * CPU) are many: recorded only while trace_sched_events is also on, which
 * tests/tour_cost.c sets around the tours it breaks down.
 */
extern bool trace_sched_events;

static __always_inline void trace_record_sched(enum trace_type type, u64 a)
{
	if (unlikely(trace_enabled) && READ_ONCE(trace_sched_events))
		__trace_record(type, a, 0);
}

/* A label on the timeline ("list_del_rcu(5,6,7)", ...): text must be static. */
static inline void trace_mark(const char *text)
{
	trace_record(TR_MARK, 0, (uintptr_t)text);
}

void trace_start(void);
long trace_ring_pages(void);
void trace_stop(void);
void trace_clear(void);
/* Prints every CPU's events, oldest first, between "# trace: begin/end" lines. */
void trace_dump(void);
void trace_boot(void);
/* Events of this type in the rings now (for tests). */
u64 trace_count(enum trace_type type);

/*
 * Reading the rings while tracing runs (kernel/trace_stream.c): copies
 * cpu's events from number *next on (the count of events cpu ever
 * recorded is the next one's number), at most max, into out, and returns
 * how many.  Events overwritten before they could be read are skipped:
 * *next moves past them and their count is added to *lost.  Records
 * nothing and takes no lock: the recorders never wait for a reader.
 */
int trace_ring_read(int cpu, u64 *next, struct trace_event *out, int max, u64 *lost);
/* Writes e (recorded on cpu) as a line of docs/trace.md ("T <ns> <cpu> ..." and a newline). */
int trace_format_event(char *buf, size_t size, int cpu, const struct trace_event *e);

/*
 * The trace stream (trace.stream=1, make web; docs/web.md): from the
 * boot CPU's tick, the rings' new events and each CPU's state go out as
 * lines of text into a ring in memory the host reads, without stopping
 * the trace.
 */
void trace_stream_boot(void);
void trace_stream_tick(void);
/* From panic(): the rest of the rings goes out, when no tick can be writing. */
void trace_stream_panic(bool others_stopped);

#endif
