/*
 * Type-stable caches (cache.h).  A cache carves one-page slabs into slots
 * of one size, like kmalloc's slabs, with two differences that make it
 * type-stable:
 *   - a page holds objects of its cache's type only, and a freed slot is
 *     only ever reused by the same cache, so a stale pointer reads a head
 *     of the right type whose generation tells the truth;
 *   - a page that empties goes back to the page allocator only after a
 *     grace period in which none of its slots was freed again, so a
 *     reader that picked up a pointer into it before it emptied still
 *     reads a typed page.  (Linux's SLAB_TYPESAFE_BY_RCU frees the slab
 *     page with call_rcu() in the same way.)
 */
#include "object/cache.h"

#define KCACHE_MAGIC		0x7caced01u
#define KCACHE_PAGE_HEADER	128
#define KCACHE_ALIGN		16
#define KCACHE_MIN_SIZE		32
#define KCACHE_MAX_SLOTS	((PAGE_SIZE - KCACHE_PAGE_HEADER) / KCACHE_MIN_SIZE)

struct kcache_page {
	u32 magic;
	u16 nslots, nfree;
	struct kcache *cache;
	struct list_head link;		/* on cache->partial while it has a free slot */
	bool release_queued;		/* release_page() is queued */
	unsigned long frees;		/* slots freed in it, ever */
	unsigned long frees_when_queued;
	struct rcu_head rcu;
	u64 used[(KCACHE_MAX_SLOTS + 63) / 64];
};

_Static_assert(sizeof(struct kcache_page) <= KCACHE_PAGE_HEADER, "kcache page header too big");

static atomic_long_t pages_pending;
static atomic_t next_cache_id;

void kcache_init(struct kcache *c, const char *name, size_t size, size_t keep, u16 type)
{
	size = ALIGN_UP(max(size, (size_t)KCACHE_MIN_SIZE), KCACHE_ALIGN);
	if (size > PAGE_SIZE - KCACHE_PAGE_HEADER || keep < sizeof(struct kcache_head) || keep > size)
		panic("BUG: kcache %s: object size %zu (keep %zu) does not fit a page", name, size,
		      keep);
	memset(c, 0, sizeof(*c));
	c->name = name;
	c->size = size;
	c->keep = keep;
	c->type = type;
	c->id = atomic_inc_return_relaxed(&next_cache_id);
	spin_lock_init(&c->lock);
	c->lock.name = name;
	INIT_LIST_HEAD(&c->partial);
}

static void *slot_addr(struct kcache_page *p, int i)
{
	return (char *)p + KCACHE_PAGE_HEADER + (size_t)i * p->cache->size;
}

static struct kcache_page *new_page(struct kcache *c)
{
	struct kcache_page *p = page_alloc(1);

	if (!p)
		return NULL;
	memset(p, 0, KCACHE_PAGE_HEADER);
	p->magic = KCACHE_MAGIC;
	p->cache = c;
	p->nslots = (PAGE_SIZE - KCACHE_PAGE_HEADER) / c->size;
	p->nfree = p->nslots;
	for (int i = 0; i < p->nslots; i++) {
		struct kcache_head *h = slot_addr(p, i);

		memset(h, POISON_FREE, c->size);
		h->gen = 1;		/* free */
		h->type = c->type;
		h->cache_id = c->id;
	}
	list_add(&p->link, &c->partial);
	c->pages++;
	return p;
}

/* The bytes past `keep` of a free slot must still be poison: nothing writes a freed object. */
static void check_poison(struct kcache *c, const struct kcache_head *h)
{
	const u8 *b = (const u8 *)h;

	for (size_t k = c->keep; k < c->size; k++)
		if (b[k] != POISON_FREE)
			panic("BUG: %s object %p was written after it was freed "
			      "(byte %zu is %#x, not the poison %#x)",
			      c->name, (void *)h, k, b[k], POISON_FREE);
	if (!kcache_gen_free(h->gen) || h->type != c->type)
		panic("BUG: %s object %p: free slot with generation %u, type %u (cache type %u)",
		      c->name, (void *)h, h->gen, h->type, c->type);
}

