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
 * What a lookup hands back: the object, with a reference the caller drops
 * with kobject_put(), and the capability's rights and badge as they were.
 */
struct cap_ref {
	struct kobject *obj;
	unsigned int rights;
	unsigned long badge;
};

struct cspace *cspace_create(struct quota *q, struct user_task *task);
/* Its task ended: deletes every capability in it; nothing can enter it after. */
void cspace_destroy(struct cspace *cs);
/* Frees what is left once nobody can reach it (the task is freed). */
void cspace_free(struct cspace *cs);

/*
 * THE LOOKUP: the capability in slot of cs, of object type `type`, with
 * every right in `rights`; takes a reference on its object.  0, or
 * -EBADF (out of range, empty, or deleted as we looked), -ENOTSUP (another
 * type), -EACCES (a right missing).  Takes no lock, sleeps never.
 */
int cap_lookup(struct cspace *cs, long slot, unsigned int type, unsigned int rights,
	       struct cap_ref *out);

/*
 * The same, for a caller already inside rcu_read_lock() that wants the
 * node itself (the deterministic window tests hold a reader here): the
 * capability in slot, or NULL.  No reference is taken: it and its object
 * stay valid until the caller's rcu_read_unlock(), and no longer.
 */
struct cap *cap_lookup_rcu(struct cspace *cs, long slot);

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

/* Lookups and use-after-frees seen so far (captorture's report). */
struct cspace_stats {
	unsigned long lookups, lookup_errors, grows;
};
void cspace_get_stats(struct cspace_stats *s);

#endif
