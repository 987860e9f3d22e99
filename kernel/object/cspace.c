/*
 * Capability spaces (cspace.h): the table of slots, its growth, and the
 * lock-free lookup.
 *
 * The lookup is the article's reader, with kernel objects for list
 * elements: rcu_read_lock(), rcu_dereference() the table, rcu_dereference()
 * the slot, read the node, take a reference on the object if it must
 * outlive the critical section, rcu_read_unlock().  The updater (cap.c)
 * unpublishes with rcu_assign_pointer(slot, NULL) and frees with
 * call_rcu(), so whatever a reader found stays valid until it leaves.
 *
 * On top of that, the generation checks: they never fire in a correct
 * kernel, and they are what turns a free that did not wait (a bug, or
 * cap.inject=free_no_wait, or rcu.inject=no_wait) into a named
 * use-after-free instead of a silent one.
 */
#include "object/cap.h"
#include "user/user.h"
#include <errno.h>

/* Per CPU, a line each (DEFINE_PER_CPU): lookups on every CPU at once share no line. */
static DEFINE_PER_CPU(unsigned long, nr_lookups);
static DEFINE_PER_CPU(unsigned long, nr_lookup_errors);
static atomic_long_t nr_grows;

void (*cap_lookup_hook)(struct cspace *cs, long slot);

/* Slots a dying space empties between two releases of cap_mutex. */
#define DESTROY_BATCH		64

static size_t table_bytes(unsigned int nslots)
{
	return sizeof(struct cap_table) + nslots * sizeof(struct cap *);
}

/* A table charged to q; with cap_mutex held (locked), never waiting for the charge. */
static struct cap_table *table_alloc(struct quota *q, unsigned int nslots, bool locked)
{
	struct cap_table *t;

	if (!(locked ? quota_try_charge : quota_charge)(q, QUOTA_OBJECTS, table_bytes(nslots)))
		return NULL;
	t = kzalloc(table_bytes(nslots), GFP_KERNEL);
	if (!t) {
		quota_uncharge(q, QUOTA_OBJECTS, table_bytes(nslots));
		return NULL;
	}
	t->nslots = nslots;
	return t;
}

struct cspace *cspace_create(struct quota *q, struct user_task *task)
{
	struct cspace *cs = kzalloc(sizeof(*cs), GFP_KERNEL);

	if (!cs)
		return NULL;
	cs->table = table_alloc(q, SYS_CAP_FIRST_SLOTS, false);
	if (!cs->table) {
		kfree(cs);
		return NULL;
	}
	cs->quota = q;
	quota_get(q);
	cs->task = task;
	return cs;
}

static struct cap_table *table_of(struct cspace *cs)
{
	return rcu_dereference_protected(cs->table, cap_mutex_held());
}

struct cap *cspace_get(struct cspace *cs, long slot)
{
	struct cap_table *t = table_of(cs);

	if (slot < 0 || (unsigned long)slot >= t->nslots)
		return NULL;
	return rcu_dereference_protected(t->slot[slot], cap_mutex_held());
}

unsigned int cspace_nslots(struct cspace *cs)
{
	return table_of(cs)->nslots;
}

void cspace_set(struct cspace *cs, int slot, struct cap *c)
{
	struct cap_table *t = table_of(cs);

	if (c)
		c->slot = slot;
	cs->used += c ? 1 : -1;
	/*
	 * Publish: the node's fields (made by cap.c) are visible before the
	 * pointer.  Unpublish (NULL): a lookup that starts after this cannot
	 * find the node; one that found it before holds it until its
	 * rcu_read_unlock(), and the node's free waits for that.
	 */
	rcu_assign_pointer(t->slot[slot], c);
}

/*
 * A larger table: a copy of the pointers, published in one store.  A
 * lookup still in the old table finds the same nodes there; the old
 * table goes after a grace period.  (Its slots are never written again:
 * every update reads cs->table under cap_mutex and sees the new one.)
 */
static int grow(struct cspace *cs, unsigned int need)
{
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
	rcu_assign_pointer(cs->table, new);
	quota_uncharge(cs->quota, QUOTA_OBJECTS, table_bytes(old->nslots));	/* (freed soon: not charged twice) */
	kfree_rcu(old, rcu);
	cs->grows++;
	atomic_long_inc(&nr_grows);
	return 0;
}

int cspace_reserve(struct cspace *cs, long slot)
{
	struct cap_table *t = table_of(cs);
	int err;

	if (cs->dead)
		return -EPIPE;
	if (slot == SYS_CAP_ANY_SLOT) {
		for (unsigned int i = 0; i < t->nslots; i++)
			if (!rcu_access_pointer(t->slot[i]))
				return i;
		if (t->nslots >= SYS_CAP_MAX_SLOTS)
			return -ENOSPC;
		slot = t->nslots;
	}
	if (slot < 0 || slot >= SYS_CAP_MAX_SLOTS)
		return -EBADF;
	if ((unsigned long)slot >= t->nslots) {
		err = grow(cs, slot + 1);
		if (err)
			return err;
		t = table_of(cs);
	}
	return rcu_access_pointer(t->slot[slot]) ? -EEXIST : slot;
}

