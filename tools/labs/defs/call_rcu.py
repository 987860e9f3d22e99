# Lab 3: call_rcu() from the context-switch hook.  Handout: docs/labs/call_rcu.md
ORDER = 3
SUMMARY = "call_rcu(): grace periods driven by the context-switch hook, callback segments"

FUNCTIONS = [
    ("kernel/rcu/callbacks.c", "advance_callbacks", """
	(void)rdp;
	panic("lab stub: advance_callbacks");
"""),
    ("kernel/rcu/gp.c", "rcu_gp_end", """
	panic("lab stub: rcu_gp_end");
"""),
    ("kernel/rcu/gp.c", "report_qs_locked", """
	(void)cpu; (void)gp;
	(void)rcu_gp_end;	/* yours to call */
	panic("lab stub: report_qs_locked");
"""),
    ("kernel/rcu/gp.c", "rcu_gp_start", """
	panic("lab stub: rcu_gp_start");
"""),
    ("kernel/rcu/callbacks.c", "call_rcu", """
	(void)head; (void)func;
	panic("lab stub: call_rcu");
"""),
]

PARTS = [
    {"id": "wait", "name": "call_rcu() waits for a held reader", "points": 20, "smp": [2, 4],
     "tests": "call_rcu_waits_for_a_held_reader", "timeout": 60},
    {"id": "once", "name": "callbacks run once; rcu_barrier() waits for them", "points": 15,
     "smp": [2], "tests": "call_rcu_callbacks_run_once*", "timeout": 60},
    {"id": "window", "name": "a reader right after its CPU's quiescent state", "points": 20,
     "smp": [2], "tests": "rcu_window_reader_after_qs_call_rcu", "timeout": 90},
    # gp_seq starts 300 grace periods below the wrap of its unsigned long;
    # this test drives it across (a boot that runs fewer never gets there).
    {"id": "wrap", "name": "grace-period numbers cross their wrap", "points": 20,
     "smp": [2], "tests": "counters_cross_the_wrap", "timeout": 60},
    {"id": "torture", "name": "rcutorture", "points": 15, "smp": [2],
     "tests": "rcutorture", "timeout": 120},
    # TCG cannot show a missing barrier: call_rcu()'s instructions can.
    {"id": "barrier", "name": "a full barrier in call_rcu() [call_rcu_mb]", "points": 10,
     "disasm": {"arch": "aarch64", "functions": [("kernel/rcu/callbacks.c", "call_rcu")]},
     "check": "call_rcu_barrier"},
]

NOT_GRADED = [
    "the barriers but call_rcu()'s (rcu_gp_start(), rcu_gp_end() and advance_callbacks() "
    "are static and may be inlined anywhere; make model checks the design's, "
    "docs/model.md), and where in call_rcu() its barrier stands",
    "the polled API's wait numbers (rcu_wait_begin()/rcu_wait_end()): the polled tests "
    "check them, the grade does not",
]
