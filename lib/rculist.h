/*
 * Lists that RCU readers walk while updaters change them: the list rows of
 * the publish/subscribe table in "What is RCU, Fundamentally?".  One copy
 * for the kernel (kernel/rcu/rculist.h puts it over kernel/rcu/rcupdate.h)
 * and for programs (user/include/urcu/rculist.h, over the user-space RCU
 * library): freestanding, it takes from its includer rcu_assign_pointer(),
 * rcu_dereference_raw(), rcu_list_check(cond) (may the caller walk the
 * list here?) and optionally rcu_list_unpublished(p) (a retraction, for
 * the kernel's trace).
 *
 *	publish:   list_add_rcu  list_add_tail_rcu  list_replace_rcu
 *		   hlist_add_head_rcu  hlist_add_before_rcu
 *		   hlist_add_behind_rcu (hlist_add_after_rcu)  hlist_replace_rcu
 *	retract:   list_del_rcu  hlist_del_rcu  hlist_del_init_rcu
 *	subscribe: list_for_each_entry_rcu  hlist_for_each_entry_rcu
 *
 * Updaters still exclude one another (a lock); they only no longer exclude
 * readers.  Two rules make that safe:
 *
 *  - Publish: a node's own pointers are filled in first, with plain
 *    stores nobody can see yet, and only then does one
 *    rcu_assign_pointer() (a release store) make it reachable.  A reader
 *    that finds the node therefore finds it fully linked.
 *
 *  - Subscribe: readers load every forward pointer with rcu_dereference()
 *    (a READ_ONCE whose result the next load depends on by address), so
 *    what they read through the pointer is at least as new as the
 *    publication.  Readers go forward only: ->prev and ->pprev are for
 *    updaters, which is why retraction may poison them.
 *
 * A retracted node may still be under a reader, so it is freed only after
 * a grace period (synchronize_rcu() or call_rcu()).
 */
#ifndef LIB_RCULIST_H
#define LIB_RCULIST_H

#include "compiler.h"
#include "list.h"

#if !defined(rcu_assign_pointer) || !defined(rcu_dereference_raw) || !defined(rcu_list_check)
#error "lib/rculist.h: include it through kernel/rcu/rculist.h or user/include/urcu/rculist.h"
#endif
#ifndef rcu_list_unpublished
#define rcu_list_unpublished(p)	do { } while (0)
#endif

/*
 * A walk of an RCU list is legal inside rcu_read_lock(), or where cond
 * (e.g. lockdep_is_held(&lock)) says the updaters' lock is held so the
 * list cannot change.  rcu_list_check(cond), from the includer, warns
 * when neither is true (the kernel's checking build; in the production
 * build and in programs it does nothing at run time).
 */

/* Takes no argument or exactly one: a second condition is a compile error. */
#define __list_check_one_arg(dummy)

/*
 * The optional condition of the _rcu walks.  Callers pass "cond..." as
 * "## cond, 0", so cond is 0 ("no lock claimed") when left out.  sizeof
 * type-checks cond even while rcu_list_check() ignores it, without
 * evaluating it twice.
 */
#define __list_check_rcu(dummy, cond, extra...) ({			\
	__list_check_one_arg(extra)					\
	(void)sizeof(!(cond));						\
	rcu_list_check(cond);						\
})

/* next of a list_head, seen as the RCU-protected pointer it is. */
#define list_next_rcu(list)	(*((struct list_head __rcu **)(&(list)->next)))

/*
 * For a list that readers may be walking: WRITE_ONCE so they see the head
 * either before or after, never half of it.
 */
static inline void INIT_LIST_HEAD_RCU(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	WRITE_ONCE(list->prev, list);
}

static inline void __list_add_rcu(struct list_head *new,
				  struct list_head *prev,
				  struct list_head *next)
{
	/* Readers cannot reach new yet: plain stores suffice. */
	new->next = next;
	new->prev = prev;
	/*
	 * rcu_assign_pointer() publishes new with its next/prev already set;
	 * pairs with rcu_dereference() of ->next in the readers' walk.
	 */
	rcu_assign_pointer(list_next_rcu(prev), new);
	/* ->prev is for updaters only, who hold the lock. */
	next->prev = new;
}

