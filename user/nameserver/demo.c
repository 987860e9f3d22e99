/*
 * `nameserver --demo` (make run DEMO=urcu_server: kernel/demo/
 * 60_urcu_server.c): the name server's own table, a reader on every
 * other CPU looking "printer" up round after round, and a writer (this
 * thread, CPU 0) replacing it.  First one reader holds the old entry
 * across the replacement: the others find the new one at once, and the
 * old one is freed only after the holder lets go.  Then many
 * replacements under every reader, each lookup checked for poison.
 */
#include <stdio.h>
#include <string.h>
#include "names.h"
#include "qserver.h"
#include "urcu-qsbr.h"

#define VERSIONS	3
#define MAX_READERS	15
#define REPLACEMENTS	30
#define WAIT_NS		(10ULL * 1000000000ULL)	/* generous: a grace period takes milliseconds */
#define HOLD_SHOW_NS	(200ULL * 1000000ULL)

static unsigned long objects[VERSIONS];	/* the object each version's capability reaches */
static int stop, hold, holding;		/* the writer's word to the readers; the holder's */

struct reader {
	int cpu, tid;
	unsigned long seen[VERSIONS], other;	/* lookups that found each version; anything else */
};

/* The version (0..VERSIONS-1) the capability in slot stands for, or -1. */
static int version_of(int slot)
{
	struct sys_cap_info info;

	if (q_cap_inspect(slot, &info))
		return -1;
	for (int v = 0; v < VERSIONS; v++)
		if (info.object == objects[v])
			return v;
	return -1;
}

/* One lookup in a read-side section; the holder (hold set) keeps its entry until told. */
static void lookup(struct reader *r, bool holder)
{
	struct name *n;
	int v;

	rcu_read_lock();
	n = find("printer");
	v = n ? version_of(n->slot) : -1;
	if (holder) {
		__atomic_store_n(&holding, 1, __ATOMIC_RELEASE);
		while (__atomic_load_n(&hold, __ATOMIC_ACQUIRE))
			;	/* online, no quiescent state: every grace period waits for us */
	}
	if (n)
		q_entry_check("nameserver demo", READ_ONCE(n->live));
	rcu_read_unlock();
	/*
	 * Print only outside the section: printf() may block (an IPC to the
	 * console server under make run), and blocking inside one is the
	 * misuse the library reports.
	 */
	if (holder)
		printf("demo: the reader on CPU%d lets go of v%d: its entry whole to the end\n",
		       r->cpu, v + 1);
	rcu_quiescent_state();
	if (v >= 0)
		r->seen[v]++;
	else
		r->other++;
}

static int reader(void *arg)
{
	struct reader *r = arg;

	rcu_register_thread();
	while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE))
		lookup(r, r->cpu == 1 && __atomic_load_n(&hold, __ATOMIC_ACQUIRE));
	rcu_unregister_thread();
	return r->other != 0;
}

/* A sleep, offline: a QSBR thread asleep online would hold up every grace period. */
static void nap(uint64_t ns)
{
	rcu_thread_offline();
	q_sleep_ns(ns);
	rcu_thread_online();
}

/* Waits until cond(arg) or WAIT_NS: true if it held. */
static bool wait_for(bool (*cond)(void *arg), void *arg)
{
	uint64_t end = q_clock_ns() + WAIT_NS;

	while (!cond(arg)) {
		if (q_clock_ns() > end)
			return false;
		nap(1000000);
	}
	return true;
}

static bool holder_inside(void *arg) { (void)arg; return __atomic_load_n(&holding, __ATOMIC_ACQUIRE); }
static bool freed_one(void *arg) { return __atomic_load_n(&ns_freed, __ATOMIC_RELAXED) >= *(unsigned long *)arg; }

