/*
 * Intrusive doubly linked lists with Linux's names and behaviour, so list
 * code written for Linux compiles and runs unchanged.
 *
 * struct list_head is circular: an empty list is a head pointing at itself,
 * and a walk ends when it comes back to the head.  struct hlist_head is a
 * single pointer ending in NULL, which halves the size of hash-table bucket
 * arrays; its nodes keep pprev (the address of whatever points at them)
 * instead of a prev pointer, so a node can unlink itself without knowing
 * whether it is first.
 *
 * None of this locks: the caller serialises updaters.  The WRITE_ONCE and
 * READ_ONCE below are where Linux has them, so that a lockless peek such as
 * list_empty() sees a whole pointer rather than a torn or refetched one.
 * For lists that readers walk concurrently with updates, see lib/rculist.h.
 */
#ifndef LIB_LIST_H
#define LIB_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include "compiler.h"

/*
 * Deleted entries get these in their pointers, so that a use after
 * list_del() faults at once instead of quietly walking freed memory.  The
 * offset puts them in the non-canonical hole on x86-64 (any access raises
 * #GP, whatever is mapped) and outside both translation ranges on AArch64,
 * so they never depend on the low pages being unmapped.  They are not NULL,
 * so they cannot be mistaken for "unhashed" or "end of hlist".
 */
#ifndef POISON_POINTER_DELTA
#if __SIZEOF_POINTER__ == 8
#define POISON_POINTER_DELTA	0xdead000000000000UL
#else
#define POISON_POINTER_DELTA	0UL
#endif
#endif

#define LIST_POISON1	((void *)(0x100 + POISON_POINTER_DELTA))
#define LIST_POISON2	((void *)(0x122 + POISON_POINTER_DELTA))

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)	{ &(name), &(name) }

/* One definition only, so "static LIST_HEAD(x);" works. */
#define LIST_HEAD(name)		struct list_head name = LIST_HEAD_INIT(name)

/* WRITE_ONCE: a lockless list_empty() may be reading these right now. */
static inline void INIT_LIST_HEAD(struct list_head *list)
{
	WRITE_ONCE(list->next, list);
	WRITE_ONCE(list->prev, list);
}

/* Links new between two entries known to be adjacent. */
static inline void __list_add(struct list_head *new, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = new;
	new->next = next;
	new->prev = prev;
	WRITE_ONCE(prev->next, new);
}

/* Adds new right after head: a stack. */
static inline void list_add(struct list_head *new, struct list_head *head)
{
	__list_add(new, head, head->next);
}

/* Adds new right before head, i.e. at the end: a queue. */
static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
	__list_add(new, head->prev, head);
}

/* Makes prev and next neighbours, dropping whatever was between them. */
static inline void __list_del(struct list_head *prev, struct list_head *next)
{
	next->prev = prev;
	WRITE_ONCE(prev->next, next);
}

/* Unlinks entry and leaves its own pointers as they were. */
static inline void __list_del_entry(struct list_head *entry)
{
	__list_del(entry->prev, entry->next);
}

/* Unlinks entry; list_empty() on it is then undefined (it is poisoned). */
static inline void list_del(struct list_head *entry)
{
	__list_del_entry(entry);
	entry->next = LIST_POISON1;
	entry->prev = LIST_POISON2;
}

/* Unlinks entry and makes it an empty list, so it can be tested or reused. */
static inline void list_del_init(struct list_head *entry)
{
	__list_del_entry(entry);
	INIT_LIST_HEAD(entry);
}

/* Puts new where old is.  old's pointers are left stale. */
static inline void list_replace(struct list_head *old, struct list_head *new)
{
	new->next = old->next;
	new->next->prev = new;
	new->prev = old->prev;
	new->prev->next = new;
}

static inline void list_replace_init(struct list_head *old,
				     struct list_head *new)
{
	list_replace(old, new);
	INIT_LIST_HEAD(old);
}

/* Takes list off its list and puts it first in head's. */
static inline void list_move(struct list_head *list, struct list_head *head)
{
	__list_del_entry(list);
	list_add(list, head);
}

/* Takes list off its list and puts it last in head's. */
static inline void list_move_tail(struct list_head *list,
				  struct list_head *head)
{
	__list_del_entry(list);
	list_add_tail(list, head);
}

static inline bool list_is_first(const struct list_head *list,
				 const struct list_head *head)
{
	return list->prev == head;
}

