# Lab 2: publish and subscribe.  Handout: docs/labs/publish.md
ORDER = 2
SUMMARY = "publish and subscribe: rcu_assign_pointer(), rcu_dereference(), the RCU lists"

FUNCTIONS = [
    ("kernel/rcu/rcupdate.h", "rcu_assign_pointer", r"""\
	do { (void)(p); (void)(v); panic("lab stub: rcu_assign_pointer"); } while (0)
"""),
    ("kernel/rcu/rcupdate.h", "rcu_dereference", r"""\
	({ panic("lab stub: rcu_dereference"); (p); })
"""),
    ("kernel/rcu/rculist.h", "__list_add_rcu", """
	(void)new; (void)prev; (void)next;
	panic("lab stub: __list_add_rcu");
"""),
    ("kernel/rcu/rculist.h", "list_del_rcu", """
	(void)entry;
	panic("lab stub: list_del_rcu");
"""),
    ("kernel/rcu/rculist.h", "list_replace_rcu", """
	(void)old; (void)new;
	panic("lab stub: list_replace_rcu");
"""),
    ("kernel/rcu/rculist.h", "hlist_add_head_rcu", """
	(void)n; (void)h;
	panic("lab stub: hlist_add_head_rcu");
"""),
    ("kernel/rcu/rculist.h", "hlist_del_rcu", """
	(void)n;
	panic("lab stub: hlist_del_rcu");
"""),
]

PARTS = [
    {"name": "the RCU list and hlist primitives", "points": 40, "smp": [2],
     "tests": "rculist_*", "timeout": 60},
    {"name": "publish and subscribe across CPUs", "points": 40, "smp": [2, 4],
     "tests": "rcu_publish*", "timeout": 60},
    {"name": "the article's examples", "points": 20, "smp": [2],
     "tests": "rcu_example*", "timeout": 60},
]

NOT_GRADED = [
    "the release in rcu_assign_pointer(): a plain store passes every test under QEMU's "
    "TCG; docs/labs/publish.md shows how to see it in the AArch64 disassembly",
]
