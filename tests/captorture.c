/*
 * captorture, in the manner of rcutorture: on every CPU, clients call
 * servers through capabilities while mutators delete, revoke, recreate
 * and copy those capabilities and children grow their capability tables
 * (the user half: tests/user/helpers/captorture.c).  Every lookup is an
 * RCU reader; every delete and revoke frees after a grace period.  The
 * kernel side widens the window: now and then a lookup of the torture's
 * own spaces lingers inside its read-side critical section (the lookup
 * hook), so that a free that did not wait for it finds it there: on the
 * even CPUs, while the mutators run on the odd ones (a CPU whose lookup
 * lingers runs nothing else, and a mutator waiting there for cap_mutex
 * would hold up the others).
 *
 * Lifetimes (issue 39): the program's victims call its holder, on an
 * even CPU, which receives only once a victim waits, so it claims each;
 * the claim hook kills the victim right there (and lingers until it went
 * back to sleep: the kill's wake-up is spent); the test grants an interrupt
 * capability for the console's line and a device capability for the
 * UART again and again, which the program binds and maps, and the bind
 * hook deletes the object's last capability now and then between a bind's
 * or a map's lookup and the object's lock (on an even CPU).
 *
 * At the end: lookups, revokes, grace periods, objects made and freed,
 * any use-after-free caught, then "--- End of test: SUCCESS" or
 * "FAILURE".  Fails under rcu.inject=no_wait and cap.inject=free_no_wait
 * (CI runs both as expected failures; tests/cap_window.c catches each
 * deterministically too), and under each rule's injection:
 * cap.inject=no_ref (a task freed while a held thread of it names it: the
 * checking build's panic), bind_unchecked (the line held, objects and an
 * address space leaked, after the end) and lost_wakeup (a victim that
 * never goes: the program's failure); tests/lifetimes.c catches each
 * deterministically.
 *
 *   captorture.duration=S     seconds (default 2)
 *   captorture.hold_every=N   one lookup in N that found a capability lingers
 *                             (default 1: all; 0: none)
 *   captorture.hold_us=U      for up to U microseconds (default 5000), or
 *                             until a little after its slot changed
 */
#include "ktest.h"
#include "object/cap.h"
#include "object/device.h"
#include "object/interrupt.h"
#include "object/ipc.h"
#include "user/thread.h"
#include "user/fastpath.h"
#include "captorture.h"
#include "driver_test.h"
#include "object/lookup.h"
#include <errno.h>

#define PROGRAM		"tests/user/helpers/captorture"

static int duration_s = 2, hold_every = 1, hold_us = 5000;
KPARAM_INT("captorture.duration", duration_s, 1, 3600);
KPARAM_INT("captorture.hold_every", hold_every, 0, 1 << 20);
KPARAM_INT("captorture.hold_us", hold_us, 1, 100000);

static DEFINE_PER_CPU(u32, hold_rand);
static DEFINE_PER_CPU(unsigned long, holds);
static DEFINE_PER_CPU(unsigned long, holds_changed);	/* held across a change of their slot */

/* How long a lingering lookup stays once its slot changed: long enough for a free that does not wait. */
#define LINGER_AFTER_CHANGE_NS	(500 * NSEC_PER_USEC)

/*
 * Inside a lookup's critical section (cap_lookup_hook), the node found:
 * now and then the torture's lookups linger, until their slot is
 * unpublished (deleted, revoked, moved) and a little after -- the window
 * in which a free that did not wait for the grace period would land --
 * or until hold_us ran out.
 */
