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
    ("lib/rculist.h", "__list_add_rcu", """
	(void)new; (void)prev; (void)next;
	panic("lab stub: __list_add_rcu");
"""),
    ("lib/rculist.h", "list_del_rcu", """
	(void)entry;
	panic("lab stub: list_del_rcu");
"""),
    ("lib/rculist.h", "list_replace_rcu", """
	(void)old; (void)new;
	panic("lab stub: list_replace_rcu");
"""),
    ("lib/rculist.h", "hlist_add_head_rcu", """
	(void)n; (void)h;
	panic("lab stub: hlist_add_head_rcu");
"""),
    ("lib/rculist.h", "hlist_del_rcu", """
	(void)n;
	panic("lab stub: hlist_del_rcu");
"""),
]

PARTS = [
    {"id": "lists", "name": "the RCU list and hlist primitives", "points": 35, "smp": [2],
     "tests": "rculist_*", "timeout": 60},
    {"id": "publish", "name": "publish and subscribe across CPUs", "points": 35,
     "smp": [2, 4], "tests": "rcu_publish*", "timeout": 60},
    {"id": "examples", "name": "the article's examples", "points": 15, "smp": [2],
     "tests": "rcu_example*", "timeout": 60},
    # QEMU's TCG runs the guest nearly in order: no test sees a plain store
    # publish too early.  The AArch64 instructions of three publication
    # sites in the tests (each initialises an element, then publishes it)
    # show whether the publication is a release.
    {"id": "release", "name": "each publication is a release store", "points": 15,
     "disasm": {"arch": "aarch64", "functions": [
         ("tests/rcu_article_1_publish.c", "ps_init_and_publish"),
         ("tests/rculist.c", "rl_init_and_add"),
         ("tests/rculist.c", "rl_init_and_add_hlist")]},
     "check": "publish_site_releases"},
]

NOT_GRADED = [
    "rcu_dereference() as one untorn load (READ_ONCE()): a plain load passes every test "
    "and compiles the same at these sites",
    "the ordering of the removals (list_del_rcu(), hlist_del_rcu()): nothing a reader may "
    "still follow is poisoned (graded), but no test or instruction check looks at the order",
]
