/*
 * make bench: the microkernel's costs (docs/microkernel.md), beside their
 * anchors (docs/benchmarks.md, "IPC and capabilities").
 *
 *   ipc        a call and its reply through an endpoint, from user mode:
 *              tests/user/helpers/pingpong makes N round trips between two
 *              threads of one task or two tasks, on one CPU or two; timed
 *              from the kernel as the null system call is (tests/bench/
 *              user.c): a run with N calls minus a run with none, over N
 *              (timed=spawn), and by the program (timed=loop)
 *   cap_call   a system call whose work is a capability lookup:
 *              tests/user/helpers/capcall polls an empty notification,
 *              timed by the program (timed=loop)
 *   lookup     capability lookups per CPU per second with every CPU
 *              looking up at once in one space: the system call's lookup
 *              (cap_lookup_noref(): RCU, no reference), the same with a
 *              reference taken and dropped (cap_lookup()), the bare read
 *              of the slot under RCU, and that read under a reader-writer
 *              lock and a spinlock instead of RCU
 *   revoke     how long cap_revoke() takes against the number of
 *              capabilities derived from the one revoked
 */
#include "bench.h"
#include "../cap_test.h"
#include "user/task.h"
#include "user/module.h"
#include "workers.h"
#include "object/lookup.h"

#define PINGPONG	"tests/user/helpers/pingpong"
#define CAPCALL		"tests/user/helpers/capcall"
#define CAP_CALLS	20000	/* (under TCG a call sometimes takes 100 us: docs/benchmarks.md) */
#define SAME_ROUNDS	20000
#define CROSS_ROUNDS	2000	/* each wakes a halted CPU */
#define LOOKUP_SLOTS	8

/* ------------------------------------------------------------------ IPC */

/* How long pingpong with these arguments runs, start to end; 0 if it failed. */
static u64 run_pingpong(int client_cpu, int server_cpu, int rounds, bool task)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), PINGPONG " %d %d %d%s", client_cpu, server_cpu, rounds,
		 task ? " task" : "");
	return bench_run_program(cmd);
}

static void ipc_round_trip(bool task, bool cross, int rep)
{
	int server_cpu = cross ? 1 : 0, rounds = cross ? CROSS_ROUNDS : SAME_ROUNDS;
	u64 empty = run_pingpong(0, server_cpu, 0, task);
	u64 full = run_pingpong(0, server_cpu, rounds, task);
	char labels[64];

	KEXPECT(empty && full);
	snprintf(labels, sizeof(labels), "op=ipc between=%s cpus_apart=%d timed=spawn",
		 task ? "tasks" : "threads", cross);
	if (empty && full > empty)
		bench_emit("ipc", labels, rep, "ns", bench_mean_milli(full - empty, rounds), "ns");
}

/* The lookup's system call: its own line (timed=loop) is the figure. */
static void cap_call(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), CAPCALL " %d", CAP_CALLS);
	KEXPECT(bench_run_program(cmd));
}

/* --------------------------------------------------------------- lookup */

enum lookup_method { LM_SYSCALL, LM_RCU_REF, LM_RCU, LM_RWLOCK, LM_SPINLOCK, LM_NR };
static const char *const lookup_names[LM_NR] = {
	"syscall", "rcu_ref", "rcu", "rwlock", "spinlock"
};

static struct test_space space;
static struct bench_rwlock space_rw;
static DEFINE_SPINLOCK(space_lock);
static struct workers lookers;
static struct {
	struct completion go;
	u64 end_jiffies;
} ctl __aligned(64);

struct looker {
	enum lookup_method m;
	u64 lookups, ns, misses;
} __aligned(64);
static struct looker lookers_arg[NR_CPUS];

/* The lookup without a reference: what each lock protects in turn. */
static __always_inline bool peek(long slot)
{
	struct cap *c = cap_lookup_rcu(space.cs, slot);

	return c && READ_ONCE(c->type) == KOBJ_ENDPOINT && (READ_ONCE(c->rights) & SYS_CAP_WRITE);
}

/* A system call's lookup, in a function of its own as in a system call (its ref stays in registers). */
static __always_inline bool lookup_syscall(long slot)
{
	struct cap_ref ref;

	if (cap_lookup_noref(space.cs, slot, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref))
		return false;
	cap_ref_put(&ref);
	return true;
}

static __always_inline bool lookup_ref(long slot)
{
	struct cap_ref ref;

	if (cap_lookup(space.cs, slot, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref))
		return false;
	kobject_put(ref.obj);
	return true;
}

