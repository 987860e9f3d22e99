# Lab 10: RCU in user space.  Handout: docs/labs/urcu_server.md
ORDER = 10
SUMMARY = "RCU in user space: the key-value server's table, read with no lock"

# The student writes the RCU parts of the key-value server's table
# (user/kvserver/): the read side (kv_find(), the walk, and
# get_and_reply(), the read-side section that replies from inside it)
# and the updates by copy (kv_put(), kv_del()) with the free a grace
# period later (kv_free_qsbr()), over the QSBR flavor of the user-space
# RCU library (user/lib/urcu_*.c, urcu/rculist.h).  The update lock, the
# serving threads and the protocol are given.  Each starter panics with
# "lab stub" the first time it is called: the key-value server dies, and
# its clients' calls say -EPIPE.  Graded by tests/user/services.c and by
# tests/labs/urcu_server/ (user tests booted by make grade only: many more
# replacements than make test can afford).
MAKE_VARS = ["LAB_TESTS=tests/labs/urcu_server"]
FUNCTIONS = [
    ("user/kvserver/table.h", "kv_find", """
	(void)t;
	(void)key;
	panic("kvserver: lab stub: kv_find (docs/labs/urcu_server.md)");
"""),
    ("user/kvserver/main.c", "get_and_reply", """
	(void)key;
	(void)reply;
	panic("kvserver: lab stub: get_and_reply (docs/labs/urcu_server.md)");
"""),
    ("user/kvserver/table.c", "kv_put", """
	(void)t;
	(void)key;
	(void)value;
	(void)new_entry;
	panic("kvserver: lab stub: kv_put (docs/labs/urcu_server.md)");
"""),
    ("user/kvserver/table.c", "kv_del", """
	(void)t;
	(void)key;
	panic("kvserver: lab stub: kv_del (docs/labs/urcu_server.md)");
"""),
    ("user/kvserver/table.c", "kv_free_qsbr", """
	(void)e;
	(void)free_after_gp;
	panic("kvserver: lab stub: kv_free_qsbr (docs/labs/urcu_server.md)");
"""),
]

PARTS = [
    {"id": "serves", "name": "gets, puts and deletes answered right, one CPU", "points": 30,
     "smp": [1], "tests": "user_kv_readers,user_services", "timeout": 90},
    {"id": "readers", "name": "readers on every CPU against a writer: no entry freed under "
     "a reader, no reader that blocks in its section", "points": 50, "smp": [2, 4],
     "tests": "user_kv_readers", "timeout": 90},
    # QEMU's TCG runs the guest nearly in order: no test sees a plain store
    # publish too early.  kv_put()'s AArch64 instructions show whether each
    # new entry is published by a release after the stores that fill it.
    {"id": "publish", "name": "kv_put() publishes each new entry with a release store",
     "points": 20,
     "disasm": {"arch": "aarch64", "functions": [("user/kvserver/table.c", "kv_put")]},
     "check": "each_new_entry_released"},
]

NOT_GRADED = [
    "rcu_dereference() in the walk (hlist_for_each_entry_rcu()): a plain load passes every "
    "test and compiles the same here",
    "the memb flavor: the server reads with QSBR; kvserver --bench (make bench) times both",
]
