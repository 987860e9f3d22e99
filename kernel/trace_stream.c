/*
 * The trace stream (trace.stream=1 on the command line; make web,
 * docs/web.md): the RCU trace leaves the kernel while it runs, instead of
 * in one dump once it stopped.  The boot CPU's timer tick, which comes
 * anyway, copies the events the rings got since its last visit
 * (trace_ring_read(): no lock, nothing the recorders wait for), merges
 * them by time and writes each as a line of text into the stream's own
 * ring; five times a second it adds each CPU's state and the monitor's
 * `rcu` counts.  The drain records no event, takes no RCU read lock and
 * switches no task: what is traced is what would have run without it.
 * It costs the boot CPU's tick the formatting, STREAM_BYTES of text a
 * tick at most; trace rings that outrun it lose their oldest events, and
 * the stream says how many.  A panic sends what the rings still hold.
 *
 * The channel is memory: the stream's ring, in pages of the kernel's own,
 * which the host reads while the kernel runs (make web boots QEMU with its
 * RAM in a file that tools/lib/trace_stream.py maps; the boot line
 * "trace: streaming ... at 0x..." says where).  A serial line costs the
 * writer an exit to QEMU per byte: a second UART (x86-64's COM2) took
 * 17 us a byte on this project's loaded 2-core host, the whole of the
 * boot CPU's time under rcutorture; memory costs it a store.
 *
 * A record is one line of text:
 *   T <ns> <cpu> <pid> <event> [args]     an event, as trace_dump() prints it
 *   C <ns> <cpu> busy|idle <pid> <queued> <comm>   a CPU's running task
 *   C <ns> <cpu> offline
 *   R <ns> key=value...                   RCU's counts (the monitor's rcu)
 *   L <ns> <cpu> <n>                      n events of cpu lost in all so far
 *   W <ns>                                every event recorded before ns is out
 *   B <ns> cpus=<online> possible=<n>     the stream begins
 */
#include "kernel.h"

#define STREAM_BATCH	32		/* events taken from a ring at a time */
#define STREAM_BYTES	4096		/* written per tick at most */
#define STATUS_TICKS	(HZ / 5)	/* CPU states and RCU counts: 5 times a second */
#define RECORD_LEN	192
#define STREAM_PAGES	64		/* the stream's ring: 256 KiB, a second or more */

/*
 * The stream's ring, as the host reads it (its layout is
 * tools/lib/trace_stream.py's too).  Bytes only ever go in at `head`: the
 * writer claims the bytes it is about to overwrite, writes them, then
 * moves head; a reader that copied bytes below claimed - size may have
 * copied some of their overwrite, and drops them.
 */
struct stream_ring {
	char magic[16];			/* "quiescent-trace" */
	u64 size;			/* bytes of buf */
	u64 claimed;			/* head + the bytes being written */
	u64 head;			/* bytes ever written */
	char buf[];
};

static bool streaming;
KPARAM_BOOL("trace.stream", streaming);

/*
 * Set at boot, before the tick looks; only the boot CPU's tick writes them
 * then (and a panic, when no tick can be: trace_stream_panic()).
 */
static struct stream_ring *ring;
static bool started;
static u64 next_event[NR_CPUS], lost[NR_CPUS], lost_said[NR_CPUS];
static struct trace_event batch[NR_CPUS][STREAM_BATCH];
static int batch_len[NR_CPUS], batch_pos[NR_CPUS];
static unsigned long ticks;
static size_t written;			/* this tick */
/*
 * The tick is between its first and last write of the stream's state:
 * a panic that comes then (inside the drain on CPU 0, or on another CPU
 * while CPU 0 is stopped mid-write) leaves the stream alone.
 */
static bool writing;

static void ring_copy(u64 at, const char *s, size_t n)
{
	size_t off = at % ring->size, first = min(n, (size_t)(ring->size - off));

	memcpy(ring->buf + off, s, first);
	memcpy(ring->buf, s + first, n - first);
}

static void channel_write(const char *s, size_t n)
{
	u64 h = ring->head;

	WRITE_ONCE(ring->claimed, h + n);
	/*
	 * [stream_claim_wmb] pairs [stream_host_read]: the claim is visible
	 * before any byte it overwrites, so the host, reading the claim
	 * after its copy, knows which bytes it copied may be new ones.
	 */
	smp_wmb();
	ring_copy(h, s, n);
	/* [stream_head_release] pairs [stream_host_read]: the bytes under head are whole. */
	smp_store_release(&ring->head, h + n);
	written += n;
}

/*
 * [stream_host_read] pairs [stream_claim_wmb], [stream_head_release]: the
 * host (tools/lib/trace_stream.py, on an x86-64 host, whose loads are not
 * reordered with loads) reads head, copies the bytes below it, then reads
 * claimed, and drops the bytes that claim may have overwritten.
 */

/* Ends a record cut short by the buffer with its newline. */
static void record_write(char *buf, int n)
{
	if (n >= RECORD_LEN) {
		n = RECORD_LEN - 1;
		buf[n - 1] = '\n';
	}
	channel_write(buf, n);
}

static void __printf(1, 2) record(const char *fmt, ...)
{
	char buf[RECORD_LEN];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, RECORD_LEN, fmt, ap);
	va_end(ap);
	record_write(buf, n);
}

static void record_event(int cpu, const struct trace_event *e)
{
	char buf[RECORD_LEN];

	record_write(buf, trace_format_event(buf, RECORD_LEN, cpu, e));
}