/* Adds new after head (a stack), visible to concurrent readers. */
static inline void list_add_rcu(struct list_head *new, struct list_head *head)
{
	__list_add_rcu(new, head, head->next);
}

/* Adds new before head (a queue), visible to concurrent readers. */
static inline void list_add_tail_rcu(struct list_head *new,
				     struct list_head *head)
{
	__list_add_rcu(new, head->prev, head);
}

/*
 * Unlinks entry so new readers cannot find it.  entry->next is kept: a
 * reader already standing on entry follows it back into the list and
 * finishes its walk.  entry->prev is poisoned, since readers never use it
 * and an updater that does has a bug.  Free entry only after a grace
 * period.
 */
static inline void list_del_rcu(struct list_head *entry)
{
	/*
	 * __list_del() stores prev->next with WRITE_ONCE, untorn for the
	 * readers' rcu_dereference() of it.  No release is needed: the new
	 * target, entry->next, was published when it was itself added.
	 */
	__list_del_entry(entry);
	entry->prev = LIST_POISON2;
	rcu_list_unpublished(entry);
}

/*
 * Puts new where old is, atomically for readers: each sees old or new,
 * never neither.  old->next still leads into the list for readers on it;
 * old->prev is poisoned.  Free old only after a grace period.
 */
static inline void list_replace_rcu(struct list_head *old,
				    struct list_head *new)
{
	/* new is still private: plain stores. */
	new->next = old->next;
	new->prev = old->prev;
	/*
	 * rcu_assign_pointer() publishes new with its next/prev already set;
	 * pairs with rcu_dereference() of ->next in the readers' walk.
	 */
	rcu_assign_pointer(list_next_rcu(new->prev), new);
	new->next->prev = new;
	old->prev = LIST_POISON2;
	rcu_list_unpublished(old);
}

/*
 * Moves the entries of list, which RCU readers may be walking, in between
 * prev and next of another RCU list.
 *
 * Why a grace period: readers of list stop when they come back to list's
 * head.  Once last->next is redirected into the other list, a reader still
 * inside the old list would run on into the other one and never meet its
 * head again, looping for ever.  So list is first emptied (new readers of
 * it see nothing), then sync() waits for the readers already inside it,
 * and only then are its entries linked into the destination.
 */
static inline void __list_splice_init_rcu(struct list_head *list,
					  struct list_head *prev,
					  struct list_head *next,
					  void (*sync)(void))
{
	struct list_head *first = list->next;
	struct list_head *last = list->prev;

	INIT_LIST_HEAD_RCU(list);

	/*
	 * Waits for every reader that may have loaded a pointer into the old
	 * list; after it, first..last are private to us.
	 */
	sync();

	/* Still unreachable by readers of the destination: plain store. */
	last->next = next;
	/*
	 * rcu_assign_pointer() publishes the chain with last->next already
	 * aimed into the destination; pairs with the readers' rcu_dereference().
	 */
	rcu_assign_pointer(list_next_rcu(prev), first);
	first->prev = prev;
	next->prev = last;
}

/*
 * Moves all of list to the front of head, leaving list empty.  sync is a
 * grace-period wait such as synchronize_rcu, so this may block; it is not
 * called when list is empty.  Updaters of both lists must be excluded.
 */
static inline void list_splice_init_rcu(struct list_head *list,
					struct list_head *head,
					void (*sync)(void))
{
	if (!list_empty(list))
		__list_splice_init_rcu(list, head, head->next, sync);
}

/* As list_splice_init_rcu(), to the end of head. */
static inline void list_splice_tail_init_rcu(struct list_head *list,
					     struct list_head *head,
					     void (*sync)(void))
{
	if (!list_empty(list))
		__list_splice_init_rcu(list, head->prev, head, sync);
}

/*
 * The entry whose member ptr (an RCU-protected list pointer, e.g.
 * head->next) points at.  rcu_dereference_raw(): the load the entry's
 * contents depend on; pairs with the publisher's rcu_assign_pointer().
 * "Raw" because the context is checked once per walk, by __list_check_rcu().
 */
