# Lab 4: idle and interrupts.  Handout: docs/labs/idle.md
ORDER = 4
SUMMARY = "idle as an extended quiescent state, and interrupts that leave it"

# These run on every idle entry and every interrupt from boot on, so the
# starters cannot panic at once: each panics when a grace period needs it.
FUNCTIONS = [
    ("kernel/rcu/gp.c", "rcu_idle_enter", """
	if (READ_ONCE(rcu_state.gp_seq) & 1)
		panic("lab stub: rcu_idle_enter (a grace period waits for this idle CPU)");
"""),
    ("kernel/rcu/gp.c", "rcu_idle_exit", """
	if (READ_ONCE(rcu_state.gp_seq) & 1)
		panic("lab stub: rcu_idle_exit");
"""),
    ("kernel/rcu/gp.c", "rcu_irq_enter", """
	if (READ_ONCE(rcu_state.gp_seq) & 1)
		panic("lab stub: rcu_irq_enter");
"""),
    ("kernel/rcu/gp.c", "rcu_irq_exit", """
	if (READ_ONCE(rcu_state.gp_seq) & 1)
		panic("lab stub: rcu_irq_exit");
"""),
]

PARTS = [
    {"id": "idle_gp", "name": "grace periods end while CPUs sit idle", "points": 25,
     "smp": [2, 4], "tests": "grace_period_completes_while_other_cpus_sit_idle",
     "timeout": 60},
    {"id": "idle_cbs", "name": "idle CPUs run their callbacks", "points": 15, "smp": [2],
     "tests": "rcu_window_callback_runs_within_ticks_when_idle", "timeout": 60},
    {"id": "leave", "name": "a CPU that leaves idle is waited for", "points": 20,
     "smp": [2], "tests": "rcu_window_reader_after_qs_call_rcu", "timeout": 90},
    {"id": "irq", "name": "readers in interrupt handlers on idle CPUs", "points": 25,
     "smp": [2], "tests": "rcu_window_held_readers_every_context_every_method",
     "timeout": 120},
    # TCG runs the guest nearly in order, so no test sees a missing
    # barrier: the AArch64 instructions of the two functions show it.
    {"id": "barriers", "name": "full barriers around the idle flag", "points": 15,
     "disasm": {"arch": "aarch64", "functions": [
         ("kernel/rcu/gp.c", "rcu_idle_enter"), ("kernel/rcu/gp.c", "rcu_idle_exit")]},
     "check": "idle_barriers"},
]

NOT_GRADED = [
    "interrupts that nest: no test takes an interrupt inside another's handler on an "
    "idle CPU",
]