/* cpu's batch holds an unsent event, taken from its ring if it had none. */
static bool batch_ready(int cpu)
{
	if (batch_pos[cpu] < batch_len[cpu])
		return true;
	batch_pos[cpu] = 0;
	batch_len[cpu] = trace_ring_read(cpu, &next_event[cpu], batch[cpu], STREAM_BATCH,
					 &lost[cpu]);
	if (lost[cpu] != lost_said[cpu]) {
		lost_said[cpu] = lost[cpu];
		record("L %llu %d %llu\n", (unsigned long long)ktime_get_ns(), cpu,
		       (unsigned long long)lost[cpu]);
	}
	return batch_len[cpu] > 0;
}

/*
 * Sends the events in time order until `budget` bytes are written; true
 * when every ring is empty (then every event recorded before the call is
 * out).  Counts them in *sent.
 */
static bool drain(size_t budget, unsigned long *sent)
{
	for (;;) {
		int best = -1, cpu;

		for_each_possible_cpu(cpu) {
			if (batch_ready(cpu) &&
			    (best < 0 || batch[cpu][batch_pos[cpu]].ns <
					 batch[best][batch_pos[best]].ns))
				best = cpu;
		}
		if (best < 0)
			return true;
		if (written >= budget)
			return false;
		record_event(best, &batch[best][batch_pos[best]++]);
		(*sent)++;
	}
}

static void send_status(u64 now)
{
	unsigned long long ns = now;
	char owe[CPUMASK_FORMAT_LEN];
	struct rcu_stats s;
	int cpu;

	for_each_possible_cpu(cpu) {
		char comm[TASK_COMM_LEN];
		int pid;

		if (!cpu_online(cpu))
			record("C %llu %d offline\n", ns, cpu);
		else if (sched_curr_copy(cpu, &pid, comm))	/* else its lock is busy: next time */
			record("C %llu %d %s %d %d %s\n", ns, cpu,
			       sched_cpu_idle(cpu) ? "idle" : "busy", pid, sched_nr_running(cpu),
			       comm);
	}
	rcu_get_stats(&s);
	cpumask_format(owe, sizeof(owe), &s.qs_mask);
	record("R %llu gp=%ld running=%d owe=%s tours=%lu toursdone=%lu exp=%lu expdone=%lu "
	       "queued=%ld invoked=%llu gps=%lu stalls=%lu\n", ns, (long)s.gp_seq >> 1,
	       (int)(s.gp_seq & 1), owe, s.tours_started, s.tours_completed, s.exp_started,
	       s.exp_completed, s.cbs_queued, s.cbs_invoked, s.gps_completed, s.stall_reports);
}

/* From the boot CPU's timer tick (it never goes offline), interrupts off. */
void trace_stream_tick(void)
{
	unsigned long sent = 0;
	u64 start;

	if (!READ_ONCE(started))
		return;
	/* (CPU 0 only; a fault below is taken after these stores: barrier()) */
	WRITE_ONCE(writing, true);
	barrier();
	start = ktime_get_ns();
	written = 0;
	if (ticks++ % STATUS_TICKS == 0)
		send_status(start);
	if (drain(STREAM_BYTES, &sent))
		record("W %llu\n", (unsigned long long)start);
	barrier();
	WRITE_ONCE(writing, false);
}

/*
 * From panic(), on the panicking CPU with interrupts off, before QEMU
 * ends: what the rings still hold goes out, with no budget, so that the
 * host's last read (tools/web.py reads the ring once more when QEMU has
 * ended) has the events that led to the panic.  The stream's state is
 * CPU 0's tick's: it is ours only when every other CPU has stopped (what
 * CPU 0 wrote before it stopped is visible here by [panic_stopped_release]
 * and [panic_stopped_acquire]) and the tick is not mid-write.  Takes no
 * lock, as the tick takes none.
 */
void trace_stream_panic(bool others_stopped)
{
	unsigned long sent = 0;
	u64 start;

	if (!READ_ONCE(started))
		return;
	if (!others_stopped) {
		printk("trace: the panic leaves the stream alone: a CPU did not stop\n");
		return;
	}
	if (READ_ONCE(writing)) {
		printk("trace: the panic leaves the stream alone: CPU 0 was writing it\n");
		return;
	}
	start = ktime_get_ns();
	written = 0;
	if (drain((size_t)-1, &sent))
		record("W %llu\n", (unsigned long long)start);
	printk("trace: the panic sent the rings' last %lu events into the stream\n", sent);
}

/* trace.stream=1: trace from boot, and stream (called on CPU 0 once CPUs are up). */
void trace_stream_boot(void)
{
	if (!streaming)
		return;
	if (!READ_ONCE(trace_enabled))
		trace_start();
	if (!READ_ONCE(trace_enabled))
		return;		/* trace_start() said why */
	ring = page_alloc(STREAM_PAGES);	/* kept for good, as the trace rings are */
	if (!ring) {
		printk("trace: no memory for the stream's ring: no stream\n");
		return;
	}
	memset(ring, 0, sizeof(*ring));
	memcpy(ring->magic, "quiescent-trace", 16);
	ring->size = STREAM_PAGES * PAGE_SIZE - sizeof(*ring);
	/* (Memory is identity-mapped: the pointer is the physical address.) */
	printk("trace: streaming RCU events into memory at %#lx, %llu bytes (docs/web.md)\n",
	       (unsigned long)(uintptr_t)ring, (unsigned long long)ring->size);
	record("B %llu cpus=%d possible=%d\n", (unsigned long long)ktime_get_ns(),
	       num_online_cpus(), nr_cpu_ids);
	/*
	 * Plain store: the boot CPU's tick, the only reader of the rest,
	 * runs here, on CPU 0, where this runs too.
	 */
	WRITE_ONCE(started, true);
}