#define list_entry_rcu(ptr, type, member) \
	container_of(rcu_dereference_raw(ptr), type, member)

/*
 * First entry or NULL.  ->next is loaded once (rcu_dereference_raw, pairs
 * with rcu_assign_pointer() of the publisher): two loads might see empty
 * then non-empty and return the head as an entry.
 */
#define list_first_or_null_rcu(ptr, type, member) ({			\
	struct list_head *head__ = (ptr);				\
	struct list_head *next__ = rcu_dereference_raw(head__->next);	\
	likely(head__ != next__) ?					\
		container_of(next__, type, member) : NULL;		\
})

/*
 * Walks an RCU list.  Legal inside rcu_read_lock(), or where the optional
 * cond (e.g. lockdep_is_held(&lock)) holds.  Each step's ->next load goes
 * through list_entry_rcu(), pairing with the updaters' rcu_assign_pointer().
 */
#define list_for_each_entry_rcu(pos, head, member, cond...)		\
	for (__list_check_rcu(dummy, ## cond, 0),			\
	     pos = list_entry_rcu((head)->next, __typeof__(*(pos)), member); \
	     &(pos)->member != (head);					\
	     pos = list_entry_rcu((pos)->member.next,			\
				  __typeof__(*(pos)), member))

/* Goes on after pos (same pairing as list_for_each_entry_rcu()). */
#define list_for_each_entry_continue_rcu(pos, head, member)		\
	for (pos = list_entry_rcu((pos)->member.next,			\
				  __typeof__(*(pos)), member);		\
	     &(pos)->member != (head);					\
	     pos = list_entry_rcu((pos)->member.next,			\
				  __typeof__(*(pos)), member))

/* Goes on from pos itself (same pairing as list_for_each_entry_rcu()). */
#define list_for_each_entry_from_rcu(pos, head, member)			\
	for (; &(pos)->member != (head);				\
	     pos = list_entry_rcu((pos)->member.next,			\
				  __typeof__(*(pos)), member))

/* ---- hlists ---- */

/* The hlist pointers readers follow, seen as RCU-protected pointers. */
#define hlist_first_rcu(head)	(*((struct hlist_node __rcu **)(&(head)->first)))
#define hlist_next_rcu(node)	(*((struct hlist_node __rcu **)(&(node)->next)))
/* Whatever points at node: the previous node's next, or head->first. */
#define hlist_pprev_rcu(node)	(*((struct hlist_node __rcu **)((node)->pprev)))

/*
 * Unlinks n for new readers.  n->next is kept so a reader on n can go on;
 * n->pprev is poisoned (readers never use it).  Free after a grace period.
 */
static inline void hlist_del_rcu(struct hlist_node *n)
{
	/*
	 * __hlist_del() stores *pprev with WRITE_ONCE, untorn for the readers'
	 * rcu_dereference() of it; n->next, the new target, was published
	 * when it was added, so no release is needed.
	 */
	__hlist_del(n);
	WRITE_ONCE(n->pprev, LIST_POISON2);
	rcu_list_unpublished(n);
}

/*
 * Unlinks n and marks it unhashed (pprev NULL) so hlist_unhashed() is true;
 * n->next is kept for readers on n.  Free after a grace period.
 */
static inline void hlist_del_init_rcu(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		/* As in hlist_del_rcu(). */
		__hlist_del(n);
		/* WRITE_ONCE: lockless hlist_unhashed() checks may be reading. */
		WRITE_ONCE(n->pprev, NULL);
	}
}

/*
 * Puts new where old is: each reader sees one or the other.  old->next still
 * leads on; old->pprev is poisoned.  Free old after a grace period.
 */
static inline void hlist_replace_rcu(struct hlist_node *old,
				     struct hlist_node *new)
{
	struct hlist_node *next = old->next;

	/* new is still private. */
	new->next = next;
	WRITE_ONCE(new->pprev, old->pprev);
	/*
	 * rcu_assign_pointer() publishes new with its next already set; pairs
	 * with rcu_dereference() in hlist_for_each_entry_rcu().
	 */
	rcu_assign_pointer(hlist_pprev_rcu(new), new);
	if (next)
		WRITE_ONCE(next->pprev, &new->next);
	WRITE_ONCE(old->pprev, LIST_POISON2);
	rcu_list_unpublished(old);
}

