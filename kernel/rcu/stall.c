/*
 * RCU CPU stall warnings.  From the timer tick (any CPU; one checks at a
 * time): a CPU that has not passed a quiescent state for
 * rcu_cpu_stall_timeout seconds while a grace period, an expedited grace
 * period, or a task queued on its run queue waits for it is reported
 * with its task, the waiter and
 * its backtrace.  A queued task is named, and called a run_on() hop when
 * run_on() queued it (a synchronize_rcu() tour is a series of them); any
 * other queued task waits for the CPU just the same.  Callbacks that wait
 * as long for a grace period that nobody asked for are reported too (no
 * CPU is stalled then).  The kernel goes on; the same stall is reported
 * again every STALL_REPEAT_TIMEOUTS timeouts while it lasts.
 */
#include "kernel.h"
#include "rcu.h"

/* rcu_cpu_stall_timeout=: seconds without a quiescent state before a report. */
int rcu_stall_timeout_s = RCU_STALL_TIMEOUT_S;
KPARAM_INT("rcu_cpu_stall_timeout", rcu_stall_timeout_s, RCU_STALL_TIMEOUT_MIN_S,
	   RCU_STALL_TIMEOUT_MAX_S);

/* A stall that lasts is reported again after this many timeouts (Linux: 3). */
#define STALL_REPEAT_TIMEOUTS	3

static u64 next_check_ns;
unsigned long rcu_stall_reports;
static u64 gp_reported_at[NR_CPUS];	/* when this CPU's stall was last reported */

/*
 * Who waits for a stalled CPU: a grace period, an expedited grace period
 * (its caller in task), or the oldest task queued there.
 */
enum stall_kind { STALL_GP, STALL_EXP, STALL_QUEUED };
struct stall_waiter {
	enum stall_kind kind;
	struct sched_waiter task;	/* STALL_EXP, STALL_QUEUED */
};

/* Room for "task <comm> pid <pid> in its run queue (a run_on() hop)". */
#define STALL_WAITER_LEN	(TASK_COMM_LEN + 64)

static void report_cpu(int cpu, u64 stalled_ns, const struct stall_waiter *sw)
{
	struct task_struct *t = sched_curr(cpu);
	char q[CPUMASK_FORMAT_LEN], waiter[STALL_WAITER_LEN];

	if (sw->kind == STALL_GP)
		snprintf(waiter, sizeof(waiter), "a grace period (call_rcu)");
	else if (sw->kind == STALL_EXP)
		snprintf(waiter, sizeof(waiter), "synchronize_rcu_expedited() in task %s pid %d",
			 sw->task.comm, sw->task.pid);
	else
		snprintf(waiter, sizeof(waiter), "task %s pid %d in its run queue%s",
			 sw->task.comm, sw->task.pid, sw->task.run_on_hop ? " (a run_on() hop)" : "");
	printk("rcu: INFO: rcu_sched detected %sstalls on CPUs/tasks:\n",
	       sw->kind == STALL_EXP ? "expedited " : "");
	printk("rcu: \t%d-...: (task %s pid %d) no quiescent state for %llu ms; %s waits\n",
	       cpu, t ? t->comm : "?", t ? t->pid : -1,
	       (unsigned long long)(stalled_ns / NSEC_PER_MSEC), waiter);
	cpumask_format(q, sizeof(q), &rcu_state.qs_mask);
	printk("rcu: \t(detected by %d, g=%ld, q=%s, timeout %d s)\n",
	       smp_processor_id(), (long)READ_ONCE(rcu_state.gp_seq), q, rcu_stall_timeout_s);
	if (cpu == smp_processor_id())
		dump_stack();
	else if (!cpu_online(cpu))
		printk("rcu: \tCPU%d is offline: it went down without reporting its quiescent "
		       "state (rcu_report_dead())\n", cpu);
	else if (!trigger_cpu_backtrace(cpu))
		printk("rcu: \tCPU%d cannot be interrupted for a backtrace (interrupts off?)\n", cpu);
	WRITE_ONCE(rcu_stall_reports, rcu_stall_reports + 1);	/* after the backtrace */
}