/* Every reader but the holder (CPU1) found v2 at least once. */
static bool others_see_v2(void *arg)
{
	struct reader *r = arg;

	for (; r->cpu; r++)
		if (r->cpu != 1 && !__atomic_load_n(&r->seen[1], __ATOMIC_RELAXED))
			return false;
	return true;
}

/* Replaces "printer" with version v (our copy of its capability goes to the table). */
static long replace(int ntf[], int v)
{
	return update(NS_REPLACE, 1, "printer", q_cap_copy(ntf[v], SYS_CAP_ANY_SLOT));
}

static int held_across_replacement(int ntf[], struct reader readers[])
{
	unsigned long one = 1;

	__atomic_store_n(&hold, 1, __ATOMIC_RELEASE);
	if (!wait_for(holder_inside, NULL))
		return 1;
	printf("demo: the reader on CPU1 found v1 and holds it inside rcu_read_lock()\n");
	if (replace(ntf, 1))
		return 1;
	printf("demo: the writer replaces \"printer\" with v2 (list_replace_rcu()) and hands v1 "
	       "to call_rcu()\n");
	if (!wait_for(others_see_v2, readers))
		return 1;
	printf("demo: the readers on the other CPUs find v2 already; CPU1 still holds v1\n");
	nap(HOLD_SHOW_NS);
	printf("demo: %llu ms later v1 is still not freed (%lu freed): the grace period waits "
	       "for CPU1\n", HOLD_SHOW_NS / 1000000, __atomic_load_n(&ns_freed, __ATOMIC_RELAXED));
	if (__atomic_load_n(&ns_freed, __ATOMIC_RELAXED))
		return 1;
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
	if (!wait_for(freed_one, &one))
		return 1;
	printf("demo: CPU1's quiescent state ends the grace period: call_rcu() frees v1, "
	       "poisoned\n");
	return 0;
}

int ns_demo(void)
{
	int ntf[VERSIONS], ncpus = q_nr_cpus(), n = 0, bad = 0;
	struct reader readers[MAX_READERS + 1] = { 0 };	/* (ends with cpu 0) */
	struct sys_exit_status st;

	for (int v = 0; v < VERSIONS; v++) {
		struct sys_cap_info info = { 0 };

		ntf[v] = q_notification_create(SYS_CAP_ANY_SLOT);
		bad += ntf[v] < 0 || q_cap_inspect(ntf[v], &info) != 0;
		objects[v] = info.object;
	}
	rcu_register_thread();
	if (bad || update(NS_REGISTER, 1, "printer", q_cap_copy(ntf[0], SYS_CAP_ANY_SLOT)))
		return 1;
	for (int cpu = 1; cpu < ncpus && n < MAX_READERS; cpu++, n++) {
		readers[n].cpu = cpu;
		readers[n].tid = q_thread_create(reader, &readers[n], cpu);
		bad += readers[n].tid < 0;
	}
	printf("demo: \"printer\" is v1; a reader on each of CPUs 1-%d looks it up, round after "
	       "round, with no lock\n", n);
	if (n && !bad)
		bad += held_across_replacement(ntf, readers);
	for (int i = 0; i < REPLACEMENTS && !bad; i++)
		bad += replace(ntf, i % VERSIONS) != 0;
	__atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&hold, 0, __ATOMIC_RELEASE);
	for (int i = 0; i < n; i++) {
		bad += readers[i].tid < 0 || q_thread_join(readers[i].tid, &st) || st.status;
		printf("demo: reader on CPU%d: %lu lookups of v1, %lu of v2, %lu of v3, %lu of "
		       "anything else\n", readers[i].cpu, readers[i].seen[0], readers[i].seen[1],
		       readers[i].seen[2], readers[i].other);
	}
	rcu_barrier();
	printf("demo: %d replacements under the readers; %lu entries freed, each after its grace "
	       "period; %s\n", REPLACEMENTS + 1, ns_freed, bad ? "FAILED" : "no reader met one");
	rcu_unregister_thread();
	return bad != 0;
}
