/*
 * make bench, the update side:
 *
 *  - bench_update_latency: synchronize_rcu() (the article's run_on tour)
 *    and synchronize_rcu_expedited() (every CPU asked at once)
 *    against the CPU count, next to what the tour is made of -- one run_on()
 *    hop, one context switch -- and an IPI round trip, the floor of any
 *    design that has to hear from every CPU (back to back, and to a CPU
 *    that has halted first, as a tour finds each idle CPU); and the latency of a grace
 *    period driven by the context-switch hook (call_rcu() and wait for
 *    the callback).  With the other CPUs idle, then busy running RCU
 *    readers that call cond_resched() every 64 lookups.
 *  - bench_call_rcu: call_rcu() throughput with two updaters per CPU,
 *    and how many callbacks each grace period served.
 */
#include "bench.h"

#define HOP_ROUNDS	100
#define CTXSW_ROUNDS	1000
#define IPI_ROUNDS	200
#define HALTED_IPI_ROUNDS	20
#define HALT_MS		3	/* idle that long, a CPU has halted and its vCPU sleeps in the host */
#define SYNC_ROUNDS	20
#define GP_ROUNDS	20

/*
 * Each measurement does its operation up to its round count, but stops
 * once it has done it `min` times and bench.window_ms has passed: at
 * 64 CPUs under TCG one tour of busy CPUs takes seconds, and twenty of
 * them at every point would make the scaling run last hours.  At a few
 * CPUs the round counts end the loops first, as before.
 */
#define MIN_ROUNDS	3

static bool enough(int rounds, int min, u64 t0)
{
	return rounds >= min &&
	       ktime_get_ns() - t0 >= (u64)bench_window_ms * NSEC_PER_MSEC;
}

enum bench_op { OP_HOP, OP_CTXSW, OP_IPI, OP_IPI_HALTED, OP_SYNC, OP_EXP, OP_GP, OP_NR };
static const char *const op_names[OP_NR] = {
	[OP_HOP] = "run_on_hop", [OP_CTXSW] = "context_switch", [OP_IPI] = "ipi_round_trip",
	[OP_IPI_HALTED] = "ipi_round_trip_halted",
	[OP_SYNC] = "synchronize_rcu", [OP_EXP] = "synchronize_rcu_expedited",
	[OP_GP] = "call_rcu_gp",
};

/*
 * One run_on() hop.  With one CPU, run_on(0) from CPU 0 only passes
 * through the scheduler.  Otherwise out to each other CPU and back:
 * every hop needs the target to switch (a busy one when its task calls
 * cond_resched(), an idle one once an IPI has woken it).
 */
static u64 measure_hop(u64 *ops)
{
	int cpu, ncpu = num_online_cpus();
	u64 t0 = ktime_get_ns();

	*ops = 0;
	for (int i = 0; i < HOP_ROUNDS && !enough(i, 1, t0); i++) {	/* whole tours */
		if (ncpu == 1) {
			run_on(0);
			(*ops)++;
			continue;
		}
		for_each_online_cpu(cpu) {
			if (cpu == 0)
				continue;
			run_on(cpu);
			run_on(0);
			*ops += 2;
		}
	}
	return ktime_get_ns() - t0;
}

/* A partner on our CPU: each cond_resched() of ours is two switches. */
static bool partner_stop;

static int partner_fn(void *arg)
{
	(void)arg;
	while (!READ_ONCE(partner_stop))
		cond_resched();
	return 0;
}

static u64 measure_ctxsw(u64 *ops)
{
	struct task_struct *p;
	u64 t0, dt;

	WRITE_ONCE(partner_stop, false);
	p = kthread_run_on_cpu(partner_fn, NULL, smp_processor_id(), "bench_partner");
	if (!p) {
		*ops = 0;
		return 0;
	}
	cond_resched();		/* the partner has started */
	t0 = ktime_get_ns();
	for (int i = 0; i < CTXSW_ROUNDS; i++)
		cond_resched();
	dt = ktime_get_ns() - t0;
	WRITE_ONCE(partner_stop, true);
	kthread_stop(p);
	*ops = 2 * CTXSW_ROUNDS;
	return dt;
}

static void noop_fn(void *info)
{
	(void)info;
}

static u64 measure_ipi(u64 *ops)
{
	int target = num_online_cpus() - 1;
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < IPI_ROUNDS && !enough(i, MIN_ROUNDS, t0); i++)
		smp_call_function_single(target, noop_fn, NULL, true);
	*ops = i;
	return ktime_get_ns() - t0;
}

