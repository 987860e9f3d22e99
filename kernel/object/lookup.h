/*
 * THE LOOKUP: a capability's slot to its object, which every system call
 * on an object starts with (cspace.h says what it hands back, cspace.c
 * keeps the rest of the space).
 *
 * The article's reader, with a capability node for the list element:
 * rcu_read_lock(), rcu_dereference() the table, rcu_dereference() the
 * slot, read the node, take a reference on the object only if it must
 * outlive the critical section, rcu_read_unlock().  No lock, no sleep,
 * no write to anything another CPU writes (the checking build's count of
 * lookups is this CPU's own: DEFINE_PER_CPU gives it lines of its own).  The updater
 * (cap.c) unpublishes with rcu_assign_pointer(slot, NULL) and frees with
 * call_rcu(), so whatever a reader found stays valid until it leaves.
 *
 * Inline, because it is the system call's whole fixed cost (issue 42: a
 * call to it, its frame and its copy of the node cost more than the read
 * itself); what is rare -- a reference, a report -- is out of line.
 *
 * The checking build (make test, make run) adds the generation checks
 * and counts: they never fire in a correct kernel, and they are what
 * turns a free that did not wait (a bug, or cap.inject=free_no_wait, or
 * rcu.inject=no_wait) into a named use-after-free instead of a silent
 * one.  The production build (CHECKING=0: make bench, make profile)
 * reads the node and trusts the grace period, nothing more.
 */
#ifndef KERNEL_OBJECT_LOOKUP_H
#define KERNEL_OBJECT_LOOKUP_H

#include "object/cap.h"
#include "smp.h"
#include <errno.h>

DECLARE_PER_CPU(unsigned long, nr_cap_lookups);

/*
 * The lookup's first step, also for a caller already inside
 * rcu_read_lock() that wants the node itself (the deterministic window
 * tests hold a reader here): the capability in slot, or NULL.  No
 * reference is taken: it and its object stay valid until the caller's
 * rcu_read_unlock(), and no longer.
 */
static __always_inline struct cap *cap_lookup_rcu(struct cspace *cs, long slot)
{
	struct cap_table *t = rcu_dereference(cs->table);

	if (slot < 0 || (unsigned long)slot >= READ_ONCE(t->nslots))
		return NULL;
	return rcu_dereference(t->slot[slot]);
}

/* A use-after-free the lookup caught, reported once out of its section (printk() locks). */
struct uaf_note {
	const char *what;
	const void *p;
	u32 want, found;
	unsigned int type;
};

/* Out of line, the rare ends (cspace.c): */
void cap_lookup_failed(const struct cap *c, u32 gen, const struct kobject *obj, u32 obj_gen,
		       struct uaf_note *uaf);
int cap_lookup_ref(struct cap_ref *out, struct uaf_note *uaf);
void cap_lookup_error(const struct uaf_note *uaf);
void cap_lookup_no_lock(unsigned long locks, long slot);
void cap_ref_start(struct cap_ref *out, const char *call);

/* The checking build's proof of "no lock" starts here (cap_lookup_no_lock() ends it). */
static __always_inline unsigned long cap_lookup_locks_now(void)
{
	return CONFIG_RCU_CHECKING ? this_cpu()->task_locks_taken : 0;
}

/*
 * Checking build: was node c, whose fields the lookup read after seeing
 * generation gen, freed while it read them, or the object it names
 * freed?  The node's generation even before and the same after (the
 * kcache's free makes it odd before it poisons the rest), the object's
 * the one the node was made with.  true: a use-after-free, noted in *uaf
 * (cap_lookup_failed()).  The production build trusts the grace period,
 * as the article's reader does, and pays nothing here.
 */
