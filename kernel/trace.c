/*
 * The trace buffers: one ring per CPU, written only by that CPU with
 * interrupts off, so recording needs no lock.  When a ring is full the
 * oldest events are overwritten and counted as lost.
 */
#include "kernel.h"

#define TRACE_EVENTS	8192		/* per CPU, a power of two */

struct trace_event {
	u64 ns;
	u64 b;
	u32 a;
	u16 type;
	u16 pid;
};

struct trace_ring {
	struct trace_event ev[TRACE_EVENTS];
	u64 head;			/* events ever written */
};

#define RING_PAGES	((sizeof(struct trace_ring) + PAGE_SIZE - 1) / PAGE_SIZE)

bool trace_enabled;
bool trace_sched_events;
static struct trace_ring *rings[NR_CPUS];
static char trace_param[16];
KPARAM_STRING("trace", trace_param);

static const char *const names[TR_NR_TYPES] = {
	[TR_READ_LOCK] = "read_lock", [TR_READ_UNLOCK] = "read_unlock",
	[TR_SWITCH] = "switch", [TR_QS] = "qs", [TR_HOP] = "hop",
	[TR_SYNC_BEGIN] = "sync_begin", [TR_SYNC_END] = "sync_end",
	[TR_GP_START] = "gp_start", [TR_GP_END] = "gp_end",
	[TR_CB_QUEUE] = "cb_queue", [TR_CB_INVOKE] = "cb_invoke",
	[TR_PUBLISH] = "publish", [TR_UNPUBLISH] = "unpublish",
	[TR_MARK] = "mark", [TR_HOP_QUEUE] = "hop_queue",
	[TR_EXP_BEGIN] = "exp_begin", [TR_EXP_END] = "exp_end", [TR_EXP_QS] = "exp_qs",
	[TR_KICK] = "kick", [TR_IRQ] = "irq", [TR_HALT] = "halt", [TR_UNHALT] = "unhalt",
};

void __trace_record(enum trace_type type, u64 a, u64 b)
{
	unsigned long flags = arch_irq_save();
	/*
	 * [trace_ring_dep] pairs [trace_on_mb], [trace_off_mb]: no barrier
	 * after the test of trace_enabled (trace_record()): a recorder that
	 * loads a ring's pointer before trace_start() published it sees
	 * NULL and records nothing; one that loads it writes through it, and
	 * the address dependency orders those writes after the zeroing.
	 */
	struct trace_ring *r = READ_ONCE(rings[smp_processor_id()]);
	struct task_struct *t = current;

	if (r) {
		struct trace_event *e = &r->ev[r->head % TRACE_EVENTS];

		e->ns = ktime_get_ns();
		e->type = type;
		e->pid = t ? t->pid : 0;
		e->a = a;
		e->b = b;
		r->head++;
	}
	arch_irq_restore(flags);
}

/* Allocates every online CPU's ring (once) and starts recording. */
void trace_start(void)
{
	int cpu;

	for_each_online_cpu(cpu) {
		/* Kept for good once made: pages, outside kmalloc's leak accounting. */
		if (!rings[cpu]) {
			struct trace_ring *r = page_alloc(RING_PAGES);

			if (r)
				memset(r, 0, sizeof(*r));	/* before it is published */
			WRITE_ONCE(rings[cpu], r);
		}
		if (!rings[cpu]) {
			printk("trace: no memory for CPU%d's ring: tracing stays off\n", cpu);
			return;
		}
	}
	/*
	 * [trace_on_mb] pairs [trace_ring_dep]: the rings exist, zeroed,
	 * before any CPU sees tracing on; otherwise a recorder could write
	 * into a ring that the zeroing then wipes.
	 */
	smp_mb();
	WRITE_ONCE(trace_enabled, true);
}

/* Pages the rings hold: kept for good, so the test runner's leak check leaves them out. */
long trace_ring_pages(void)
{
	long pages = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		if (READ_ONCE(rings[cpu]))
			pages += RING_PAGES;
	return pages;
}

void trace_stop(void)
{
	WRITE_ONCE(trace_enabled, false);
	/*
	 * [trace_off_mb] pairs [trace_ring_dep]: recorders that test the
	 * flag after this see tracing off before trace_dump() reads the
	 * rings.  One already past the test may still add an event, which
	 * the dump may miss: the dump is of a stopped trace, not a snapshot.
	 */
	smp_mb();
}

void trace_clear(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (rings[cpu])
			WRITE_ONCE(rings[cpu]->head, 0);
}