static void torture_hold(struct cspace *cs, long slot)
{
	u32 *rnd = &per_cpu(hold_rand, smp_processor_id());
	struct cap *found = cap_lookup_rcu(cs, slot);
	u64 t0, changed = 0, now;

	/* (the clients' region only, on the CPUs without mutators: captorture.h) */
	if (!hold_every || !cs->task || strcmp(cs->task->name, CT_NAME) || slot < CT_REGION ||
	    slot >= CT_REGION + CT_REGION_SLOTS ||
	    !ct_lingering_cpu(smp_processor_id(), num_online_cpus()))
		return;
	if (prandom_u32(rnd) % hold_every)
		return;
	this_cpu_inc(holds);
	t0 = ktime_get_ns();
	while ((now = ktime_get_ns()) - t0 < (u64)hold_us * NSEC_PER_USEC) {
		if (!changed && cap_lookup_rcu(cs, slot) != found) {
			changed = now;
			this_cpu_inc(holds_changed);
		}
		if (changed && now - changed > LINGER_AFTER_CHANGE_NS)
			break;
		cpu_relax();
	}
}

static atomic_long_t claimed_kills, bind_cuts, irq_granted, dev_granted;

static bool torture_lingers_here(struct user_task *t)
{
	return !strcmp(t->name, CT_NAME) && ct_lingering_cpu(smp_processor_id(), num_online_cpus());
}

/* Spins until done() or us ran out; once done, LINGER_AFTER_CHANGE_NS more. */
static void linger_until(bool (*done)(void *), void *arg, u64 us)
{
	u64 t0 = ktime_get_ns(), seen = 0, now;

	while ((now = ktime_get_ns()) - t0 < us * NSEC_PER_USEC) {
		if (!seen && done(arg))
			seen = now;
		if (seen && now - seen > LINGER_AFTER_CHANGE_NS)
			break;
		cpu_relax();
	}
}

static bool asleep(void *arg)
{
	return READ_ONCE(((struct task_struct *)arg)->state) == TASK_BLOCKED;
}

/*
 * ipc_claim_hook: the holder claimed a victim's call.  The victim is
 * killed right there, and we linger until it went back to sleep (the
 * kill's wake-up found it claimed): whoever moves it on must wake it
 * again.  Its message says so, for the holder (which kills the others
 * itself).
 */
static void torture_claim(struct thread_obj *th)
{
	if (!torture_lingers_here(th->ut->task) || SYS_MSG_LABEL(th->msg.info) != CT_LABEL_HOLD)
		return;
	th->msg.w[3] = CT_KILLED_CLAIMED;	/* (claimed: nobody else touches it) */
	user_thread_kill(th->ut);
	atomic_long_inc(&claimed_kills);
	linger_until(asleep, th->ut->kt, hold_us);
}

/*
 * object_bind_hook: a bind or a device map of the torture's, between its
 * lookup and the object's lock.  One in BIND_CUT_EVERY, the object loses
 * its last capability right there (as another thread of the program
 * could delete it): the bind must see it.
 */
#define BIND_CUT_EVERY	4

static void torture_bind(struct kobject *obj)
{
	u32 *rnd = &per_cpu(hold_rand, smp_processor_id());
	struct user_task *t = current->user ? current->user->task : NULL;

	if (!t || !torture_lingers_here(t) || prandom_u32(rnd) % BIND_CUT_EVERY)
		return;
	if (!cap_revoke_object(t->cspace, obj->head.type == KOBJ_INTERRUPT ? CT_IRQ_SLOT :
			       CT_DEV_SLOT, obj))
		atomic_long_inc(&bind_cuts);
}

/* The console's line for the run (-1: none), and the UART's registers. */
static int torture_line = -1;

/* The interrupt and device capabilities the program binds and deletes, granted again. */
static void regrant(struct user_task *t)
{
	struct device_regs regs;

	if (torture_line >= 0 && interrupt_cap_grant(t->cspace, CT_IRQ_SLOT, torture_line) >= 0)
		atomic_long_inc(&irq_granted);
	arch_console_regs(&regs);
	if (device_cap_grant(t->cspace, CT_DEV_SLOT, &regs) >= 0)
		atomic_long_inc(&dev_granted);
}

#define REGRANT_MS	50

/*
 * Runs until t ended or the budget ran out, granting meanwhile: true if it
 * ended.  IPC's fast path goes off and on at each grant (when it is on at
 * all), so the run goes through both ways, and through a switch between
 * them with threads waiting.
 */