void cspace_destroy(struct cspace *cs)
{
	mutex_lock(&cap_mutex);
	cs->dead = true;		/* IPC transfers into it fail from now on */
	for (unsigned int i = 0; i < table_of(cs)->nslots; i++) {
		struct cap *c;

		while ((c = cspace_get(cs, i)) && c->pinned)
			cap_wait_unpinned();
		if (c)
			cap_delete_locked(c);
		if (i % DESTROY_BATCH == DESTROY_BATCH - 1) {
			mutex_unlock(&cap_mutex);
			user_cond_resched();	/* (kernel/user/resched.c) */
			mutex_lock(&cap_mutex);
		}
	}
	mutex_unlock(&cap_mutex);
}

void cspace_free(struct cspace *cs)
{
	struct cap_table *t = rcu_dereference_protected(cs->table, true);

	for (unsigned int i = 0; i < t->nslots; i++)
		if (rcu_access_pointer(t->slot[i]))
			panic("BUG: freeing a capability space with slot %u in use", i);
	quota_uncharge(cs->quota, QUOTA_OBJECTS, table_bytes(t->nslots));
	quota_put(cs->quota);
	kfree_rcu(t, rcu);
	kfree(cs);
}

struct cap *cap_lookup_rcu(struct cspace *cs, long slot)
{
	struct cap_table *t = rcu_dereference(cs->table);

	if (slot < 0 || (unsigned long)slot >= READ_ONCE(t->nslots))
		return NULL;
	return rcu_dereference(t->slot[slot]);
}

/* The lookup's proof that it took no lock (checking build): see cap_lookup(). */
static unsigned long locks_taken_now(void)
{
	return CONFIG_RCU_CHECKING ? this_cpu()->task_locks_taken : 0;
}

static void check_no_lock_taken(unsigned long before, long slot)
{
	if (CONFIG_RCU_CHECKING && this_cpu()->task_locks_taken != before)
		panic("BUG: capability lookup of slot %ld took %lu lock%s: it must take none "
		      "(rcu_read_lock() is all a reader needs)", slot,
		      this_cpu()->task_locks_taken - before,
		      this_cpu()->task_locks_taken - before == 1 ? "" : "s");
}

/*
 * A use-after-free the lookup caught, reported once it is out of its
 * critical section (printk() takes a lock; the lookup takes none).
 */
struct uaf_note {
	const char *what;
	const void *p;
	u32 want, found;
	unsigned int type;
};

static void note_uaf(struct uaf_note *n, const char *what, const void *p, u32 want, u32 found,
		     unsigned int type)
{
	*n = (struct uaf_note){ what, p, want, found, type };
}

/*
 * Reads what the lookup needs from node c, which we found in a slot
 * inside our critical section, and checks that c was not freed while we
 * read it: its generation before and after (the kcache's free makes it
 * odd before it poisons the rest: [kcache_free_wmb]).  false: a
 * use-after-free, noted in *n.
 */
static bool read_node(struct cspace *cs, long slot, struct cap *c, struct cap *copy,
		      struct uaf_note *n)
{
	u32 gen = READ_ONCE(c->head.gen);

	if (kcache_gen_free(gen)) {
		note_uaf(n, "slot holds", c, gen & ~1u, gen, KCACHE_CAP);
		return false;
	}
	/* [cap_read_rmb] pairs [kcache_free_wmb]: the fields are read after the first generation. */
	smp_rmb();
	copy->obj = READ_ONCE(c->obj);
	copy->obj_gen = READ_ONCE(c->obj_gen);
	copy->type = READ_ONCE(c->type);
	copy->rights = READ_ONCE(c->rights);
	copy->badge = READ_ONCE(c->badge);
	if (unlikely(CONFIG_RCU_CHECKING && cap_lookup_hook))
		cap_lookup_hook(cs, slot);	/* a test's seam: the node read, not yet rechecked */
	/* [cap_recheck_rmb] pairs [kcache_free_wmb]: ... and before the second. */
	smp_rmb();
	if (READ_ONCE(c->head.gen) != gen) {
		note_uaf(n, "lookup read", c, gen, READ_ONCE(c->head.gen), KCACHE_CAP);
		return false;
	}
	return true;
}

/*
 * A reference on obj if it is still the object of generation gen: the
 * increment-unless-zero, then the generation checked again (only a free
 * that did not wait for a grace period gets past the first and fails the
 * second: what we took from it is given back).  false, and *found: the
 * generation we saw when it moved.
 */
static bool tryget_gen(struct kobject *obj, u32 gen, u32 *found)
{
	*found = gen;
	if (!kobject_tryget(obj))
		return false;
	if (kobject_is(obj, gen))
		return true;
	atomic_dec(&obj->refs);
	*found = READ_ONCE(obj->head.gen);
	return false;
}

