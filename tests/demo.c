/*
 * The narrated demos (kernel/demo/) and the monitor (kernel/monitor.c):
 * each demo is played as `make run` would without a terminal (no pauses,
 * no colour) and must end with "demo NAME: done" and print what it
 * claims -- the figures' versions of the list, the grace period visiting
 * every CPU, the quizzes' counts.  The monitor's commands are run from
 * canned lines.
 */
#include <stdlib.h>
#include "ktest.h"
#include "demo.h"
#include "monitor.h"

static char out[32768];

/* Plays one demo non-interactively with its narration captured in out. */
static bool play(const char *name)
{
	const struct demo *d = demo_find(name);
	int pace = demo_set_pace(0);
	bool color = demo_set_color(false);
	bool ok;

	console_capture(out, sizeof(out));
	ok = d && demo_run(d);
	console_capture(NULL, 0);
	demo_set_pace(pace);
	demo_set_color(color);
	return ok;
}

static bool said(const char *text)
{
	if (strstr(out, text))
		return true;
	ktest_info("the demo did not print \"%s\"", text);
	return false;
}

/* Both were printed, a first. */
static bool said_before(const char *a, const char *b)
{
	const char *pa = strstr(out, a), *pb = strstr(out, b);

	if (pa && pb && pa < pb)
		return true;
	ktest_info("the demo did not print \"%s\" before \"%s\"", a, b);
	return false;
}

/* The number printed right after text, or -1. */
static long said_number(const char *text)
{
	const char *p = strstr(out, text);

	return p ? strtol(p + strlen(text), NULL, 10) : -1;
}

KTEST(demo_registry_in_article_order)
{
	static const char *const order[] = {
		"publish", "list_publish", "deletion", "replacement", "qq1_seqlock",
		"qq2_add_race", "qq3_hlist", "qq45_versions", "qq6_cost", "api_table",
	};
	int i = 0;

	KASSERT(demo_count() >= (int)ARRAY_SIZE(order));
	/* Ours come in this order (others may sit between them). */
	for (int k = 0; k < demo_count() && i < (int)ARRAY_SIZE(order); k++)
		if (!strcmp(demo_get(k)->name, order[i]))
			i++;
	KEXPECT_EQ(i, (int)ARRAY_SIZE(order));
	KEXPECT(demo_find("deletion") != NULL);
	KEXPECT(demo_find("no_such_demo") == NULL);
	for (int k = 0; k < demo_count(); k++)
		KEXPECT(demo_get(k)->title && demo_get(k)->title[0]);
}

KTEST(demo_publish)
{
	KEXPECT(play("publish"));
	KEXPECT(said("demo publish: done"));
	KEXPECT(said("then it saw 1,2,3: the whole foo"));
	KEXPECT(said("saw 1,2,3, and 0 saw a"));
	/* It says what the count does not prove on these machines. */
	KEXPECT(said("a plain gp = p would print the same 0"));
}

KTEST(demo_list_publish)
{
	KEXPECT(play("list_publish"));
	KEXPECT(said("demo list_publish: done"));
	KEXPECT(said("now sees: head -> 9,10,11\n"));
	KEXPECT(said("now sees: head -> 1,2,3 -> 5,6,7 -> 9,10,11\n"));
	KEXPECT(said(", 0 incomplete elements"));
}

