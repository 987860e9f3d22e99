/*
 * Beyond the article: the microkernel (docs/microkernel.md).  The root
 * task starts the servers from boot modules and a client calls one; then
 * a capability is revoked while lookups of what it derived are inside
 * the kernel on other CPUs, and the grace period that keeps those
 * lookups safe is drawn CPU by CPU: the revoked nodes are freed only
 * when the last CPU has left.  The article's deletion example, with
 * capabilities for the list's elements.
 */
#include "demo.h"
#include "completion.h"
#include "trace.h"
#include "object/cap.h"
#include "object/quota.h"
#include "user/task.h"
#include "user/user.h"
#include "user/module.h"
#include "object/lookup.h"
#include <errno.h>

#define ROOT		"user/root"
#define MAX_HOLDERS	3
#define HOLD_MAX_NS	(5 * NSEC_PER_SEC)	/* a reader never holds longer */
#define GP_WAIT_MS	2000

/* A lookup on another CPU, held inside its read-side critical section. */
static struct holder {
	struct task_struct *task;
	int cpu;
	long slot;
	struct cap *node;
	u32 gen;
	bool release, live_at_exit;
	struct completion inside, left;
} holders[MAX_HOLDERS];

static struct cspace *mk_cs;

static int holder_fn(void *arg)
{
	struct holder *h = arg;
	u64 t0 = ktime_get_ns();

	rcu_read_lock();
	h->node = cap_lookup_rcu(mk_cs, h->slot);	/* a system call's lookup, paused here */
	h->gen = h->node ? READ_ONCE(h->node->head.gen) : 0;
	complete(&h->inside);
	while (!READ_ONCE(h->release) && ktime_get_ns() - t0 < HOLD_MAX_NS)
		cpu_relax();
	/* Type-stable memory: reading the generation is safe even after a free. */
	h->live_at_exit = h->node && READ_ONCE(h->node->head.gen) == h->gen;
	rcu_read_unlock();
	complete(&h->left);
	return 0;
}

/* The grace period that began after the revoke (odd: in progress); see owed(). */
static unsigned long target_gp;

/*
 * "CPU1 CPU2": the CPUs the grace period in progress still waits for, or
 * "nobody" between grace periods; *ours: it is the revoke's (target_gp),
 * not an earlier one that the revoke's waits behind.
 */
static void owed(char *buf, size_t size, bool *ours)
{
	struct rcu_stats st;
	size_t len = 0;
	int cpu;

	rcu_get_stats(&st);
	buf[0] = 0;
	*ours = st.gp_seq == target_gp;
	if (st.gp_seq & 1)
		for_each_online_cpu(cpu)
			if (cpumask_test_cpu(cpu, &st.qs_mask))
				demo_fmt(buf, size, &len, "%sCPU%d", len ? " " : "", cpu);
	if (!len)
		demo_fmt(buf, size, &len, "nobody");
}

static bool gp_waits_for(int cpu)
{
	struct rcu_stats st;

	rcu_get_stats(&st);
	return (st.gp_seq & 1) && cpumask_test_cpu(cpu, &st.qs_mask);
}

/* Grace periods are numbered as in kernel/rcu/gp.c: odd while one runs. */
static void note_revoke_gp(void)
{
	struct rcu_stats st;

	rcu_get_stats(&st);
	/* One in progress began before the revoke: its callbacks wait for the next. */
	target_gp = (st.gp_seq & 1) ? st.gp_seq + 2 : st.gp_seq + 1;
}

static void root_task_runs(void)
{
	struct sys_exit_status st;
	struct user_task *t;
	int err;

	demo_step("The root task starts the servers from boot modules");
	if (!boot_module_find(ROOT)) {
		demo_say("(no user programs on this boot: make run puts them there)");
		return;
	}
	demo_say("The kernel starts one program, the root task; it makes an endpoint, starts");
	demo_say("the name server with the only capability that receives on it, then the");
	demo_say("key-value server, which registers \"kv\", and two clients that look it up:");
	/* (not the boot's command line: --serve would leave them up, past the demo's leak check) */
	t = user_spawn_root(ROOT, &err);
	if (!t) {
		demo_fail("%s did not start (error %d)", ROOT, err);
		return;
	}
	if (user_task_wait_timeout(t, 60 * NSEC_PER_SEC, &st) || st.killed || st.status)
		demo_fail("the root task did not end well");
	else
		demo_say("Every call went by capability: slot numbers, checked by a lookup under RCU.");
	user_task_put(t);
}

/* Derived capabilities in slots 1..n, each looked up by a holder on its own CPU. */
static int start_holders(void)
{
	int cpus[MAX_HOLDERS], n = worker_cpus(cpus, MAX_HOLDERS);

	if (cap_create(mk_cs, KOBJ_ENDPOINT, 0, 0) != 0)
		return 0;
	for (int i = 0; i < n; i++) {
		struct holder *h = &holders[i];

		*h = (struct holder){ .cpu = cpus[i], .slot = i + 1 };
		init_completion(&h->inside);
		init_completion(&h->left);
		if (cap_mint(mk_cs, 0, h->slot, SYS_CAP_WRITE, i + 1) != h->slot)
			return i;
		h->task = kthread_run_on_cpu(holder_fn, h, h->cpu, "mk_call");
		if (!h->task)
			return i;
		wait_for_completion(&h->inside);
	}
	return n;
}

/* Until a grace period waits for every holder's CPU (the revoke's, or one before it). */
static bool wait_for_gp(int n)
{
	u64 end = ktime_get_ns() + (u64)GP_WAIT_MS * NSEC_PER_MSEC;

	while (ktime_get_ns() < end) {
		bool all = true;

		for (int i = 0; i < n; i++)
			all = all && gp_waits_for(holders[i].cpu);
		if (all)
			return true;
		msleep(1);
	}
	return false;
}

