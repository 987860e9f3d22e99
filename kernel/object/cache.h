/*
 * Type-stable caches (kernel/object/cache.c): Linux's SLAB_TYPESAFE_BY_RCU
 * idea.  Each kind of kernel object (and the capability nodes) comes from
 * a cache of its own, whose pages hold objects of that one type only and
 * go back to the page allocator only a grace period after they emptied.
 *
 * Why: a reader inside rcu_read_lock() may hold a pointer to an object
 * that is being freed.  Objects here are freed only after a grace period,
 * so a correct reader never sees a freed one; but a bug (or a fault
 * injection) that frees too early must be *caught*, not turn into a read
 * of random memory.  With a type-stable cache the stale pointer still
 * points at an object of the right type, whose generation says it was
 * freed (or freed and reused): the lookup compares generations and names
 * the use-after-free (cspace.c).
 *
 * Every object starts with a struct kcache_head.  Its generation is even
 * while the object is allocated and odd while it is free; both the
 * allocation and the free bump it, so a pointer plus the generation it
 * had when taken names one lifetime of one slot.  Everything after the
 * first `keep` bytes is poisoned (POISON_FREE) when freed and checked when
 * handed out again: a write after free shows.
 */
#ifndef KERNEL_OBJECT_CACHE_H
#define KERNEL_OBJECT_CACHE_H

#include "kernel.h"

struct kcache_head {
	u32 gen;		/* even: allocated; odd: free */
	u16 type;		/* the cache's type: never changes (type-stable) */
	u16 cache_id;		/* which cache (reports) */
};

static inline bool kcache_gen_free(u32 gen)
{
	return gen & 1;
}

struct kcache {
	const char *name;
	size_t size;		/* each object, rounded up to 16 bytes */
	size_t keep;		/* bytes at the start never poisoned (the head, a refcount) */
	u16 type, id;
	spinlock_t lock;
	struct list_head partial;	/* pages with a free slot (and empty ones awaiting a grace period) */
	long live;		/* objects allocated now */
	long pages;		/* pages held now */
	unsigned long allocs, frees;
};

void kcache_init(struct kcache *c, const char *name, size_t size, size_t keep, u16 type);
/* A zeroed object with its head set (generation even), or NULL when out of pages. */
void *kcache_alloc(struct kcache *c);
/*
 * Gives obj back: its generation turns odd, its body is poisoned.  The
 * caller has waited for a grace period (or is a fault injection that did
 * not): the page stays in this cache, typed, for at least one more.
 */
void kcache_free(struct kcache *c, void *obj);
/* Empty pages whose release waits for a grace period (the leak check settles them). */
long kcache_pages_pending(void);

#endif
