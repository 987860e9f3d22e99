/*
 * Capability spaces (kernel/object/cspace.c): each task's table of slots,
 * and the lookup every system call on an object starts with.
 *
 * The table is an array of pointers to capability nodes (struct cap,
 * cap.h), published with rcu_assign_pointer() and read with
 * rcu_dereference().  The lookup takes no lock: it runs inside
 * rcu_read_lock(), and the checking build proves it takes no lock by
 * counting this CPU's lock acquisitions across it (cap_lookup()'s
 * comment).  Updates (cap.c) hold cap_mutex, unpublish a slot by storing
 * NULL and free the node with call_rcu().  A table that is too small is
 * replaced by a larger copy, published the same way; the old one is
 * freed after a grace period, since a lookup may still be reading it.
 */
#ifndef KERNEL_OBJECT_CSPACE_H
#define KERNEL_OBJECT_CSPACE_H

#include "object/object.h"

struct cap;
struct user_task;

struct cap_table {
	unsigned int nslots;
	struct rcu_head rcu;
	struct cap *slot[];		/* __rcu */
};

struct cspace {
	struct cap_table *table;	/* __rcu; replaced when it grows (cap_mutex) */
	struct quota *quota;		/* its task's: charged for its nodes and tables */
	struct user_task *task;		/* its owner (no reference: the task holds us) */
	int used;			/* slots holding a capability (cap_mutex) */
	bool dead;			/* its task ended: nothing enters it any more (cap_mutex) */
	unsigned long grows;		/* times the table was replaced by a larger one */
};

/*
 * What a lookup hands back: the object, and the capability's rights and
 * badge as they were.  Either with a reference on the object (held: the
 * caller drops it with cap_ref_put(), or kobject_put()), or without one
 * -- a system call's lookup (cap_lookup_noref()) -- and then the object
 * is valid until the caller's task passes its next quiescent state: it
 * sleeps (a mutex, cap_mutex, mm->lock, a quota's reclaim, any wait),
 * calls cond_resched() or returns to user mode.  The kernel is not
 * preemptible, so nothing else ends the implicit read-side critical
 * section the whole call runs in, and an object is freed only a grace
 * period after its last reference went (docs/microkernel.md, "The
 * reference is the price of sleeping").
 */
struct cap_ref {
	struct kobject *obj;
	unsigned int rights;
	unsigned long badge;
	u32 gen;			/* obj's generation at the lookup */
	unsigned int type;		/* obj's type */
	bool held;			/* we hold a reference on obj */
	/* Checking build: for cap_ref_obj()'s check. */
	unsigned long qs;		/* current->rcu_qs_count at the lookup */
	unsigned long id;		/* obj->id, for the report */
	const char *call;		/* who looked it up */
};

struct cspace *cspace_create(struct quota *q, struct user_task *task);
/* Its task ended: deletes every capability in it; nothing can enter it after. */
void cspace_destroy(struct cspace *cs);
/* Frees what is left once nobody can reach it (the task is freed). */
void cspace_free(struct cspace *cs);

/* THE LOOKUP, cap_lookup(), cap_lookup_noref() and cap_lookup_rcu(): object/lookup.h. */

/*
 * Checking build: does r hold no reference while its task passed a
 * quiescent state since the lookup (always false in the production
 * build)?  cap_ref_check() panics then, naming the call and the object.
 */
bool cap_ref_stale(const struct cap_ref *r);
void cap_ref_check(const struct cap_ref *r, const char *what);

/* The object r names; the checking build proves a reference-free r still valid. */
static inline struct kobject *cap_ref_obj(const struct cap_ref *r)
{
	if (CONFIG_RCU_CHECKING && !r->held)
		cap_ref_check(r, "used");
	return r->obj;
}

/*
 * A late reference, before a sleep that r's object must outlive: 0 (r
 * holds one now, or did), or -EBADF when the object's last reference
 * already went (its last capability was deleted since the lookup, which
 * then fails as if it came after the delete).  Increment-unless-zero and
 * the generation checked again, never a plain increment: a reference-free
 * lookup may return an object whose count fell to zero.  Must come before
 * the task's next quiescent state (the checking build checks).
 */
int cap_ref_hold(struct cap_ref *r);

/* The end of r: drops its reference if it holds one (nothing to do for a reference-free r). */
static inline void cap_ref_put(struct cap_ref *r)
{
	if (r->held)
		kobject_put(r->obj);
	r->held = false;
}

/*
 * Test hook (checking build): called inside the lookup's read-side
 * critical section, after the node is found and its fields read, before
 * its generation is checked again (captorture widens the window with it,
 * tests/cap_stale.c frees the node under it on purpose; NULL: nothing).
 */
extern void (*cap_lookup_hook)(struct cspace *cs, long slot);

/* Update side, cap_mutex held (cap.c): */
struct cap *cspace_get(struct cspace *cs, long slot);
/* A free slot: slot itself if empty, or the first empty one (SYS_CAP_ANY_SLOT); grows the table. */
int cspace_reserve(struct cspace *cs, long slot);
void cspace_set(struct cspace *cs, int slot, struct cap *c);	/* publishes (NULL: unpublishes) */
unsigned int cspace_nslots(struct cspace *cs);			/* the table's size now */

/* Lookups (the checking build's count), failed lookups and growths so far (captorture's report). */
struct cspace_stats {
	unsigned long lookups, lookup_errors, grows;
};
void cspace_get_stats(struct cspace_stats *s);

#endif
