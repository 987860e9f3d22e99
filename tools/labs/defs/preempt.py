# Lab 5: preemption breaks classic RCU.  Handout: docs/labs/preempt.md
ORDER = 5
SUMMARY = "preemption breaks classic RCU: make the read side disable it (PREEMPT=1)"

# Graded on the PREEMPT=1 build (its own folder, build/ARCH-preempt).
MAKE_VARS = ["PREEMPT=1"]

# The starter is the read side as it is without preemption: nothing.
FUNCTIONS = [
    ("kernel/rcu/rcupdate.h", "__rcu_read_lock", """
	/* lab stub: __rcu_read_lock: nothing stops the tick from preempting a reader */
"""),
    ("kernel/rcu/rcupdate.h", "__rcu_read_unlock", """
	/* lab stub: __rcu_read_unlock */
"""),
]

PARTS = [
    {"id": "preempts", "name": "the PREEMPT=1 build preempts (not yours: a sanity check)",
     "points": 10, "smp": [2], "tests": "preempt_tick*", "timeout": 60},
    {"id": "held", "name": "synchronize_rcu() waits for a held reader under preemption",
     "points": 40, "smp": [2], "tests": "synchronize_rcu_waits_for_a_held_reader",
     "timeout": 60},
    {"id": "nesting", "name": "an outer reader outlives its inner one (nesting)",
     "points": 30, "smp": [2], "tests": "preempt_outer_reader_outlives_its_inner_one",
     "timeout": 60},
    {"id": "examples", "name": "the article's examples under preemption", "points": 20,
     "smp": [2], "tests": "rcu_example*", "timeout": 60},
]

NOT_GRADED = [
    "the read side's cost: make bench PREEMPT=1 against make bench "
    "(docs/labs/preempt.md)",
    "what your functions compile to in the default build (make bench checks that the "
    "read side is zero instructions there; the grade builds PREEMPT=1 only)",
]
