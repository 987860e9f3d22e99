# Lab 8: capabilities under RCU.  Handout: docs/labs/cap_rcu.md
ORDER = 8
SUMMARY = "make the microkernel's capability lookup lock-free with RCU"

# The starter is the capability space as a kernel without RCU would have
# it: correct, but every lookup -- every system call on an object -- takes
# cap_mutex, the lock every update holds, and so nodes and old tables can
# be freed at once.
FUNCTIONS = [
    ("kernel/object/lookup.h", "cap_lookup_rcu", """
	return cspace_get(cs, slot);	/* (the caller holds cap_mutex) */
"""),
    ("kernel/object/lookup.h", "__cap_lookup", """
	struct uaf_note uaf;
	struct cap *c;
	int err = -EBADF;

	uaf.what = NULL;
	out->held = false;
	if (CONFIG_RCU_CHECKING)
		this_cpu_inc(nr_cap_lookups);
	mutex_lock(&cap_mutex);
	c = cap_lookup_rcu(cs, slot);
	if (!c)
		goto out;
	err = cap_read_node(cs, slot, c, out, &uaf);
	if (err)
		goto out;
	if (out->type != type)
		err = -ENOTSUP;
	else if ((out->rights & rights) != rights)
		err = -EACCES;
	else if (ref || CONFIG_PREEMPT)
		err = cap_lookup_ref(out, &uaf);
out:
	mutex_unlock(&cap_mutex);
	if (unlikely(err))
		cap_lookup_error(&uaf);
	else if (CONFIG_RCU_CHECKING)
		cap_ref_start(out, call);
	return err;
"""),
    ("kernel/user/fastpath.c", "ipc_fastpath_enabled", """
	return false;	/* (the fast path looks up with interrupts off: no mutex there) */
"""),
    ("kernel/object/cspace.c", "grow", """
	struct cap_table *old = table_of(cs), *new;
	unsigned int n = old->nslots;

	while (n < need)
		n *= 2;
	n = min(n, (unsigned int)SYS_CAP_MAX_SLOTS);
	new = table_alloc(cs->quota, n, true);	/* (-ENOMEM: the caller reclaims, unlocked: cap.c) */
	if (!new)
		return -ENOMEM;
	for (unsigned int i = 0; i < old->nslots; i++)
		RCU_INIT_POINTER(new->slot[i], rcu_dereference_protected(old->slot[i], cap_mutex_held()));
	cs->table = new;		/* lookups hold cap_mutex: none is in the old table */
	quota_uncharge(cs->quota, QUOTA_OBJECTS, table_bytes(old->nslots));
	kfree(old);
	cs->grows++;
	atomic_long_inc(&nr_grows);
	return 0;
"""),
    ("kernel/object/cap.c", "cap_delete_locked", """
	struct cap *child, *n;

	cspace_set(c->cs, c->slot, NULL);
	/* Its children stay derived from its parent: a revoke above still reaches them. */
	list_for_each_entry_safe(child, n, &c->children, sibling) {
		list_del(&child->sibling);
		child->parent = c->parent;
		if (c->parent)
			list_add_tail(&child->sibling, &c->parent->children);
		else
			INIT_LIST_HEAD(&child->sibling);
	}
	if (c->parent)
		list_del(&c->sibling);
	if (c->map_mm)
		memory_cap_unmap(c);	/* waits for the TLB shootdown */
	kobject_cap_removed(c->obj, c->rights);
	atomic_long_inc(&nr_deleted);
	quota_free_queued(c->quota);	/* (node_free_rcu() counts it done) */
	object_free_now(&c->rcu, node_free_rcu);	/* lookups hold cap_mutex: nobody holds c */
"""),
]

PARTS = [
    {"id": "works", "name": "capabilities and IPC still work", "points": 10, "smp": [1],
     "tests": "user_cap_ops,user_ipc_threads", "timeout": 120},
    {"id": "nolock", "name": "the lookup takes no lock", "points": 25, "smp": [2],
     "tests": "cap_lookup_takes_no_lock*", "timeout": 90},
    {"id": "window", "name": "a lookup held across a revoke, a delete and a growth", "points": 35,
     "smp": [2], "tests": "cap_window_*", "timeout": 120},
    {"id": "torture", "name": "captorture: no use after free", "points": 30, "smp": [2, 4],
     "tests": "captorture", "cmdline": ["captorture.duration=4"], "timeout": 180},
]

NOT_GRADED = [
    "publication order (rcu_assign_pointer() in cspace_set() and grow()): TCG cannot show "
    "a plain store; lab publish grades that, and make model checks the design's",
    "IPC's fast path given back (ipc_fastpath_enabled(): the starter turns it off, since "
    "it looks up with interrupts off, where no mutex may be taken); its tests skip while "
    "it is off",
    "the lookup's speed before and after: make bench CMDLINE=ktest.filter=bench_ipc "
    "(docs/benchmarks.md)",
]