static inline bool list_is_last(const struct list_head *list,
				const struct list_head *head)
{
	return list->next == head;
}

/* True when pos has come round to the head (the walk is over). */
static inline bool list_is_head(const struct list_head *list,
				const struct list_head *head)
{
	return list == head;
}

/* READ_ONCE: a check made without the lock must see a whole pointer. */
static inline bool list_empty(const struct list_head *head)
{
	return READ_ONCE(head->next) == head;
}

static inline bool list_is_singular(const struct list_head *head)
{
	return !list_empty(head) && head->next == head->prev;
}

/* Inserts the entries of list (not its head) between prev and next. */
static inline void __list_splice(const struct list_head *list,
				 struct list_head *prev,
				 struct list_head *next)
{
	struct list_head *first = list->next;
	struct list_head *last = list->prev;

	first->prev = prev;
	prev->next = first;
	last->next = next;
	next->prev = last;
}

/*
 * Moves all of list's entries to the front of head.  list's own head still
 * points at them afterwards: use the _init form unless it is thrown away.
 */
static inline void list_splice(const struct list_head *list,
			       struct list_head *head)
{
	if (!list_empty(list))
		__list_splice(list, head, head->next);
}

/* Moves all of list's entries to the end of head. */
static inline void list_splice_tail(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list))
		__list_splice(list, head->prev, head);
}

/* list_splice(), leaving list empty. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head, head->next);
		INIT_LIST_HEAD(list);
	}
}

/* list_splice_tail(), leaving list empty. */
static inline void list_splice_tail_init(struct list_head *list,
					 struct list_head *head)
{
	if (!list_empty(list)) {
		__list_splice(list, head->prev, head);
		INIT_LIST_HEAD(list);
	}
}

/* The structure that embeds list_head ptr as its member. */
#define list_entry(ptr, type, member)	container_of(ptr, type, member)

/* The list must not be empty for these two. */
#define list_first_entry(ptr, type, member) \
	list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) \
	list_entry((ptr)->prev, type, member)

/* READ_ONCE: next is loaded once, so the test and the result agree. */
#define list_first_entry_or_null(ptr, type, member) ({			\
	struct list_head *head__ = (ptr);				\
	struct list_head *pos__ = READ_ONCE(head__->next);		\
	pos__ != head__ ? list_entry(pos__, type, member) : NULL;	\
})

#define list_next_entry(pos, member) \
	list_entry((pos)->member.next, __typeof__(*(pos)), member)
#define list_prev_entry(pos, member) \
	list_entry((pos)->member.prev, __typeof__(*(pos)), member)

/*
 * True when the entry cursor pos is really the head dressed up as an
 * entry: container_of() on the head gives a bogus pointer whose member
 * is the head.  Only its address is taken, never its contents.
 */
#define list_entry_is_head(pos, head, member) \
	(&(pos)->member == (head))

#define list_for_each(pos, head) \
	for (pos = (head)->next; !list_is_head(pos, head); pos = pos->next)

/* Allows pos to be deleted: n already holds its successor. */
#define list_for_each_safe(pos, n, head)				\
	for (pos = (head)->next, n = pos->next;				\
	     !list_is_head(pos, head);					\
	     pos = n, n = pos->next)

#define list_for_each_entry(pos, head, member)				\
	for (pos = list_first_entry(head, __typeof__(*(pos)), member);	\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_next_entry(pos, member))

#define list_for_each_entry_reverse(pos, head, member)			\
	for (pos = list_last_entry(head, __typeof__(*(pos)), member);	\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_prev_entry(pos, member))

/* Starts after pos, an entry already on the list. */
#define list_for_each_entry_continue(pos, head, member)			\
	for (pos = list_next_entry(pos, member);			\
	     !list_entry_is_head(pos, head, member);			\
	     pos = list_next_entry(pos, member))

/* Allows pos to be deleted: n is fetched before the body runs. */
#define list_for_each_entry_safe(pos, n, head, member)			\
	for (pos = list_first_entry(head, __typeof__(*(pos)), member),	\
	     n = list_next_entry(pos, member);				\
	     !list_entry_is_head(pos, head, member);			\
	     pos = n, n = list_next_entry(n, member))

/* O(n): walks the whole list. */
static inline size_t list_count_nodes(struct list_head *head)
{
	struct list_head *pos;
	size_t count = 0;

	list_for_each(pos, head)
		count++;
	return count;
}

/* ---- hlists: NULL-terminated lists with a one-pointer head ---- */