static __always_inline bool cap_node_freed(struct cspace *cs, long slot, struct cap *c, u32 gen,
					   struct kobject *obj, u32 obj_gen, struct uaf_note *uaf)
{
	if (!CONFIG_RCU_CHECKING)
		return false;
	if (unlikely(cap_lookup_hook))
		cap_lookup_hook(cs, slot);	/* a test's seam: the node read, not yet rechecked */
	/* [cap_recheck_rmb] pairs [kcache_free_wmb]: the generation read again after the fields. */
	smp_rmb();
	/* (in this order: an odd generation's fields are poison, obj no pointer) */
	if (likely(!kcache_gen_free(gen) && READ_ONCE(c->head.gen) == gen &&
		   READ_ONCE(obj->head.gen) == obj_gen))
		return false;
	cap_lookup_failed(c, gen, obj, obj_gen, uaf);
	return true;
}

/* Reads what the lookup needs from node c, found in slot inside our critical section, into out. */
static __always_inline int cap_read_node(struct cspace *cs, long slot, struct cap *c,
					 struct cap_ref *out, struct uaf_note *uaf)
{
	u32 gen = 0, obj_gen;
	struct kobject *obj;

	if (CONFIG_RCU_CHECKING) {
		gen = READ_ONCE(c->head.gen);
		/* [cap_read_rmb] pairs [kcache_free_wmb]: the fields are read after the first generation. */
		smp_rmb();
	}
	obj = READ_ONCE(c->obj);
	obj_gen = READ_ONCE(c->obj_gen);
	out->type = READ_ONCE(c->type);
	out->rights = READ_ONCE(c->rights);
	out->badge = READ_ONCE(c->badge);
	if (cap_node_freed(cs, slot, c, gen, obj, obj_gen, uaf))
		return -EBADF;
	out->obj = obj;
	out->gen = obj_gen;
	return 0;
}

/*
 * The capability in slot of cs, of object type `type`, with every right
 * in `rights`: 0, or -EBADF (out of range, empty, or deleted as we
 * looked), -ENOTSUP (another type), -EACCES (a right missing).  `ref`:
 * take a reference on the object (increment-unless-zero, inside the
 * read-side critical section); otherwise none, except in the
 * preemptible build (PREEMPT=1), where a task may be preempted anywhere
 * and so always holds one.  `call` names the caller in the checking
 * build's report.  The checking build proves "no lock": every spinlock
 * taken by task code bumps this CPU's task_locks_taken (mutexes and
 * rwlocks take one inside), interrupts cannot move us to another CPU,
 * and the count must be the same after the lookup as before it.
 */
static __always_inline int __cap_lookup(struct cspace *cs, long slot, unsigned int type,
					unsigned int rights, struct cap_ref *out, bool ref,
					const char *call)
{
	unsigned long locks = cap_lookup_locks_now();
	struct uaf_note uaf;
	struct cap *c;
	int err = -EBADF;

	uaf.what = NULL;
	out->held = false;
	if (CONFIG_RCU_CHECKING)
		this_cpu_inc(nr_cap_lookups);	/* (the checking build's count: captorture's report) */
	rcu_read_lock();
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
	rcu_read_unlock();
	if (CONFIG_RCU_CHECKING)
		cap_lookup_no_lock(locks, slot);
	if (unlikely(err))
		cap_lookup_error(&uaf);
	else if (CONFIG_RCU_CHECKING)
		cap_ref_start(out, call);
	return err;
}

/* The lookup with a reference: out->obj is the caller's to put (cap_ref_put(), kobject_put()). */
static __always_inline int cap_lookup(struct cspace *cs, long slot, unsigned int type,
				      unsigned int rights, struct cap_ref *out)
{
	return __cap_lookup(cs, slot, type, rights, out, true, NULL);
}

/*
 * A system call's lookup: no reference (valid until this task's next
 * quiescent state: struct cap_ref).  Reach the object with cap_ref_obj();
 * take a reference with cap_ref_hold() before anything that sleeps while
 * the object is still needed after it; end with cap_ref_put().
 */
#define cap_lookup_noref(cs, slot, type, rights, out)				\
	__cap_lookup(cs, slot, type, rights, out, false, __func__)

#endif