/*
 * The object the node named, if it is still that object; a reference on
 * it if `ref`.  Without one, the object is the caller's until its task's
 * next quiescent state (struct cap_ref), even if its count already fell
 * to zero: it is freed a grace period after that, and no sooner.
 */
static int get_object(struct cap *copy, struct cap_ref *out, bool ref, struct uaf_note *n)
{
	struct kobject *obj = copy->obj;
	u32 found = READ_ONCE(obj->head.gen);

	if (found != copy->obj_gen) {
		note_uaf(n, "capability names", obj, copy->obj_gen, found, copy->type);
		return -EBADF;
	}
	/*
	 * Inside the critical section the object cannot be freed, but its
	 * last reference may be going (its last capability was just
	 * deleted): then the count is zero and stays so, and the lookup
	 * fails as if it came after the delete.
	 */
	if (ref && !tryget_gen(obj, copy->obj_gen, &found)) {
		if (found != copy->obj_gen)
			note_uaf(n, "capability names", obj, copy->obj_gen, found, copy->type);
		return -EBADF;
	}
	out->obj = obj;
	out->rights = copy->rights;
	out->badge = copy->badge;
	out->gen = copy->obj_gen;
	out->type = copy->type;
	out->held = ref;
	return 0;
}

/* Checking build: where the reference-free out's validity starts (cap_ref_check()). */
static void note_noref(struct cap_ref *out, const char *call)
{
	if (!CONFIG_RCU_CHECKING || out->held)
		return;
	out->qs = current->rcu_qs_count;
	out->id = out->obj->id;
	out->call = call;
}

/*
 * No lock, no sleep: rcu_read_lock() ... rcu_read_unlock() is the whole
 * synchronisation.  The checking build proves "no lock": every spinlock
 * taken by task code bumps this CPU's task_locks_taken (mutexes and
 * rwlocks take one inside), interrupts cannot move us to another CPU,
 * and the count must be the same after the lookup as before it.  The
 * preemptible build always takes the reference: a preemption would end
 * the implicit critical section a reference-free object lives in.
 */
int __cap_lookup(struct cspace *cs, long slot, unsigned int type, unsigned int rights,
		 struct cap_ref *out, bool ref, const char *call)
{
	unsigned long locks = locks_taken_now();
	struct uaf_note uaf = { NULL };
	struct cap *c, copy;
	int err = -EBADF;

	this_cpu_write(nr_lookups, this_cpu_read(nr_lookups) + 1);
	rcu_read_lock();
	c = cap_lookup_rcu(cs, slot);
	if (!c || !read_node(cs, slot, c, &copy, &uaf))
		goto out;
	if (copy.type != type)
		err = -ENOTSUP;
	else if ((copy.rights & rights) != rights)
		err = -EACCES;
	else
		err = get_object(&copy, out, ref || CONFIG_PREEMPT, &uaf);
out:
	rcu_read_unlock();
	check_no_lock_taken(locks, slot);
	if (unlikely(uaf.what))
		object_uaf_caught(uaf.what, uaf.p, uaf.want, uaf.found, uaf.type);
	if (err)
		this_cpu_write(nr_lookup_errors, this_cpu_read(nr_lookup_errors) + 1);
	else
		note_noref(out, call);
	return err;
}

bool cap_ref_stale(const struct cap_ref *r)
{
	return CONFIG_RCU_CHECKING && !r->held && r->qs != current->rcu_qs_count;
}

void cap_ref_check(const struct cap_ref *r, const char *what)
{
	if (!cap_ref_stale(r))
		return;
	panic("BUG: %s's reference-free %s %lu %s after its task passed %lu quiescent "
	      "state%s: it may have been freed (take a reference with cap_ref_hold() "
	      "before sleeping)", r->call ? r->call : "?", kobject_type_name(r->type),
	      r->id, what, current->rcu_qs_count - r->qs,
	      current->rcu_qs_count - r->qs == 1 ? "" : "s");
}

int cap_ref_hold(struct cap_ref *r)
{
	u32 found;

	if (r->held)
		return 0;
	if (CONFIG_RCU_CHECKING)
		cap_ref_check(r, "held late");
	if (!tryget_gen(r->obj, r->gen, &found)) {
		if (found != r->gen)
			object_uaf_caught("late reference on", r->obj, r->gen, found, r->type);
		return -EBADF;
	}
	r->held = true;
	return 0;
}

void cspace_get_stats(struct cspace_stats *s)
{
	int cpu;

	s->lookups = s->lookup_errors = 0;
	for_each_possible_cpu(cpu) {
		s->lookups += READ_ONCE(per_cpu(nr_lookups, cpu));
		s->lookup_errors += READ_ONCE(per_cpu(nr_lookup_errors, cpu));
	}
	s->grows = atomic_long_read(&nr_grows);
}