/*
 * The same round trip to a CPU that has been idle for HALT_MS first: it
 * has halted, and under emulation its vCPU thread sleeps in the host,
 * which must wake it -- what every hop of a tour over idle CPUs pays.
 * Back to back (measure_ipi()), the next IPI mostly finds the target
 * still on its way to halting.  Only the round trips are timed.
 */
static u64 measure_ipi_halted(u64 *ops)
{
	int target = num_online_cpus() - 1;
	u64 t0 = ktime_get_ns(), timed = 0;
	int i;

	for (i = 0; i < HALTED_IPI_ROUNDS && !enough(i, MIN_ROUNDS, t0); i++) {
		u64 t1;

		msleep(HALT_MS);
		t1 = ktime_get_ns();
		smp_call_function_single(target, noop_fn, NULL, true);
		timed += ktime_get_ns() - t1;
	}
	*ops = i;
	return timed;
}

static u64 measure_sync(u64 *ops)
{
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < SYNC_ROUNDS && !enough(i, MIN_ROUNDS, t0); i++)
		synchronize_rcu();
	*ops = i;
	return ktime_get_ns() - t0;
}

static u64 measure_exp(u64 *ops)
{
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < SYNC_ROUNDS && !enough(i, MIN_ROUNDS, t0); i++)
		synchronize_rcu_expedited();
	*ops = i;
	return ktime_get_ns() - t0;
}

/* A grace period from the context-switch hook: call_rcu() and wait for the callback. */
struct gp_waiter {
	struct rcu_head rh;
	struct completion done;
};

static void gp_waiter_cb(struct rcu_head *rh)
{
	complete(&container_of(rh, struct gp_waiter, rh)->done);
}

static u64 measure_gp(u64 *ops)
{
	static struct gp_waiter w;
	u64 t0 = ktime_get_ns();
	int i;

	for (i = 0; i < GP_ROUNDS && !enough(i, MIN_ROUNDS, t0); i++) {
		init_completion(&w.done);
		call_rcu(&w.rh, gp_waiter_cb);
		wait_for_completion(&w.done);
	}
	*ops = i;
	return ktime_get_ns() - t0;
}

KBENCH(bench_update_latency)
{
	int ncpu = num_online_cpus();

	KASSERT(smp_processor_id() == 0);
	for (int rep = 0; rep < bench_reps; rep++) {
		for (int busy = 0; busy <= 1; busy++) {
			if (busy && ncpu == 1)
				continue;	/* no other CPU to keep busy */
			if (busy)
				KASSERT(bench_busy_start(1));
			for (int op = 0; op < OP_NR; op++) {
				char labels[64];
				u64 ops = 0, ns;

				switch (op) {
				case OP_HOP:	ns = measure_hop(&ops); break;
				case OP_CTXSW:	ns = measure_ctxsw(&ops); break;
				case OP_IPI:
					if (ncpu == 1)
						continue;	/* an IPI needs another CPU */
					ns = measure_ipi(&ops);
					break;
				case OP_IPI_HALTED:
					if (ncpu == 1 || busy)
						continue;	/* a busy CPU does not halt */
					ns = measure_ipi_halted(&ops);
					break;
				case OP_SYNC:	ns = measure_sync(&ops); break;
				case OP_EXP:	ns = measure_exp(&ops); break;
				default:	ns = measure_gp(&ops); break;
				}
				KEXPECT(ops > 0);
				snprintf(labels, sizeof(labels), "op=%s load=%s", op_names[op],
					 busy ? "busy" : "idle");
				bench_emit("update", labels, rep, "ns_per_op",
					   bench_mean_milli(ns, ops), "ns");
			}
			if (busy)
				bench_busy_stop();
		}
	}
}

/* ---- call_rcu() throughput ---- */

#define CR_UPDATERS_PER_CPU	2
#define CR_HEADS		512	/* per updater: at most this many in flight */
#define CR_MAX_UPDATERS		(CR_UPDATERS_PER_CPU * NR_CPUS)

struct cr_head {
	struct rcu_head rh;
	int inflight;
};

struct cr_updater {
	struct cr_head *heads;
	unsigned int idx;
	u64 calls, full, ns;
} __aligned(64);

static struct cr_updater updaters[CR_MAX_UPDATERS];
static struct workers updater_group;
static struct {
	struct completion go;	/* the start line: wait_for_go() in read.c says why */
	u64 end_jiffies;
} cr_ctl __aligned(64);