KTEST(demo_deletion)
{
	char line[64];
	int cpu;

	KEXPECT(play("deletion"));
	KEXPECT(said("demo deletion: done"));
	KEXPECT(said("the list:     head -> [1,2,3]* -> [5,6,7]* -> [9,10,11]*\n"));
	/* Both versions after list_del_rcu(), then one. */
	KEXPECT(said("new readers:  head -> [1,2,3]* -> [9,10,11]*\n"));
	KEXPECT(said("old readers:  head -> [1,2,3]* -> [5,6,7]* -> [9,10,11]*\n"));
	/* The loop is the demo's copy of synchronize_rcu()'s, and it says so. */
	KEXPECT(said("the demo runs synchronize_rcu()'s loop"));
	KEXPECT(said("the real function adds only its bookkeeping"));
	/* Every CPU but the updater's own (CPU0, where tests run) switched. */
	for_each_online_cpu(cpu) {
		if (cpu == 0)
			continue;
		snprintf(line, sizeof(line), "on CPU%d: it switched", cpu);
		KEXPECT(said(line));
	}
	/* Its own CPU says what happened there: no switch, or the queued tasks ran. */
	KEXPECT(strstr(out, "on CPU0: no switch: the updater was already here") ||
		strstr(out, "on CPU0: the updater is already here; run_on() let the tasks"));
	KEXPECT(said("back to one version"));
	KEXPECT(said("every reader: head -> [1,2,3]* -> [9,10,11]*\n"));
	KEXPECT(said("p:            5,6,7   (unreachable"));
	KEXPECT(said("5,6,7 is freed"));
	KEXPECT(said("0 anything else"));
	KEXPECT(said("still found 5,6,7: 0."));
	if (num_online_cpus() > 1) {
		KEXPECT(said("found 5,6,7 and keeps it"));
		KEXPECT(said("sees from p: [5,6,7]* -> [9,10,11]*"));
		KEXPECT(said("waited for it"));
		/* The reader left before the tour got past its CPU. */
		KEXPECT(said_before("rcu_read_unlock(): it no longer holds 5,6,7",
				    "for the reader holding 5,6,7, which the demo keeps there"));
		/* With two CPUs the walker and the reader share CPU1, and it says so. */
		KEXPECT(!!strstr(out, "the walker shares CPU1 with the reader") ==
			(num_online_cpus() == 2));
	} else {
		KEXPECT(said("one CPU: a reader cannot be inside"));
	}
}

KTEST(demo_replacement)
{
	KEXPECT(play("replacement"));
	KEXPECT(said("demo replacement: done"));
	KEXPECT(said("q:            ?,?,?"));
	KEXPECT(said("q:            5,6,7"));
	KEXPECT(said("q:            5,2,7"));
	KEXPECT(said("q:            5,2,3"));
	KEXPECT(said("new readers:  head -> [1,2,3]* -> [5,2,3]* -> [9,10,11]*\n"));
	KEXPECT(said("old readers:  head -> [1,2,3]* -> [5,6,7]* -> [9,10,11]*\n"));
	KEXPECT(said("synchronize_rcu() returned after"));
	KEXPECT(said("every reader: head -> [1,2,3]* -> [5,2,3]* -> [9,10,11]*\n"));
	KEXPECT(said("the replacement is complete"));
	KEXPECT(said("0 anything else"));
	if (num_online_cpus() > 1) {
		KEXPECT(said("sees from p: [5,6,7]* -> [9,10,11]*"));
		/* Line 6 follows Line 5 at once: the reader still holds 5,6,7. */
		KEXPECT(said("the reader on CPU1 still holds 5,6,7; the real synchronize_rcu()"));
		KEXPECT(said_before("rcu_read_unlock(): it no longer holds 5,6,7",
				    "synchronize_rcu() returned after"));
		KEXPECT(said("it waited for the reader on CPU1"));
	}
}

KTEST(demo_qq1_seqlock)
{
	KEXPECT(play("qq1_seqlock"));
	KEXPECT(said("demo qq1_seqlock: done"));
	KEXPECT(said("every one useful, none retried; 0 inconsistent"));
	KEXPECT(said_number("seqlock readers: ") > 0);
	KEXPECT(said_number("RCU readers: ") > 0);
}

KTEST(demo_qq2_add_race)
{
	KEXPECT(play("qq2_add_race"));
	KEXPECT(said("demo qq2_add_race: done"));
	KEXPECT(said("400 additions"));
	KEXPECT(said("0 incomplete elements; 0 faults"));
}

KTEST(demo_qq3_hlist)
{
	KEXPECT(play("qq3_hlist"));
	KEXPECT(said("demo qq3_hlist: done"));
	KEXPECT(said("visits 12 elements, the new form 12"));
	KEXPECT(said("bucket 5: -> 13,14,15 -> NULL"));
	/* hlist_replace_rcu(), hlist_add_before_rcu(), hlist_add_behind_rcu(). */
	KEXPECT(said("bucket 1: -> 17,18,19 -> 9,90,91 -> 25,26,27 -> 1,2,3 -> NULL"));
	KEXPECT(said(", 0 torn elements, 0 misses"));
	KEXPECT(said(" 0 misses of keys nobody removed"));
}

