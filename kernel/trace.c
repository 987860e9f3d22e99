/*
 * The trace buffers: one ring per CPU, written only by that CPU with
 * interrupts off, so recording needs no lock.  When a ring is full the
 * oldest events are overwritten and counted as lost.  A reader may copy
 * a ring while its CPU records (the trace stream, kernel/trace_stream.c):
 * the recorder claims a slot before it overwrites it and commits it
 * after, so the reader can tell a slot it copied from one overwritten
 * under it.  The counts only grow: trace_clear() moves a ring's base.
 */
#include "kernel.h"

#define TRACE_EVENTS	8192		/* per CPU, a power of two */

struct trace_ring {
	struct trace_event ev[TRACE_EVENTS];
	u64 head;			/* events ever written (committed) */
	u64 claimed;			/* head, or head + 1 while one is being written */
	u64 base;			/* trace_clear(): dumps and counts start here */
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
	[TR_DIRECT] = "direct",
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
		u64 h = r->head;
		struct trace_event *e = &r->ev[h % TRACE_EVENTS];

		WRITE_ONCE(r->claimed, h + 1);
		/*
		 * [trace_claim_wmb] pairs [trace_read_rmb]: the claim is
		 * visible before any of the overwrite, so a reader that
		 * copied part of the new event from this slot sees the
		 * claim afterwards and drops its copy of the old one.
		 */
		smp_wmb();
		e->ns = ktime_get_ns();
		e->type = type;
		e->pid = t ? t->pid : 0;
		e->a = a;
		e->b = b;
		/*
		 * [trace_commit_release] pairs [trace_read_acquire]: a reader
		 * that sees the new head sees the whole event under it.
		 */
		smp_store_release(&r->head, h + 1);
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

/* Dumps and counts start after the events recorded so far (the stream goes on). */
void trace_clear(void)
{
	int cpu;

	for_each_online_cpu(cpu)
		if (rings[cpu])
			WRITE_ONCE(rings[cpu]->base, READ_ONCE(rings[cpu]->head));
}

/* The oldest event of r a dump or a count reads: after the base, still in the ring. */
static u64 ring_first(const struct trace_ring *r, u64 end)
{
	u64 base = READ_ONCE(r->base);

	return end > base + TRACE_EVENTS ? end - TRACE_EVENTS : base;
}

int trace_ring_read(int cpu, u64 *next, struct trace_event *out, int max, u64 *lost)
{
	struct trace_ring *r = READ_ONCE(rings[cpu]);
	u64 head, claimed, from;
	int n, skip;

	if (!r)
		return 0;
	/* [trace_read_acquire] pairs [trace_commit_release]: the events under head are whole. */
	head = smp_load_acquire(&r->head);
	if (head > *next + TRACE_EVENTS) {	/* overwritten before we came */
		*lost += head - TRACE_EVENTS - *next;
		*next = head - TRACE_EVENTS;
	}
	n = (int)min(head - *next, (u64)max);
	for (int i = 0; i < n; i++)
		out[i] = r->ev[(*next + i) % TRACE_EVENTS];
	/*
	 * [trace_read_rmb] pairs [trace_claim_wmb]: the copies above are
	 * done before the claim is read, so a slot claimed for a newer
	 * event while we copied it shows here.  Events numbered below
	 * claimed - TRACE_EVENTS may hold parts of newer ones: dropped.
	 */
	smp_rmb();
	claimed = READ_ONCE(r->claimed);
	from = claimed > TRACE_EVENTS ? claimed - TRACE_EVENTS : 0;
	skip = from > *next ? (int)min(from - *next, (u64)n) : 0;
	memmove(out, out + skip, (size_t)(n - skip) * sizeof(*out));
	*lost += skip;
	*next += n;
	return n - skip;
}

int trace_format_event(char *buf, size_t size, int cpu, const struct trace_event *e)
{
	const char *n = e->type < TR_NR_TYPES ? names[e->type] : "?";
	unsigned long long ns = e->ns, b = e->b;
	unsigned int pid = e->pid;

	switch (e->type) {
	case TR_SWITCH:
		return snprintf(buf, size, "T %llu %d %u %s prev=%u next=%llu\n", ns, cpu, pid, n,
				e->a, b);
	/* gp_seq and wait numbers start below the wrap: signed, they read -600 and -300 at boot. */
	case TR_QS: case TR_GP_START: case TR_GP_END:
		return snprintf(buf, size, "T %llu %d %u %s gp=%d\n", ns, cpu, pid, n, (int)e->a);
	case TR_SYNC_BEGIN: case TR_SYNC_END:
		return snprintf(buf, size, "T %llu %d %u %s tour=%d\n", ns, cpu, pid, n, (int)e->a);
	case TR_EXP_BEGIN: case TR_EXP_END:
		return snprintf(buf, size, "T %llu %d %u %s exp=%d\n", ns, cpu, pid, n, (int)e->a);
	case TR_IRQ:
		return snprintf(buf, size, "T %llu %d %u %s kind=%s\n", ns, cpu, pid, n,
				e->a == TRACE_IRQ_TICK ? "tick" :
				e->a == TRACE_IRQ_CALL ? "call" : "resched");
	case TR_EXP_QS: case TR_KICK:
		return snprintf(buf, size, "T %llu %d %u %s cpu=%u\n", ns, cpu, pid, n, e->a);
	case TR_DIRECT:
		return snprintf(buf, size, "T %llu %d %u %s next=%u\n", ns, cpu, pid, n, e->a);
	case TR_CB_QUEUE: case TR_CB_INVOKE: case TR_PUBLISH: case TR_UNPUBLISH:
		return snprintf(buf, size, "T %llu %d %u %s ptr=%#llx\n", ns, cpu, pid, n, b);
	case TR_HOP_QUEUE:
		return snprintf(buf, size, "T %llu %d %u %s cpu=%u pid=%llu\n", ns, cpu, pid, n,
				e->a, b);
	case TR_MARK:
		return snprintf(buf, size, "T %llu %d %u %s %s\n", ns, cpu, pid, n,
				(const char *)(uintptr_t)e->b);
	default:
		return snprintf(buf, size, "T %llu %d %u %s\n", ns, cpu, pid, n);
	}
}

static void print_event(int cpu, const struct trace_event *e)
{
	char line[256];

	if (trace_format_event(line, sizeof(line), cpu, e) >= (int)sizeof(line))
		line[sizeof(line) - 2] = '\n';		/* a mark's text cut short: the line still ends */
	printk("%s", line);
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
		next[cpu] = r ? ring_first(r, end[cpu]) : 0;
		lost += r ? next[cpu] - r->base : 0;
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

		for (u64 i = r ? ring_first(r, end) : 0; i < end; i++)
			n += r->ev[i % TRACE_EVENTS].type == type;
	}
	return n;
}

/* trace=rcu on the command line: record from boot (called once CPUs are up). */
void trace_boot(void)
{
	if (trace_param[0] && strcmp(trace_param, "rcu")) {
		printk("trace: unknown trace='%s' (only 'rcu' exists): tracing stays off\n",
		       trace_param);
		return;
	}
	if (trace_param[0]) {
		trace_start();
		printk("trace: recording RCU events on %d CPUs (%d per CPU)\n", num_online_cpus(),
		       TRACE_EVENTS);
	}
	trace_stream_boot();	/* trace.stream=1: records from boot too, and streams */
}
