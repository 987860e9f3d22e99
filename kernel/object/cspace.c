/*
 * Capability spaces (cspace.h): the table of slots and its growth, and
 * the rare ends of the lock-free lookup, which is inline (lookup.h): its
 * use-after-free reports, its reference, its checking-build proofs.
 */
#include "object/lookup.h"
#include "user/user.h"
#include <errno.h>

/* Per CPU, a line each (DEFINE_PER_CPU): lookups on every CPU at once share no line. */
DEFINE_PER_CPU(unsigned long, nr_cap_lookups);
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

static void note_uaf(struct uaf_note *n, const char *what, const void *p, u32 want, u32 found,
		     unsigned int type)
{
	*n = (struct uaf_note){ what, p, want, found, type };
}

/*
 * cap_read_node() saw node c freed while it read it (gen, its generation
 * at the start, odd or since moved), or the object it names freed: noted
 * for cap_lookup_error(), which reports it once out of the section.
 */
void cap_lookup_failed(const struct cap *c, u32 gen, const struct kobject *obj, u32 obj_gen,
		       struct uaf_note *uaf)
{
	u32 now = READ_ONCE(c->head.gen);

	if (kcache_gen_free(gen))
		note_uaf(uaf, "slot holds", c, gen & ~1u, gen, KCACHE_CAP);
	else if (now != gen)
		note_uaf(uaf, "lookup read", c, gen, now, KCACHE_CAP);
	else
		note_uaf(uaf, "capability names", obj, obj_gen, READ_ONCE(obj->head.gen),
			 READ_ONCE(c->type));
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
 * The lookup's reference, inside its critical section: the object cannot
 * be freed, but its last reference may be going (its last capability was
 * just deleted): then the count is zero and stays so, and the lookup
 * fails as if it came after the delete.
 */
int cap_lookup_ref(struct cap_ref *out, struct uaf_note *uaf)
{
	u32 found;

	if (!tryget_gen(out->obj, out->gen, &found)) {
		if (found != out->gen)
			note_uaf(uaf, "capability names", out->obj, out->gen, found, out->type);
		return -EBADF;
	}
	out->held = true;
	return 0;
}

/* Checking build, after the section: the lookup took no lock (lookup.h, __cap_lookup()). */
void cap_lookup_no_lock(unsigned long locks, long slot)
{
	unsigned long taken = this_cpu()->task_locks_taken - locks;

	if (taken)
		panic("BUG: capability lookup of slot %ld took %lu lock%s: it must take none "
		      "(rcu_read_lock() is all a reader needs)", slot, taken,
		      taken == 1 ? "" : "s");
}

/* Checking build: where a reference-free out's validity starts (cap_ref_check()). */
void cap_ref_start(struct cap_ref *out, const char *call)
{
	if (out->held)
		return;
	out->qs = current->rcu_qs_count;
	out->id = out->obj->id;
	out->call = call;
}

/* A lookup failed: counted, and a use-after-free it caught named. */
void cap_lookup_error(const struct uaf_note *uaf)
{
	this_cpu_inc(nr_lookup_errors);
	if (uaf->what)
		object_uaf_caught(uaf->what, uaf->p, uaf->want, uaf->found, uaf->type);
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
		s->lookups += READ_ONCE(per_cpu(nr_cap_lookups, cpu));
		s->lookup_errors += READ_ONCE(per_cpu(nr_lookup_errors, cpu));
	}
	s->grows = atomic_long_read(&nr_grows);
}
