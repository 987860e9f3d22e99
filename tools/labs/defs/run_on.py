# Lab 1: run_on() and the article's synchronize_rcu().  Handout: docs/labs/run_on.md
ORDER = 1
SUMMARY = "run_on() and the article's two-line synchronize_rcu()"

# (file, function, starter body): make lab puts each starter in place of
# the function's body; the rest of the kernel is the reference's.
FUNCTIONS = [
    ("kernel/run_on.c", "run_on", """
	(void)cpu;
	panic("lab stub: run_on");
"""),
    ("kernel/run_on.c", "finish_run_on", """
	(void)prev;
	panic("lab stub: finish_run_on");
"""),
    ("kernel/rcu/sync.c", "synchronize_rcu", """
	int cpu, home = smp_processor_id();
	unsigned long tour;

	might_sleep_check("synchronize_rcu");
	if (rcu_injected(RCU_INJECT_NO_WAIT))
		return;		/* fault injection: a grace period that waits for nothing */
	if (current->per_cpu) {
		synchronize_rcu_by_callback();	/* it may not leave its CPU: no tour */
		return;
	}
	tour = tour_begin();

	/* The article's synchronize_rcu(): yours to write (docs/labs/run_on.md). */
	(void)cpu;
	(void)home;
	panic("lab stub: synchronize_rcu (the tour)");

	/*
	 * [tour_end_mb] pairs [cpu_offline_mb]: a CPU we found offline, or
	 * that sent our hop on as it went, ran its last readers before its
	 * full barrier and its offline bit or hand-over; this one orders them
	 * before the caller's kfree() even when no switch of ours followed.
	 */
	smp_mb();
	tour_end(tour);
"""),
]

# Graded parts: an id (make grade PART=id), what it checks, points (shared
# out over the CPU counts), the tests (a ktest.filter glob), CPU counts,
# timeout (s); tools/labs/grading.py.
PARTS = [
    {"id": "moves", "name": "run_on() moves the task to each CPU", "points": 15, "smp": [2],
     "tests": "run_on_*", "timeout": 60},
    {"id": "held", "name": "held readers: synchronize_rcu() waits for them", "points": 25,
     "smp": [2, 4], "tests": "synchronize_rcu_waits_for_a_held_reader", "timeout": 60},
    {"id": "examples", "name": "the article's examples", "points": 20, "smp": [2, 4],
     "tests": "rcu_example*", "timeout": 60},
    {"id": "contexts", "name": "readers in every context, on idle CPUs too", "points": 25,
     "smp": [2], "tests": "rcu_window_held_readers_every_context_every_method",
     "timeout": 120},
    {"id": "trace", "name": "the trace: each tour runs on every CPU, one hop each",
     "points": 15, "smp": [2],
     "tests": "trace_scenario*", "cmdline": ["trace=rcu"], "timeout": 60,
     "check": "tour_visits_every_cpu"},
]

NOT_GRADED = [
    "the order of the tour's memory accesses (the smp_mb() of __schedule(), not yours; "
    "make model checks the hop: docs/model.md)",
]