struct hlist_head {
	struct hlist_node *first;
};

struct hlist_node {
	/* pprev is &previous->next, or &head->first; NULL when unhashed. */
	struct hlist_node *next, **pprev;
};

#define HLIST_HEAD_INIT		{ .first = NULL }
#define HLIST_HEAD(name)	struct hlist_head name = HLIST_HEAD_INIT
#define INIT_HLIST_HEAD(ptr)	((ptr)->first = NULL)

static inline void INIT_HLIST_NODE(struct hlist_node *h)
{
	h->next = NULL;
	h->pprev = NULL;
}

/* True for a node on no list (fresh, or after hlist_del_init()). */
static inline bool hlist_unhashed(const struct hlist_node *h)
{
	return !h->pprev;
}

/* READ_ONCE: a lockless emptiness check must see a whole pointer. */
static inline bool hlist_empty(const struct hlist_head *h)
{
	return !READ_ONCE(h->first);
}

/*
 * Whoever pointed at n now points at n's successor.  WRITE_ONCE because
 * lockless checks (hlist_empty(), RCU readers) may load these pointers.
 */
static inline void __hlist_del(struct hlist_node *n)
{
	struct hlist_node *next = n->next;
	struct hlist_node **pprev = n->pprev;

	WRITE_ONCE(*pprev, next);
	if (next)
		WRITE_ONCE(next->pprev, pprev);
}

static inline void hlist_del(struct hlist_node *n)
{
	__hlist_del(n);
	n->next = LIST_POISON1;
	n->pprev = LIST_POISON2;
}

/* Safe on a node that is already unhashed. */
static inline void hlist_del_init(struct hlist_node *n)
{
	if (!hlist_unhashed(n)) {
		__hlist_del(n);
		INIT_HLIST_NODE(n);
	}
}

static inline void hlist_add_head(struct hlist_node *n, struct hlist_head *h)
{
	struct hlist_node *first = h->first;

	WRITE_ONCE(n->next, first);
	if (first)
		WRITE_ONCE(first->pprev, &n->next);
	WRITE_ONCE(h->first, n);
	WRITE_ONCE(n->pprev, &h->first);
}

/* Adds n in front of next, which must be on a list. */
static inline void hlist_add_before(struct hlist_node *n,
				    struct hlist_node *next)
{
	WRITE_ONCE(n->pprev, next->pprev);
	WRITE_ONCE(n->next, next);
	WRITE_ONCE(next->pprev, &n->next);
	WRITE_ONCE(*(n->pprev), n);
}

/* Adds n after prev, which must be on a list. */
static inline void hlist_add_behind(struct hlist_node *n,
				    struct hlist_node *prev)
{
	WRITE_ONCE(n->next, prev->next);
	WRITE_ONCE(prev->next, n);
	WRITE_ONCE(n->pprev, &prev->next);
	if (n->next)
		WRITE_ONCE(n->next->pprev, &n->next);
}

#define hlist_entry(ptr, type, member)	container_of(ptr, type, member)

/*
 * NULL stays NULL.  container_of() on NULL would give a small negative
 * pointer that is neither NULL nor an entry, so the NULL test must come
 * before the conversion; this macro does both in that order.  ptr is read
 * once.  (&* drops the volatile that READ_ONCE() leaves on ptr's type, so
 * the copy can live in a register.)
 */
#define hlist_entry_safe(ptr, type, member) ({				\
	__typeof__(&*(ptr)) ____ptr = (ptr);				\
	____ptr ? hlist_entry(____ptr, type, member) : NULL;		\
})

#define hlist_for_each(pos, head) \
	for (pos = (head)->first; pos; pos = pos->next)

/* Allows pos to be deleted: n holds its successor. */
#define hlist_for_each_safe(pos, n, head)				\
	for (pos = (head)->first; pos && ({ n = pos->next; 1; });	\
	     pos = n)

#define hlist_for_each_entry(pos, head, member)				\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos;							\
	     pos = hlist_entry_safe((pos)->member.next,			\
				    __typeof__(*(pos)), member))

/* Allows pos to be deleted: n (a struct hlist_node *) holds the successor. */
#define hlist_for_each_entry_safe(pos, n, head, member)			\
	for (pos = hlist_entry_safe((head)->first, __typeof__(*(pos)), member); \
	     pos && ({ n = (pos)->member.next; 1; });			\
	     pos = hlist_entry_safe(n, __typeof__(*(pos)), member))

#endif