static void release(struct holder *h)
{
	char buf[64];
	bool ours;	/* (whichever grace period runs: each waits for this CPU) */

	WRITE_ONCE(h->release, true);
	wait_for_completion(&h->left);
	kthread_stop(h->task);
	h->task = NULL;
	msleep(20);	/* its CPU switches away from it: the quiescent state */
	owed(buf, sizeof(buf), &ours);
	demo_say("CPU%d leaves its lookup: the node it held was %s; the", h->cpu,
		 h->live_at_exit ? "live to the end (generation unchanged)" :
				   "FREED under it: a use-after-free");
	if (!strcmp(buf, "nobody"))
		demo_say("  grace period has ended.");
	else
		demo_say("  grace period now waits for: %s", buf);
	if (!h->live_at_exit)
		demo_fail("a node was freed under a reader");
}

static bool all_freed(int n)
{
	for (int i = 0; i < n; i++)
		if (!(READ_ONCE(holders[i].node->head.gen) & 1))
			return false;
	return true;
}

/*
 * The grace period waits for this demo's CPU too, which holds no lookup:
 * say so, since no reader is shown leaving it (it passes its quiescent
 * state at its next context switch, as it waits for the first reader).
 */
static void say_own_cpu(int n)
{
	int self = smp_processor_id();

	for (int i = 0; i < n; i++)
		if (holders[i].cpu == self)
			return;
	if (gp_waits_for(self)) {
		demo_say("CPU%d runs this demo and holds no lookup: its next context switch, as it",
			 self);
		demo_say("  waits for the first reader to leave, is its quiescent state.");
	}
}

static void revoke_under_readers(void)
{
	struct quota *q = quota_create(quota_default_bytes());
	struct cap_ref ref;
	char buf[64];
	bool ours;
	int n, r;

	demo_step("Lookups inside the kernel on other CPUs");
	user_settle();		/* what the root task's end queued is freed: a quiet start */
	rcu_barrier();
	mk_cs = q ? cspace_create(q, NULL) : NULL;
	n = mk_cs ? start_holders() : 0;
	if (!n) {
		demo_say("(needs a second CPU and memory: make run SMP=2 or more)");
		goto out;
	}
	if (n == 1)
		demo_say("An endpoint in slot 0; 1 capability minted from it in slot 1.");
	else
		demo_say("An endpoint in slot 0; %d capabilities minted from it in slots 1..%d.", n, n);
	for (int i = 0; i < n; i++)
		demo_say("CPU%d: inside rcu_read_lock(), its lookup found slot %ld's node "
			 "(generation %u)", holders[i].cpu, holders[i].slot, holders[i].gen);

	demo_step_nopause("cap_revoke(slot 0) while they are inside");
	trace_mark("demo: cap_revoke under readers");
	note_revoke_gp();
	r = cap_revoke(mk_cs, 0);
	demo_say("%d %s unpublished (rcu_assign_pointer(slot, NULL)), %s", r,
		 r == 1 ? "capability" : "capabilities", r == 1 ? "its node" : "each node");
	demo_say("queued with call_rcu(): no lock waits for the readers, nothing is freed yet.");
	r = cap_lookup(mk_cs, 1, KOBJ_ENDPOINT, SYS_CAP_WRITE, &ref);
	if (!r)
		kobject_put(ref.obj);
	demo_say("A new call through slot 1 fails at once: %d%s", r, r == -EBADF ? " (-EBADF)" : "");
	if (r != -EBADF)
		demo_fail("a revoked capability was still found");
	if (!wait_for_gp(n))
		demo_fail("no grace period waits for the readers' CPUs");
	owed(buf, sizeof(buf), &ours);
	if (ours)
		demo_say("The grace period that began after the revoke waits for: %s", buf);
	else
		demo_say("A grace period that began before the revoke waits for: %s (the revoke's "
			 "comes next)", buf);
	say_own_cpu(n);

	demo_step_nopause("The readers leave, one CPU at a time");
	for (int i = 0; i < n; i++) {
		if (all_freed(n))
			demo_fail("the nodes were freed while a reader still held one");
		release(&holders[i]);
	}
	for (int i = 0; i < GP_WAIT_MS && !all_freed(n); i++)
		msleep(1);
	trace_mark("demo: the revoked nodes are free");
	if (!all_freed(n)) {
		demo_fail("the revoked nodes were not freed after the grace period");
	} else {
		if (n == 1)
			demo_say("Grace period over: the revoked node is freed (odd generation) --");
		else
			demo_say("Grace period over: the %d revoked nodes are freed (odd "
				 "generations) --", n);
		demo_say("after every CPU that could hold one passed a quiescent state, not before.");
		demo_say("Their memory stays a cache of capability nodes, so a late reader that");
		demo_say("read one would find its generation changed, never foreign data.");
	}
	cap_delete(mk_cs, 0);
out:
	for (int i = 0; i < MAX_HOLDERS; i++) {
		if (holders[i].task) {
			WRITE_ONCE(holders[i].release, true);
			kthread_stop(holders[i].task);
			holders[i].task = NULL;
		}
	}
	if (mk_cs) {
		cspace_destroy(mk_cs);
		cspace_free(mk_cs);
	}
	if (q)
		quota_put(q);
	mk_cs = NULL;
	object_settle();
}

DEMO(microkernel, "A microkernel: servers by capability, a revoke under RCU readers")
{
	root_task_runs();
	revoke_under_readers();
}