static void cr_cb(struct rcu_head *rh)
{
	/* Release: we are done with the head before its owner reuses it. */
	smp_store_release(&container_of(rh, struct cr_head, rh)->inflight, 0);
}

static int cr_updater_fn(void *arg)
{
	struct cr_updater *u = arg;
	u64 t0;

	wait_for_completion(&cr_ctl.go);	/* end_jiffies was written before it completed */
	t0 = ktime_get_ns();
	while (READ_ONCE(jiffies) < READ_ONCE(cr_ctl.end_jiffies)) {
		struct cr_head *h = &u->heads[u->idx];

		/* Acquire: pairs with the release in cr_cb(). */
		if (smp_load_acquire(&h->inflight)) {
			u->full++;		/* all in flight: let grace periods catch up */
			cond_resched();
			continue;
		}
		h->inflight = 1;
		call_rcu(&h->rh, cr_cb);
		u->calls++;
		u->idx = (u->idx + 1) % CR_HEADS;
		if ((u->calls & 15) == 0)
			cond_resched();
	}
	u->ns = ktime_get_ns() - t0;
	return 0;
}

KBENCH(bench_call_rcu)
{
	int n = num_online_cpus() * CR_UPDATERS_PER_CPU;

	for (int i = 0; i < n; i++) {
		updaters[i] = (struct cr_updater){ 0 };
		updaters[i].heads = kcalloc(CR_HEADS, sizeof(struct cr_head), GFP_KERNEL);
		KASSERT(updaters[i].heads);
	}
	for (int rep = 0; rep < bench_reps; rep++) {
		struct rcu_stats s0, s1;
		u64 rate = 0, calls = 0, full = 0, gps, cbs, reports;

		init_completion(&cr_ctl.go);
		for (int i = 0; i < n; i++)
			updaters[i].calls = updaters[i].full = updaters[i].ns = 0;
		KEXPECT(workers_start_spread(&updater_group, n, 0, cr_updater_fn, updaters,
					     sizeof(updaters[0]), "bench_callrcu"));
		rcu_get_stats(&s0);
		WRITE_ONCE(cr_ctl.end_jiffies, jiffies + max(1, bench_window_ms * HZ / 1000));
		complete_all(&cr_ctl.go);
		workers_stop(&updater_group);
		for (int i = 0; i < n; i++) {
			rate += bench_rate_milli(updaters[i].calls, updaters[i].ns);
			calls += updaters[i].calls;
			full += updaters[i].full;
		}
		rcu_get_stats(&s1);
		gps = s1.gps_completed - s0.gps_completed;
		cbs = s1.cbs_invoked - s0.cbs_invoked;
		rcu_barrier();	/* every head is idle again */
		ktest_info("bench: call_rcu rep %d: %llu calls, %llu grace periods, %llu callbacks, "
			   "%llu waits for a free head", rep, (unsigned long long)calls,
			   (unsigned long long)gps, (unsigned long long)cbs, (unsigned long long)full);
		bench_emit("call_rcu", "", rep, "calls_per_s", rate, "1/s");
		bench_emit("call_rcu", "", rep, "cbs_per_gp", bench_mean_milli(cbs, gps), "count");
		bench_emit("call_rcu", "", rep, "gps_per_s",
			   bench_rate_milli(gps, (u64)bench_window_ms * NSEC_PER_MSEC), "1/s");
		/* The global lock's cost: every report takes rcu_state.lock (gp.c). */
		reports = s1.qs_reports - s0.qs_reports;
		bench_emit("call_rcu", "", rep, "qs_lock_wait_ns",
			   bench_mean_milli(s1.qs_lock_wait_ns - s0.qs_lock_wait_ns, reports), "ns");
		bench_emit("call_rcu", "", rep, "qs_lock_contended_pct",
			   bench_mean_milli(100 * (s1.qs_contended - s0.qs_contended), reports), "%");
		bench_emit("call_rcu", "", rep, "qs_reports_per_gp",
			   bench_mean_milli(reports, gps), "count");
		/* call_rcu() asks for each grace period once per CPU, not once per call. */
		bench_emit("call_rcu", "", rep, "gp_requests_per_call",
			   bench_mean_milli(s1.gp_requests - s0.gp_requests, calls), "count");
		KEXPECT(calls > 0);
	}
	for (int i = 0; i < n; i++) {
		kfree(updaters[i].heads);
		updaters[i].heads = NULL;
	}
}