KTEST(demo_qq45_versions)
{
	KEXPECT(play("qq45_versions"));
	KEXPECT(said("demo qq45_versions: done"));
	KEXPECT(said("at most 1 removed-but-not-freed at once: at most 2 versions"));
	KEXPECT(said_number("now up to ") >= 3);
}

KTEST(demo_qq6_cost)
{
	const char *busy;

	KEXPECT(play("qq6_cost"));
	KEXPECT(said("demo qq6_cost: done"));
	KEXPECT(said_number("no writer:   ") > 0);
	KEXPECT(said_number("with writer: ") >= 0);
	KEXPECT(said("TCG there are no caches to miss"));
	/* The part RCU itself takes: quiescent states through rcu_state.lock. */
	KEXPECT(said(" ns a cond_resched() that reported one, "));
	KEXPECT(said("Measured above: "));
	/* The writer's kfree_rcu()s made grace periods while it ran. */
	busy = strstr(out, "with writer: ");
	busy = busy ? strstr(busy, "passes/ms; ") : NULL;
	KEXPECT(busy && strtol(busy + strlen("passes/ms; "), NULL, 10) > 0);
}

KTEST(demo_api_table)
{
	KEXPECT(play("api_table"));
	KEXPECT(said("demo api_table: done"));
	KEXPECT(said("Pointers | rcu_assign_pointer()"));
	KEXPECT(said("hlist_replace_rcu()"));
	if (num_online_cpus() == 1) {
		KEXPECT(said("one CPU: no reader can be inside"));
		return;
	}
	/* The grace period ended after the outer unlock, not the inner one. */
	KEXPECT(said("it waited for the outermost rcu_read_unlock(), not the inner one"));
	KEXPECT(said_before("outer rcu_read_unlock(): now it no longer holds",
			    "synchronize_rcu() returned after"));
	if (CONFIG_RCU_CHECKING)
		KEXPECT(said("inner rcu_read_unlock(): nesting now 1, still a reader"));
	/* The reader in an interrupt handler held up the grace period. */
	KEXPECT(said("in an interrupt handler (in_interrupt() true): rcu_read_lock();"));
	KEXPECT(said("ms after the handler's rcu_read_unlock()"));
}

/* The monitor's commands, from canned lines; its output goes through printk on this CPU. */
static enum monitor_result mon(const char *line)
{
	enum monitor_result r;

	console_capture(out, sizeof(out));
	r = monitor_exec(line);
	console_capture(NULL, 0);
	return r;
}

KTEST(demo_monitor_commands)
{
	char me[64];

	KEXPECT_EQ(mon(""), MON_EMPTY);
	KEXPECT_EQ(mon("   "), MON_EMPTY);
	KEXPECT_EQ(mon("help"), MON_OK);
	KEXPECT(said("torture SECONDS"));
	KEXPECT(said("backtrace"));
	KEXPECT_EQ(mon("cpus"), MON_OK);
	KEXPECT(said("CPU0: running"));
	snprintf(me, sizeof(me), "CPU%d: running %s (pid %d)", smp_processor_id(),
		 current->comm, current->pid);
	KEXPECT(said(me));			/* non-preemptive: still on that CPU */
	KEXPECT_EQ(mon("ps"), MON_OK);
	KEXPECT(said("CPU0: current"));
	KEXPECT_EQ(mon("rcu"), MON_OK);
	KEXPECT(said("call_rcu() grace period "));
	KEXPECT(said("synchronize_rcu() tours in progress: 0 "));
	KEXPECT(said("CPUs that still owe it a quiescent state: "));
	KEXPECT(said("callbacks queued: "));
	KEXPECT_EQ(mon("demo"), MON_OK);
	KEXPECT(said("deletion"));
	KEXPECT_EQ(mon("trace clear"), MON_OK);
	KEXPECT_EQ(mon("halt"), MON_HALT);	/* the prompt loop ends QEMU, not monitor_exec() */
}