static void print_event(int cpu, const struct trace_event *e)
{
	const char *n = e->type < TR_NR_TYPES ? names[e->type] : "?";

	switch (e->type) {
	case TR_SWITCH:
		printk("T %llu %d %u %s prev=%u next=%llu\n", (unsigned long long)e->ns, cpu,
		       e->pid, n, e->a, (unsigned long long)e->b);
		break;
	/* gp_seq and wait numbers start below the wrap: signed, they read -600 and -300 at boot. */
	case TR_QS: case TR_GP_START: case TR_GP_END:
		printk("T %llu %d %u %s gp=%d\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       (int)e->a);
		break;
	case TR_SYNC_BEGIN: case TR_SYNC_END:
		printk("T %llu %d %u %s tour=%d\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       (int)e->a);
		break;
	case TR_EXP_BEGIN: case TR_EXP_END:
		printk("T %llu %d %u %s exp=%d\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       (int)e->a);
		break;
	case TR_IRQ:
		printk("T %llu %d %u %s kind=%s\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       e->a == TRACE_IRQ_TICK ? "tick" : e->a == TRACE_IRQ_CALL ? "call" : "resched");
		break;
	case TR_EXP_QS: case TR_KICK:
		printk("T %llu %d %u %s cpu=%u\n", (unsigned long long)e->ns, cpu, e->pid, n, e->a);
		break;
	case TR_CB_QUEUE: case TR_CB_INVOKE: case TR_PUBLISH: case TR_UNPUBLISH:
		printk("T %llu %d %u %s ptr=%#llx\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       (unsigned long long)e->b);
		break;
	case TR_HOP_QUEUE:
		printk("T %llu %d %u %s cpu=%u pid=%llu\n", (unsigned long long)e->ns, cpu,
		       e->pid, n, e->a, (unsigned long long)e->b);
		break;
	case TR_MARK:
		printk("T %llu %d %u %s %s\n", (unsigned long long)e->ns, cpu, e->pid, n,
		       (const char *)(uintptr_t)e->b);
		break;
	default:
		printk("T %llu %d %u %s\n", (unsigned long long)e->ns, cpu, e->pid, n);
	}
}

void trace_dump(void)
{
	u64 next[NR_CPUS], end[NR_CPUS], lost = 0, total = 0;
	bool was_on = trace_enabled;
	int cpu;

	trace_stop();
	for_each_online_cpu(cpu) {
		struct trace_ring *r = rings[cpu];

		end[cpu] = r ? r->head : 0;
		next[cpu] = end[cpu] > TRACE_EVENTS ? end[cpu] - TRACE_EVENTS : 0;
		lost += next[cpu];
		total += end[cpu] - next[cpu];
	}
	printk("# trace: begin cpus=%d events=%llu lost=%llu\n", num_online_cpus(),
	       (unsigned long long)total, (unsigned long long)lost);
	for (;;) {		/* merge the rings by time */
		int best = -1;

		for_each_online_cpu(cpu) {
			if (next[cpu] < end[cpu] &&
			    (best < 0 || rings[cpu]->ev[next[cpu] % TRACE_EVENTS].ns <
					 rings[best]->ev[next[best] % TRACE_EVENTS].ns))
				best = cpu;
		}
		if (best < 0)
			break;
		print_event(best, &rings[best]->ev[next[best]++ % TRACE_EVENTS]);
		if (total > 256 && next[best] % 256 == 0)
			cond_resched();
	}
	printk("# trace: end\n");
	if (was_on)
		trace_start();
}

u64 trace_count(enum trace_type type)
{
	u64 n = 0;
	int cpu;

	for_each_online_cpu(cpu) {
		struct trace_ring *r = rings[cpu];
		u64 end = r ? READ_ONCE(r->head) : 0;

		for (u64 i = end > TRACE_EVENTS ? end - TRACE_EVENTS : 0; i < end; i++)
			n += r->ev[i % TRACE_EVENTS].type == type;
	}
	return n;
}

/* trace=rcu on the command line: record from boot (called once CPUs are up). */
void trace_boot(void)
{
	if (!trace_param[0])
		return;
	if (strcmp(trace_param, "rcu")) {
		printk("trace: unknown trace='%s' (only 'rcu' exists): tracing stays off\n",
		       trace_param);
		return;
	}
	trace_start();
	printk("trace: recording RCU events on %d CPUs (%d per CPU)\n", num_online_cpus(),
	       TRACE_EVENTS);
}