static __always_inline bool lookup_once(enum lookup_method m, long slot)
{
	bool ok;

	switch (m) {
	case LM_SYSCALL:
		return lookup_syscall(slot);
	case LM_RCU_REF:
		return lookup_ref(slot);
	case LM_RCU:
		rcu_read_lock();
		ok = peek(slot);
		rcu_read_unlock();
		return ok;
	case LM_RWLOCK:
		bench_read_lock(&space_rw);
		rcu_read_lock();	/* (nothing in make bench's build: for the checking build's rules) */
		ok = peek(slot);
		rcu_read_unlock();
		bench_read_unlock(&space_rw);
		return ok;
	default:
		spin_lock(&space_lock);
		rcu_read_lock();
		ok = peek(slot);
		rcu_read_unlock();
		spin_unlock(&space_lock);
		return ok;
	}
}

static int looker_fn(void *arg)
{
	struct looker *l = arg;
	u64 n = 0, misses = 0, t0;

	wait_for_completion(&ctl.go);
	t0 = ktime_get_ns();
	while (READ_ONCE(jiffies) < READ_ONCE(ctl.end_jiffies)) {
		misses += !lookup_once(l->m, n % LOOKUP_SLOTS);
		if ((++n & 63) == 0)
			cond_resched();
	}
	l->ns = ktime_get_ns() - t0;
	l->lookups = n;
	l->misses = misses;
	return 0;
}

static void lookup_rate(enum lookup_method m, int rep)
{
	int cpu, ncpu = num_online_cpus();
	u64 window = (u64)bench_window_ms * HZ / 1000, rate_sum = 0, misses = 0;
	char labels[48];

	init_completion(&ctl.go);
	for_each_online_cpu(cpu)
		lookers_arg[cpu] = (struct looker){ .m = m };
	KEXPECT(workers_start_spread(&lookers, ncpu, 0, looker_fn, lookers_arg,
				     sizeof(lookers_arg[0]), "bench_cap/%d"));
	WRITE_ONCE(ctl.end_jiffies, jiffies + (window ? window : 1));
	complete_all(&ctl.go);
	workers_stop(&lookers);
	for_each_online_cpu(cpu) {
		rate_sum += bench_rate_milli(lookers_arg[cpu].lookups, lookers_arg[cpu].ns);
		misses += lookers_arg[cpu].misses;
	}
	KEXPECT_EQ(misses, 0);		/* every slot holds an endpoint: each lookup finds it */
	snprintf(labels, sizeof(labels), "op=lookup method=%s", lookup_names[m]);
	bench_emit("ipc", labels, rep, "lookups_per_cpu", rate_sum / ncpu, "1/s");
}

/* --------------------------------------------------------------- revoke */

static const int revoke_sizes[] = { 1, 16, 128, 1000 };

static void revoke_latency(int derived, int rep)
{
	char labels[48];
	u64 t0, ns;
	int r;

	KASSERT_EQ(cap_create(space.cs, KOBJ_ENDPOINT, 0, 0), 0);
	for (int i = 0; i < derived; i++)
		KASSERT(cap_mint(space.cs, 0, SYS_CAP_ANY_SLOT, SYS_CAP_WRITE, i + 1) > 0);
	t0 = ktime_get_ns();
	r = cap_revoke(space.cs, 0);
	ns = ktime_get_ns() - t0;
	KEXPECT_EQ(r, derived);
	KEXPECT_EQ(cap_delete(space.cs, 0), 0);
	rcu_barrier();		/* the nodes are back before the next size */
	snprintf(labels, sizeof(labels), "op=revoke derived=%d", derived);
	bench_emit("ipc", labels, rep, "ns", ns * 1000, "ns");
}

KBENCH(bench_ipc)
{
	bool ipc = boot_module_find(PINGPONG) != NULL;

	KASSERT(test_space_make(&space));
	for (int rep = 0; rep < bench_reps; rep++) {
		if (boot_module_find(CAPCALL))
			cap_call();
		for (int cross = 0; ipc && cross <= (num_online_cpus() > 1); cross++) {
			ipc_round_trip(false, cross, rep);
			ipc_round_trip(true, cross, rep);
		}
		for (int i = 0; i < (int)ARRAY_SIZE(revoke_sizes); i++)
			revoke_latency(revoke_sizes[i], rep);
		for (int s = 0; s < LOOKUP_SLOTS; s++)
			KASSERT_EQ(cap_create(space.cs, KOBJ_ENDPOINT, s, 0), s);
		for (int m = 0; m < LM_NR; m++)
			lookup_rate(m, rep);
		for (int s = 0; s < LOOKUP_SLOTS; s++)
			KEXPECT_EQ(cap_delete(space.cs, s), 0);
	}
	test_space_free(&space);
}