/* A reader that holds on until told, and an updater whose tour waits for it. */
static bool mon_release, mon_holding;

static int mon_reader_fn(void *arg)
{
	(void)arg;
	rcu_read_lock();
	WRITE_ONCE(mon_holding, true);
	while (!READ_ONCE(mon_release))
		udelay(50);		/* busy: no quiescent state on this CPU */
	rcu_read_unlock();
	return 0;
}

static int mon_updater_fn(void *arg)
{
	(void)arg;
	synchronize_rcu();
	return 0;
}

KTEST(demo_monitor_rcu_shows_a_tour_in_progress)
{
	struct task_struct *reader, *updater;
	struct rcu_stats s;
	u64 t0;

	if (num_online_cpus() < 2)
		KTEST_SKIP("needs two CPUs: a tour cannot wait for a reader on its own CPU");
	WRITE_ONCE(mon_release, false);
	WRITE_ONCE(mon_holding, false);
	reader = kthread_run_on_cpu(mon_reader_fn, NULL, num_online_cpus() - 1, "mon_reader");
	KASSERT(reader != NULL);
	while (!READ_ONCE(mon_holding))
		msleep(1);
	updater = kthread_run_on_cpu(mon_updater_fn, NULL, smp_processor_id(), "mon_updater");
	KEXPECT(updater != NULL);
	t0 = ktime_get_ns();
	do {
		msleep(1);	/* lets the updater start its tour */
		rcu_get_stats(&s);
	} while (s.tours_started == s.tours_completed && ktime_get_ns() - t0 < NSEC_PER_SEC);
	KEXPECT_EQ(mon("rcu"), MON_OK);
	KEXPECT(said("synchronize_rcu() tours in progress: 1 "));
	WRITE_ONCE(mon_release, true);
	if (updater)
		kthread_stop(updater);
	kthread_stop(reader);
	KEXPECT_EQ(mon("rcu"), MON_OK);
	KEXPECT(said("synchronize_rcu() tours in progress: 0 "));
}

KTEST(demo_monitor_bad_input)
{
	KEXPECT_EQ(mon("bogus"), MON_ERROR);
	KEXPECT(said("unknown command 'bogus'"));
	KEXPECT_EQ(mon("demo no_such_demo"), MON_ERROR);
	KEXPECT(said("no demo named 'no_such_demo'"));
	KEXPECT_EQ(mon("trace sideways"), MON_ERROR);
	KEXPECT_EQ(mon("torture"), MON_ERROR);
	KEXPECT_EQ(mon("torture soon"), MON_ERROR);
	KEXPECT_EQ(mon("torture 0"), MON_ERROR);
	KEXPECT_EQ(mon("test"), MON_ERROR);
	KEXPECT_EQ(mon("test no_test_is_called_this*"), MON_ERROR);
	KEXPECT_EQ(mon("a b c d e f"), MON_ERROR);
	/* Each error is one line. */
	KEXPECT_EQ(mon("bogus"), MON_ERROR);
	KEXPECT(strchr(out, '\n') == out + strlen(out) - 1);
}

KTEST(demo_microkernel)
{
	KEXPECT(play("microkernel"));
	KEXPECT(said("demo microkernel: done"));
	if (num_online_cpus() < 2)
		KTEST_SKIP("the revoke under readers needs a second CPU");
	KEXPECT(said("A new call through slot 1 fails at once: -9 (-EBADF)"));
	KEXPECT(said_before(" the revoke waits for: CPU", "leaves its lookup"));
	KEXPECT(said_before("leaves its lookup", "Grace period over"));
	KEXPECT(!strstr(out, "FREED under it"));
}

KTEST(demo_urcu_server)
{
	KEXPECT(play("urcu_server"));
	KEXPECT(said("demo urcu_server: done"));
	KEXPECT(said("entries freed, each after its grace period; no reader met one"));
	if (num_online_cpus() < 2)
		KTEST_SKIP("a reader held across the replacement needs a second CPU");
	KEXPECT(said_before("CPU1 still holds v1", "v1 is still not freed (0 freed)"));
	KEXPECT(said_before("lets go of v1", "call_rcu() frees v1"));
}
