# Lab 6: a parallel grace period.  Handout: docs/labs/expedited.md
ORDER = 6
SUMMARY = "synchronize_rcu_expedited(): ask every CPU at once instead of touring them"

# The tests read exp_mask, exp_noted, exp_started and exp_completed through
# rcu_get_stats() (rcu_exp_get_stats(), given): the handout says what each
# must hold and when.  rcu_exp_note_qs() runs at every context switch from
# boot on, so its starter does nothing instead of panicking.
FUNCTIONS = [
    ("kernel/rcu/expedited.c", "rcu_exp_report", """
	(void)cpu;
	(void)exp_remaining; (void)exp_done;	/* yours to use */
	panic("lab stub: rcu_exp_report");
"""),
    ("kernel/rcu/expedited.c", "rcu_exp_handler", """
	(void)info;
	panic("lab stub: rcu_exp_handler");
"""),
    ("kernel/rcu/expedited.c", "rcu_exp_note_qs", """
	/* Lab stub: nothing yet (a panic here would stop the boot at its first switch). */
	return false;
"""),
    ("kernel/rcu/expedited.c", "synchronize_rcu_expedited", """
	unsigned long wait;

	might_sleep_check("synchronize_rcu_expedited");
	if (rcu_injected(RCU_INJECT_NO_WAIT))
		return;		/* fault injection: a grace period that waits for nothing */
	/*
	 * No CPU comes or goes meanwhile: a CPU in our mask that went offline
	 * before taking our IPI would never report (kernel/hotplug.c).
	 */
	cpus_read_lock();
	mutex_lock(&exp_mutex);
	wait = rcu_wait_begin();	/* numbered for the polled API, as a tour is */
	trace_record(TR_EXP_BEGIN, wait, 0);

	/*
	 * Yours (docs/labs/expedited.md): every online CPU owes a quiescent
	 * state; ask them all at once, and sleep until the last one reports.
	 */
	(void)rcu_exp_report;	/* yours to call */
	(void)rcu_exp_handler;	/* yours to send */
	(void)note_waiter;	/* yours to call as it begins: stall reports name the waiter */
	panic("lab stub: synchronize_rcu_expedited (ask every CPU)");

	rcu_wait_end(wait);
	WRITE_ONCE(exp_completed, exp_completed + 1);
	trace_record(TR_EXP_END, wait, 0);
	mutex_unlock(&exp_mutex);
	cpus_read_unlock();
"""),
]

# Graded parts, each at the smallest CPU count that shows it: a reader
# on every other CPU needs three (two CPUs to ask at once); the rest two.
PARTS = [
    {"id": "held",
     "name": "held readers on every CPU; idle CPUs; an idle task that reads; the polled API",
     "points": 40, "smp": [3], "tests": "synchronize_rcu_expedited_*", "timeout": 60},
    {"id": "examples", "name": "the article's examples", "points": 15, "smp": [2],
     "tests": "rcu_example*_expedited", "timeout": 60},
    {"id": "contexts", "name": "readers in every context (the window test)", "points": 20,
     "smp": [2], "tests": "rcu_window_held_readers_every_context_every_method",
     "timeout": 90},
    {"id": "trace", "name": "the trace: one report per CPU, no hop", "points": 15,
     "smp": [2], "tests": "trace_scenario*", "cmdline": ["trace=rcu"], "timeout": 60,
     "check": "expedited_asks_every_cpu_at_once"},
    # TCG cannot show a missing barrier: the caller's instructions can.
    {"id": "barriers", "name": "full barriers before the idle flags and after the wait",
     "points": 10,
     "disasm": {"arch": "aarch64",
                "functions": [("kernel/rcu/expedited.c", "synchronize_rcu_expedited")]},
     "check": "expedited_barriers"},
]

NOT_GRADED = [
    "the reports' ordering ([exp_report_mb], [exp_last_dec]: the atomics rcu_exp_report() "
    "uses; TCG cannot show a missing one, and the instruction check reads only the caller)",
]