static inline void hlist_add_head_rcu(struct hlist_node *n,
				      struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	/* n is still private. */
	n->next = first;
	WRITE_ONCE(n->pprev, &h->first);
	/*
	 * rcu_assign_pointer() publishes n with its next already set; pairs
	 * with rcu_dereference() in hlist_for_each_entry_rcu().
	 */
	rcu_assign_pointer(hlist_first_rcu(h), n);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
}

/* Adds n in front of next, which must be on a list. */
static inline void hlist_add_before_rcu(struct hlist_node *n,
					struct hlist_node *next)
{
	/* n is still private. */
	WRITE_ONCE(n->pprev, next->pprev);
	n->next = next;
	/*
	 * rcu_assign_pointer() through n->pprev (the predecessor's next, or
	 * head->first) publishes n with its next already set; pairs with
	 * rcu_dereference() in hlist_for_each_entry_rcu().
	 */
	rcu_assign_pointer(hlist_pprev_rcu(n), n);
	WRITE_ONCE(next->pprev, &n->next);
}

/* Adds n after prev, which must be on a list. */
static inline void hlist_add_behind_rcu(struct hlist_node *n,
					struct hlist_node *prev)
{
	/* n is still private. */
	n->next = prev->next;
	WRITE_ONCE(n->pprev, &prev->next);
	/*
	 * rcu_assign_pointer() publishes n with its next already set; pairs
	 * with rcu_dereference() in hlist_for_each_entry_rcu().
	 */
	rcu_assign_pointer(hlist_next_rcu(prev), n);
	if (n->next)
		WRITE_ONCE(n->next->pprev, &n->next);
}

/*
 * The article's name for hlist_add_behind_rcu() (Linux's until 3.17),
 * with its old argument order: the node already on the list comes first.
 */
static inline void hlist_add_after_rcu(struct hlist_node *prev,
				       struct hlist_node *n)
{
	hlist_add_behind_rcu(n, prev);
}

/*
 * Walks an RCU hlist; legal inside rcu_read_lock() or where the optional
 * cond holds.  Each ->first/->next load is an rcu_dereference_raw() that
 * pairs with the updaters' rcu_assign_pointer().
 *
 * The article's Quick Quiz 3 asks why this once took two cursors,
 * (tpos, pos, head, member), while list_for_each_entry_rcu() takes one.
 * A list_head walk ends when it is back at the head, and the head can be
 * compared against an entry's member address without ever being used as
 * an entry.  An hlist walk ends at NULL instead, and container_of() of
 * NULL subtracts the member's offset from 0: an address just below the
 * top of the address space (or NULL itself when the member is at offset
 * 0, so a test for NULL after converting works only by accident), so the
 * end can only be seen reliably on the node pointer, before converting it.  The old macro therefore kept
 * that node pointer in a second variable and tested it.  Today's form needs
 * only the entry cursor: hlist_entry_safe() tests for NULL first and turns
 * NULL into a NULL entry, so "pos != NULL" is the loop test.
 */
#define hlist_for_each_entry_rcu(pos, head, member, cond...)		\
	for (__list_check_rcu(dummy, ## cond, 0),			\
	     pos = hlist_entry_safe(rcu_dereference_raw(hlist_first_rcu(head)), \
				    __typeof__(*(pos)), member);	\
	     pos;							\
	     pos = hlist_entry_safe(					\
			rcu_dereference_raw(hlist_next_rcu(&(pos)->member)), \
			__typeof__(*(pos)), member))

/* Goes on after pos (same pairing as hlist_for_each_entry_rcu()). */
#define hlist_for_each_entry_continue_rcu(pos, member)			\
	for (pos = hlist_entry_safe(					\
			rcu_dereference_raw(hlist_next_rcu(&(pos)->member)), \
			__typeof__(*(pos)), member);			\
	     pos;							\
	     pos = hlist_entry_safe(					\
			rcu_dereference_raw(hlist_next_rcu(&(pos)->member)), \
			__typeof__(*(pos)), member))

#endif