void *kcache_alloc(struct kcache *c)
{
	struct kcache_head *h = NULL;
	struct kcache_page *p;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (list_empty(&c->partial) && !new_page(c))
		goto out;
	p = list_first_entry(&c->partial, struct kcache_page, link);
	for (int i = 0; i < p->nslots; i++) {
		if (p->used[i / 64] & (1ULL << (i % 64)))
			continue;
		p->used[i / 64] |= 1ULL << (i % 64);
		if (--p->nfree == 0)
			list_del(&p->link);
		h = slot_addr(p, i);
		break;
	}
	if (!h)
		panic("BUG: kcache %s page %p claims %u free slots but has none", c->name,
		      (void *)p, p->nfree);
	check_poison(c, h);
	memset((char *)h + sizeof(*h), 0, c->size - sizeof(*h));
	/* (no reader may take this slot for the one it held: the generation moved on) */
	WRITE_ONCE(h->gen, h->gen + 1);
	c->live++;
	c->allocs++;
out:
	spin_unlock_irqrestore(&c->lock, flags);
	return h;
}

/*
 * A grace period after the page emptied.  If a slot of it was freed
 * meanwhile (and perhaps handed out and freed again), a reader may have
 * picked that pointer up after we were queued: wait one more.
 */
static void release_page(struct rcu_head *rh)
{
	struct kcache_page *p = container_of(rh, struct kcache_page, rcu);
	struct kcache *c = p->cache;
	bool release = false, again = false;
	unsigned long flags;

	spin_lock_irqsave(&c->lock, flags);
	if (p->nfree == p->nslots && p->frees == p->frees_when_queued) {
		list_del(&p->link);
		c->pages--;
		release = true;
	} else if (p->nfree == p->nslots) {
		p->frees_when_queued = p->frees;
		again = true;
	} else {
		p->release_queued = false;	/* in use again: it stays */
	}
	spin_unlock_irqrestore(&c->lock, flags);
	if (again) {
		call_rcu(&p->rcu, release_page);
		return;
	}
	if (release) {
		p->magic = 0;
		page_free(p, 1);
	}
	atomic_long_dec(&pages_pending);
}

void kcache_free(struct kcache *c, void *obj)
{
	struct kcache_page *p = (void *)ALIGN_DOWN((uintptr_t)obj, PAGE_SIZE);
	struct kcache_head *h = obj;
	size_t off = (char *)obj - (char *)p - KCACHE_PAGE_HEADER;
	bool queue = false;
	unsigned long flags;
	int i = off / c->size;

	if (p->magic != KCACHE_MAGIC || p->cache != c || (char *)obj < (char *)p +
	    KCACHE_PAGE_HEADER || off % c->size || i >= p->nslots)
		panic("BUG: kcache_free(%s, %p): not an object of this cache", c->name, obj);
	spin_lock_irqsave(&c->lock, flags);
	if (!(p->used[i / 64] & (1ULL << (i % 64))) || kcache_gen_free(h->gen))
		panic("BUG: %s object %p freed twice (generation %u)", c->name, obj, h->gen);
	WRITE_ONCE(h->gen, h->gen + 1);		/* odd: free */
	/*
	 * [kcache_free_wmb] pairs [cap_read_rmb], [cap_recheck_rmb]: the odd
	 * generation is visible before any poison byte.  A reader that read
	 * a field after we poisoned it (a free that did not wait for its
	 * grace period: a bug) then reads the generation changed when it
	 * looks again, and reports instead of using the poison.
	 */
	smp_wmb();
	memset((char *)obj + c->keep, POISON_FREE, c->size - c->keep);
	p->used[i / 64] &= ~(1ULL << (i % 64));
	if (p->nfree++ == 0)
		list_add(&p->link, &c->partial);
	p->frees++;
	if (p->nfree == p->nslots && !p->release_queued) {
		p->release_queued = true;
		p->frees_when_queued = p->frees;
		queue = true;
	}
	c->live--;
	c->frees++;
	spin_unlock_irqrestore(&c->lock, flags);
	if (queue) {
		atomic_long_inc(&pages_pending);
		call_rcu(&p->rcu, release_page);
	}
}

long kcache_pages_pending(void)
{
	return atomic_long_read(&pages_pending);
}