static bool run_granting(struct user_task *t, u64 budget, struct sys_exit_status *st)
{
	u64 end = ktime_get_ns() + budget;
	bool fast = ipc_fastpath_enabled(), ended = true;
	unsigned int grants = 0;

	while (user_task_wait_timeout(t, (u64)REGRANT_MS * NSEC_PER_MSEC, st)) {
		if (ktime_get_ns() > end) {
			ended = false;
			break;
		}
		regrant(t);
		if (fast)
			ipc_fastpath_set(++grants % 2 == 0);
	}
	if (fast)
		ipc_fastpath_set(true);
	return ended;
}

struct snapshot {
	struct cspace_stats cs;
	struct cap_stats cap;
	struct object_stats obj;
	struct ipc_stats ipc;
	struct rcu_stats rcu;
	u64 direct;
	unsigned long holds, holds_changed;
	long tasks, mms, kmalloc_objects;
};

static void snap(struct snapshot *s)
{
	int cpu;

	cspace_get_stats(&s->cs);
	cap_get_stats(&s->cap);
	object_get_stats(&s->obj);
	ipc_get_stats(&s->ipc);
	rcu_get_stats(&s->rcu);
	s->tasks = user_tasks_live();
	s->mms = mm_live_count();
	s->kmalloc_objects = kmalloc_live_objects();
	s->direct = 0;
	s->holds = s->holds_changed = 0;
	for_each_possible_cpu(cpu) {
		s->direct += sched_nr_direct_switches(cpu);
		s->holds += READ_ONCE(per_cpu(holds, cpu));
		s->holds_changed += READ_ONCE(per_cpu(holds_changed, cpu));
	}
}

static void report(const struct snapshot *a, const struct snapshot *b)
{
	unsigned long made = 0, freed = 0;

	for (int t = 1; t < NR_KOBJ_TYPES; t++) {
		made += b->obj.created[t] - a->obj.created[t];
		freed += b->obj.freed[t] - a->obj.freed[t];
	}
	ktest_info("captorture: %lu lookups%s (%lu failed: slot empty, wrong type or right), "
		   "%lu held in their read side, %lu of them across a change of their slot",
		   b->cs.lookups - a->cs.lookups,
		   CONFIG_RCU_CHECKING ? "" : " counted (the production build counts none)",
		   b->cs.lookup_errors - a->cs.lookup_errors,
		   b->holds - a->holds, b->holds_changed - a->holds_changed);
	ktest_info("captorture: %lu revokes deleted %lu capabilities; %lu deleted in all, "
		   "%lu derived, %lu refused while revoking; tables grew %lu times",
		   b->cap.revokes - a->cap.revokes, b->cap.revoked - a->cap.revoked,
		   b->cap.deleted - a->cap.deleted, b->cap.derived - a->cap.derived,
		   b->cap.busy - a->cap.busy, b->cs.grows - a->cs.grows);
	ktest_info("captorture: %lu calls, %lu replies, %llu direct switches, %lu capabilities "
		   "sent; objects: %lu made, %lu freed", b->ipc.calls - a->ipc.calls,
		   b->ipc.replies - a->ipc.replies, (unsigned long long)(b->direct - a->direct),
		   b->ipc.caps_sent - a->ipc.caps_sent, made, freed);
	ktest_info("captorture: IPC's fast path: %lu calls, %lu replies-and-receives, %lu "
		   "switches declined", b->ipc.fast_calls - a->ipc.fast_calls,
		   b->ipc.fast_replies - a->ipc.fast_replies,
		   b->ipc.fast_declined - a->ipc.fast_declined);
	ktest_info("captorture: %lu grace periods, %llu callbacks invoked; use-after-free caught: %lu",
		   b->rcu.gps_completed - a->rcu.gps_completed,
		   b->rcu.cbs_invoked - a->rcu.cbs_invoked, b->obj.uaf_caught - a->obj.uaf_caught);
	ktest_info("captorture: tasks %ld -> %ld, address spaces %ld -> %ld, kmalloc objects %ld -> %ld",
		   a->tasks, b->tasks, a->mms, b->mms, a->kmalloc_objects, b->kmalloc_objects);
	ktest_info("captorture: %ld victims killed while claimed, %ld binds and maps whose object "
		   "lost its last capability after their lookup; %ld interrupt and %ld device "
		   "capabilities granted", atomic_long_read(&claimed_kills),
		   atomic_long_read(&bind_cuts), atomic_long_read(&irq_granted),
		   atomic_long_read(&dev_granted));
}

