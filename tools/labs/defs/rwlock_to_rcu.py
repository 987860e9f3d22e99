# Lab 7: from a reader-writer lock to RCU.  Handout: docs/labs/rwlock_to_rcu.md
ORDER = 7
SUMMARY = "convert a routing table from a reader-writer lock to RCU"

# The starter is the table as it was before the conversion: correct, but
# its lookups take the lock that its updaters hold.
FUNCTIONS = [
    ("kernel/route.c", "route_lookup", """
	struct route_entry *e;
	bool found = false;

	read_lock(&route_lock);
	hlist_for_each_entry(e, route_bucket(addr), node) {
		if (e->addr == addr) {
			*iface = e->iface;
			found = true;
			break;
		}
	}
	read_unlock(&route_lock);
	return found;
"""),
    ("kernel/route.c", "route_add", """
	struct route_entry *e = kmalloc(sizeof(*e), GFP_KERNEL);
	bool added = false;

	if (!e)
		return false;
	e->addr = addr;
	e->iface = iface;
	write_lock(&route_lock);
	if (!route_find_locked(addr)) {
		hlist_add_head(&e->node, route_bucket(addr));
		route_entries++;
		added = true;
	}
	write_unlock(&route_lock);
	if (!added)
		kfree(e);
	return added;
"""),
    ("kernel/route.c", "route_change", """
	struct route_entry *e;

	write_lock(&route_lock);
	e = route_find_locked(addr);
	if (e)
		e->iface = iface;	/* no reader is inside: change in place */
	write_unlock(&route_lock);
	return e != NULL;
"""),
    ("kernel/route.c", "route_del", """
	struct route_entry *e;

	write_lock(&route_lock);
	e = route_find_locked(addr);
	if (e) {
		hlist_del(&e->node);
		route_entries--;
	}
	write_unlock(&route_lock);
	kfree(e);		/* no reader is inside: free at once */
	return e != NULL;
"""),
]

PARTS = [
    {"id": "works", "name": "the table still works", "points": 10, "smp": [1],
     "tests": "route_add_lookup_change_del", "timeout": 60},
    {"id": "nowait", "name": "lookups never wait for an updater", "points": 30, "smp": [2],
     "tests": "route_lookups_do_not_wait_for_updaters", "timeout": 60},
    {"id": "grace", "name": "removed routes are freed only after a grace period",
     "points": 30, "smp": [2],
     "tests": "route_del_and_change_free_only_after_a_grace_period", "timeout": 60},
    {"id": "torture", "name": "torture: no use after free, no lost update", "points": 30,
     "smp": [2, 4], "tests": "route_torture*", "timeout": 120},
]

NOT_GRADED = [
    "the lookups' speed before and after: make bench CMDLINE=ktest.filter=bench_route "
    "(docs/labs/rwlock_to_rcu.md)",
    "publication order inside the table (the _rcu list primitives' release): TCG cannot "
    "show a plain store; lab publish grades that",
]