/* How long cpu has kept a waiter waiting without a quiescent state (0: none), and who. */
static u64 stalled_for(int cpu, u64 now, struct stall_waiter *sw)
{
	u64 since = max(sched_last_switch_ns(cpu), READ_ONCE(rcu_state.gp_start_ns));
	unsigned long gp = READ_ONCE(rcu_state.gp_seq);

	sw->kind = STALL_GP;
	if ((gp & 1) && cpumask_test_cpu(cpu, &rcu_state.qs_mask) && now > since)
		return now - since;
	/* The expedited IPI found a task that has not switched since. */
	sw->kind = STALL_EXP;
	if (rcu_exp_waits_for(cpu, &sw->task)) {
		since = max(sched_last_switch_ns(cpu), sw->task.since_ns);
		if (now > since)
			return now - since;
	}
	sw->kind = STALL_QUEUED;
	if (sched_oldest_waiter(cpu, &sw->task) && now > sw->task.since_ns &&
	    sched_curr(cpu) != NULL)
		return now - sw->task.since_ns;
	return 0;
}

/*
 * Whether a condition that has lasted `waited` is reported now: once it
 * has lasted a timeout, then again every STALL_REPEAT_TIMEOUTS timeouts
 * while it lasts.  *reported_at remembers the last report (0: none yet).
 */
static bool report_due(u64 *reported_at, u64 waited, u64 now, u64 timeout)
{
	if (waited < timeout) {
		*reported_at = 0;
		return false;
	}
	if (*reported_at && now - *reported_at < STALL_REPEAT_TIMEOUTS * timeout)
		return false;
	*reported_at = now;
	return true;
}

int rcu_set_stall_timeout(int seconds)
{
	int old = rcu_stall_timeout_s;

	WRITE_ONCE(rcu_stall_timeout_s, max(seconds, RCU_STALL_TIMEOUT_MIN_S));
	return old;
}

/*
 * Callbacks whose grace period nobody asked for: none runs and none is
 * needed, so none will start (rcu.inject=request_only_once loses requests
 * this way).  Watched while the grace-period number stands still, and
 * reported once they have waited a stall timeout.
 */
static u64 unrequested_since[NR_CPUS];		/* first seen waiting; 0: not */
static unsigned long unrequested_seq[NR_CPUS];	/* the gp_seq they were seen at */
static u64 unrequested_reported_at[NR_CPUS];

static void check_unrequested(int cpu, u64 now, u64 timeout)
{
	unsigned long seq = READ_ONCE(rcu_state.gp_seq), gp = 0;
	long n = rcu_cbs_wait_unrequested(cpu, &gp);

	if (!n || seq != unrequested_seq[cpu]) {
		/* None waits, or grace periods moved on: watch afresh. */
		unrequested_seq[cpu] = seq;
		unrequested_since[cpu] = n ? now : 0;
		unrequested_reported_at[cpu] = 0;
		return;
	}
	if (!unrequested_since[cpu])
		unrequested_since[cpu] = now;
	if (!report_due(&unrequested_reported_at[cpu], now - unrequested_since[cpu], now, timeout))
		return;
	printk("rcu: INFO: CPU%d: %ld callback%s wait%s for grace period %ld, which nobody "
	       "asked for: none has run for %llu ms and none is needed (g=%ld)\n", cpu, n,
	       n == 1 ? "" : "s", n == 1 ? "s" : "", (long)gp,
	       (unsigned long long)((now - unrequested_since[cpu]) / NSEC_PER_MSEC), (long)seq);
	WRITE_ONCE(rcu_stall_reports, rcu_stall_reports + 1);
}

void rcu_check_stalls(void)
{
	u64 now = ktime_get_ns(), next = READ_ONCE(next_check_ns);
	u64 timeout = (u64)rcu_stall_timeout_s * NSEC_PER_SEC;
	int cpu;

	/* Once a second, and only one CPU at a time. */
	if (now < next || !__atomic_compare_exchange_n(&next_check_ns, &next,
						       now + NSEC_PER_SEC, false,
						       __ATOMIC_RELAXED, __ATOMIC_RELAXED))
		return;
	/* Offline CPUs too: one that went down owing a quiescent state is a bug to report. */
	for_each_possible_cpu(cpu) {
		struct stall_waiter sw;
		u64 stalled = stalled_for(cpu, now, &sw);

		check_unrequested(cpu, now, timeout);
		if (report_due(&gp_reported_at[cpu], stalled, now, timeout))
			report_cpu(cpu, stalled, &sw);
	}
}