KTEST(captorture)
{
	struct snapshot before, after;
	struct sys_exit_status st = { 0 };
	struct user_task *t;
	char cmd[80];
	bool fail = false, ended, line_free = true;
	int err, cpu;

	for_each_possible_cpu(cpu)
		per_cpu(hold_rand, cpu) = prandom_seed(0x5eed0000u + cpu);
	snprintf(cmd, sizeof(cmd), PROGRAM " %d", duration_s * 1000);
	atomic_long_set(&claimed_kills, 0);
	atomic_long_set(&bind_cuts, 0);
	atomic_long_set(&irq_granted, 0);
	atomic_long_set(&dev_granted, 0);
	torture_line = kernel_console_line();	/* (-1: no interrupts to bind) */
	if (torture_line >= 0)
		console_input_release();
	snap(&before);
	cap_lookup_hook = torture_hold;
	ipc_claim_hook = torture_claim;
	object_bind_hook = torture_bind;
	t = user_spawn_root(cmd, &err);	/* (its grower starts children of its program) */
	if (!t) {
		cap_lookup_hook = NULL;
		ipc_claim_hook = NULL;
		object_bind_hook = NULL;
		if (torture_line >= 0)
			console_input_reclaim();
		if (err == -ENOENT)
			KTEST_SKIP("no boot module " PROGRAM " (no user programs on this boot)");
		KASSERT(!"captorture's program started");
	}
	ended = run_granting(t, (u64)duration_s * NSEC_PER_SEC + ktest_budget_ns(60, 5), &st);
	if (!ended) {
		ktest_info("captorture: still running after its budget: killed");
		user_show_tasks();
		user_task_kill(t, SYS_KILLED_BY_KERNEL);
		user_task_wait_timeout(t, ktest_budget_ns(30, 2), &st);
	}
	user_task_put(t);
	cap_lookup_hook = NULL;
	ipc_claim_hook = NULL;
	object_bind_hook = NULL;
	user_settle();		/* every object and node freed, a grace period after */
	snap(&after);
	report(&before, &after);
	if (torture_line >= 0) {
		struct irq_stats line;

		/* (every binding went with its last capability, in the program's end: no wait) */
		line_free = irq_get_stats(torture_line, &line) && !line.held;
		if (!line_free)
			ktest_info("captorture: the console's line is still held: a binding outlived "
				   "its object's last capability");
		KEXPECT_EQ(console_input_reclaim(), 0);
	}

#define CT_EXPECT(cond) do { fail |= !(cond); KEXPECT(cond); } while (0)
	CT_EXPECT(ended);
	CT_EXPECT(st.killed == 0);
	CT_EXPECT(st.status == 0);		/* every call answered right, or failed as it may */
	CT_EXPECT(after.obj.uaf_caught == before.obj.uaf_caught);
	CT_EXPECT(after.cap.revokes > before.cap.revokes);
	CT_EXPECT(after.ipc.calls > before.ipc.calls);
	CT_EXPECT(line_free);
	CT_EXPECT(after.mms == before.mms);
	for (int type = 1; type < NR_KOBJ_TYPES; type++)
		CT_EXPECT(after.obj.live[type] == before.obj.live[type]);	/* nothing leaked */
#undef CT_EXPECT
	ktest_info("--- End of test: %s", fail ? "FAILURE" : "SUCCESS");
}
