/*
 * Capabilities (kernel/object/cap.c): the nodes the slots of a capability
 * space point at, the derivation tree that links them, and every
 * operation that changes either.
 *
 * The derivation tree (seL4's CDT, NOVA's and Fiasco's mapping database):
 * an object's first capability is made with it and has no parent; a copy
 * or a mint is a child of the capability it came from, in whichever
 * space it lands (a copy sent through IPC too).  Revoking a capability
 * deletes every capability below it, in every space.  Deleting one moves
 * its children up to its parent, so a revoke higher up still reaches
 * them.
 *
 * Every change takes cap_mutex: one lock for all spaces and the tree
 * (docs/microkernel.md says why one is enough here).  Lookups take none
 * (cspace.h).  A revoke drops the mutex every few deletions so other
 * tasks' updates get through; meanwhile every capability under it is in
 * the revoking state, and nothing is derived, moved or sent from a
 * revoking capability (-EBUSY): nothing escapes a revoke.
 */
#ifndef KERNEL_OBJECT_CAP_H
#define KERNEL_OBJECT_CAP_H

#include "object/cspace.h"

struct mm_struct;

struct cap {
	struct kcache_head head;	/* even generation: in a slot */
	/* What the lookup reads (set before publishing, then constant): */
	struct kobject *obj;
	u32 obj_gen;			/* the object's generation when this was made */
	u16 type;			/* the object's type */
	u16 rights;			/* SYS_CAP_* */
	unsigned long badge;
	/* The update side's (cap_mutex): */
	int revoking;			/* revokes under way above it (or of it): no derivation, no move */
	bool pinned;			/* the root of a revoke under way: not deleted under it */
	struct cspace *cs;		/* where it is */
	int slot;
	struct cap *parent;
	struct list_head children;
	struct list_head sibling;	/* on parent->children */
	struct quota *quota;		/* charged for this node (cs's when made) */
	/* A memory capability mapped by its holder (memory.c): */
	struct mm_struct *map_mm;	/* (a reference) */
	uintptr_t map_addr;
	int map_prot;
	struct list_head map_node;	/* on its memory object's mappings (cap_mutex) */
	struct rcu_head rcu;
};

extern struct mutex cap_mutex;

/* The operations behind the system calls; each returns the slot used, a count, 0 or -errno. */
int cap_create(struct cspace *cs, unsigned int type, long slot, long arg);
int cap_copy(struct cspace *cs, long src, long dst);
int cap_mint(struct cspace *cs, long src, long dst, unsigned long rights, unsigned long badge);
int cap_move(struct cspace *cs, long src, long dst);
int cap_delete(struct cspace *cs, long slot);
/*
 * Revokes and deletes the capability in slot if it names obj (a spawn
 * undoing the task capability it made): 0, or -EBADF if the slot holds
 * something else by now (or it is being revoked).  The node it checked is
 * the node it revokes: no other thread's move can slip in between.
 */
int cap_revoke_object(struct cspace *cs, long slot, struct kobject *obj);
/* Test hook (checking build): called by cap_revoke_object() between its check and its revoke. */
extern void (*cap_revoke_object_hook)(struct cspace *cs, long slot);
int cap_revoke(struct cspace *cs, long slot);
int cap_inspect(struct cspace *cs, long slot, struct sys_cap_info *info);
/* The monitor's caps: every capability of cs, and where each was derived from. */
void cap_show_space(struct cspace *cs);

/*
 * Inserts a new original capability to obj (all of rights, no badge) in
 * cs at slot (or the first empty one): the slot, or -errno.  The
 * capability takes its own reference; the caller keeps its own.
 */
int cap_insert_object(struct cspace *cs, long slot, struct kobject *obj, unsigned int rights);
/* The same with a badge (a server tells its clients apart by it). */
int cap_insert_badged(struct cspace *cs, long slot, struct kobject *obj, unsigned int rights,
		      unsigned long badge);

/*
 * Moves or copies the capability in slot `src` of `from` into `to`
 * (at dst, or the first empty slot): SYS_cap_spawn's.  The slot it
 * landed in, or -errno (nothing changed).  It never waits for a grace
 * period: -ENOMEM at once when to's quota is full, even of frees still
 * queued.
 */
int cap_transfer(struct cspace *from, long src, struct cspace *to, long dst, bool move);

/*
 * The same in two steps, for IPC (ipc.c), with cap_mutex held from the
 * first to the last: prepare checks the source and reserves what the
 * transfer needs -- the slot (the table grown), a copy's node -- and may
 * sleep; commit then cannot fail and never sleeps; cancel gives back
 * what prepare reserved.  x->slot < 0: nothing will land (the -errno).
 */
struct cap_xfer {
	struct cap *src;		/* the capability that goes */
	struct cap *node;		/* a copy's node, not yet published */
	struct cspace *from, *to;
	int slot;			/* where it lands, or -errno */
	bool move;
};
/*
 * Can the capability in from's slot src go at all (cap_mutex held)?  0,
 * or -EBADF (the slot is empty), -EBUSY (being revoked; or a move of a
 * mapped memory capability, whose mapping never leaves its space).  The
 * sender's error, before anything is sent; prepare checks it again.
 */
int cap_transfer_check(struct cspace *from, long src, bool move);
void cap_transfer_prepare(struct cap_xfer *x, struct cspace *from, long src, struct cspace *to,
			  long dst, bool move);
int cap_transfer_commit(struct cap_xfer *x);
void cap_transfer_cancel(struct cap_xfer *x);

/* cap_mutex held: deletes the node (its children go up to its parent); never a pinned one. */
void cap_delete_locked(struct cap *c);
/* cap_mutex held: c is pinned; lets its revoke go on, then the caller looks again. */
void cap_wait_unpinned(void);
bool cap_mutex_held(void);

/*
 * Test hook (checking build): called by a revoke of slot in cs between
 * two batches, with cap_mutex released (tests/cap_revoke.c tries to
 * derive from what is being revoked there).
 */
extern void (*cap_revoke_batch_hook)(struct cspace *cs, long slot);

/* Revokes and deletions so far (captorture's report). */
struct cap_stats {
	unsigned long derived, deleted, revokes, revoked, busy;
};
void cap_get_stats(struct cap_stats *s);
void cap_init(void);

#endif
