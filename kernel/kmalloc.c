/*
 * kmalloc: small objects come from one-page slabs of a size class (16 to
 * 2048 bytes); a slab's header, at the start of its page, keeps a bitmap
 * of the slots in use, so kfree() can tell a double free or a pointer
 * kmalloc never returned and panic with a message that says so.  Larger
 * requests take whole pages behind a header.  Freed memory is poisoned
 * (POISON_FREE) and checked when handed out again: a write after free
 * shows.  kmalloc never sleeps, so it may be called with a spinlock held.
 */
#include "kernel.h"

#define SLAB_MAGIC	0x51ab51abu
#define LARGE_MAGIC	0x1a26e000u
#define SLAB_HEADER	128
#define MAX_SLOTS	((PAGE_SIZE - SLAB_HEADER) / KMALLOC_MIN_SIZE)

struct slab {			/* at the start of each slab page */
	u32 magic;
	u16 size, nslots;
	u16 nfree, cls;
	struct kheap *heap;
	struct list_head link;	/* on heap->partial[cls] while it has free slots */
	u64 used[(MAX_SLOTS + 63) / 64];
};

struct large {			/* at the start of a large allocation's pages */
	u32 magic;
	u32 npages;
	size_t size;
	struct kheap *heap;
	u8 pad[SLAB_HEADER - 24];
};

_Static_assert(sizeof(struct slab) <= SLAB_HEADER, "slab header too big");
_Static_assert(sizeof(struct large) == SLAB_HEADER, "large header size");

static struct kheap kernel_heap;
static bool kernel_heap_ready;

void kheap_init(struct kheap *heap, const char *name, size_t max_pages)
{
	heap->name = name;
	spin_lock_init(&heap->lock);
	heap->lock.name = name;
	heap->max_pages = max_pages;
	heap->pages = 0;
	heap->live_objects = 0;
	for (int i = 0; i < KMALLOC_NR_CLASSES; i++)
		INIT_LIST_HEAD(&heap->partial[i]);
}

static int size_class(size_t size)
{
	int cls = 0;

	for (size_t s = KMALLOC_MIN_SIZE; s < size; s <<= 1)
		cls++;
	return cls;
}

/* Pages for a heap, within its limit; called with heap->lock held. */
static void *heap_pages(struct kheap *heap, size_t npages)
{
	void *p;

	if (heap->max_pages && heap->pages + npages > heap->max_pages)
		return NULL;
	p = page_alloc(npages);
	if (p)
		heap->pages += npages;
	return p;
}

static struct slab *new_slab(struct kheap *heap, int cls)
{
	struct slab *s = heap_pages(heap, 1);
	size_t size = (size_t)KMALLOC_MIN_SIZE << cls;

	if (!s)
		return NULL;
	memset(s, 0, SLAB_HEADER);
	s->magic = SLAB_MAGIC;
	s->size = size;
	s->cls = cls;
	s->nslots = (PAGE_SIZE - SLAB_HEADER) / size;
	s->nfree = s->nslots;
	s->heap = heap;
	memset((char *)s + SLAB_HEADER, POISON_FREE, PAGE_SIZE - SLAB_HEADER);
	list_add(&s->link, &heap->partial[cls]);
	return s;
}

static void *slot_addr(struct slab *s, int i)
{
	return (char *)s + SLAB_HEADER + (size_t)i * s->size;
}

static void check_poison(struct slab *s, int i)
{
	const u8 *p = slot_addr(s, i);

	for (size_t k = 0; k < s->size; k++) {
		if (p[k] != POISON_FREE)
			panic("BUG: kmalloc-%u object %p was written after it was freed "
			      "(byte %zu is %#x, not the poison %#x)",
			      s->size, (void *)p, k, p[k], POISON_FREE);
	}
}

static void *slab_alloc(struct kheap *heap, size_t size)
{
	int cls = size_class(size);
	struct slab *s;

	if (list_empty(&heap->partial[cls]) && !new_slab(heap, cls))
		return NULL;
	s = list_first_entry(&heap->partial[cls], struct slab, link);
	for (int i = 0; i < s->nslots; i++) {
		if (s->used[i / 64] & (1ULL << (i % 64)))
			continue;
		s->used[i / 64] |= 1ULL << (i % 64);
		if (--s->nfree == 0)
			list_del(&s->link);
		check_poison(s, i);
		return slot_addr(s, i);
	}
	panic("BUG: kmalloc slab %p claims %u free slots but has none", (void *)s, s->nfree);
}

static void *large_alloc(struct kheap *heap, size_t size)
{
	size_t npages = (size + SLAB_HEADER + PAGE_SIZE - 1) / PAGE_SIZE;
	struct large *l;

	if (size > page_total_count() * PAGE_SIZE)
		return NULL;	/* also keeps the sum above from overflowing */
	l = heap_pages(heap, npages);
	if (!l)
		return NULL;
	l->magic = LARGE_MAGIC;
	l->npages = npages;
	l->size = size;
	l->heap = heap;
	return l + 1;
}

void *kheap_alloc(struct kheap *heap, size_t size, gfp_t flags)
{
	unsigned long irq;
	void *p;

	if (!size)
		return NULL;
	spin_lock_irqsave(&heap->lock, irq);
	p = size <= KMALLOC_MAX_CLASS ? slab_alloc(heap, size) : large_alloc(heap, size);
	if (p)
		heap->live_objects++;
	spin_unlock_irqrestore(&heap->lock, irq);
	if (p && (flags & __GFP_ZERO))
		memset(p, 0, size);
	return p;
}

static void slab_free(struct slab *s, const void *ptr)
{
	size_t off = (const char *)ptr - (const char *)s - SLAB_HEADER;
	int i = off / s->size;

	if ((const char *)ptr < (const char *)s + SLAB_HEADER || off % s->size || i >= s->nslots)
		panic("BUG: kfree(%p): not the start of a kmalloc-%u object", ptr, s->size);
	if (!(s->used[i / 64] & (1ULL << (i % 64))))
		panic("BUG: double kfree(%p): kmalloc-%u object already free", ptr, s->size);
	s->used[i / 64] &= ~(1ULL << (i % 64));
	memset((void *)ptr, POISON_FREE, s->size);
	if (s->nfree++ == 0)
		list_add(&s->link, &s->heap->partial[s->cls]);
	if (s->nfree == s->nslots) {
		/* Empty: give the page back, so memory use returns to where it was. */
		list_del(&s->link);
		s->magic = 0;
		s->heap->pages--;
		page_free(s, 1);
	}
}

static void large_free(struct large *l)
{
	struct kheap *heap = l->heap;
	size_t npages = l->npages;

	l->magic = 0;
	memset(l + 1, POISON_FREE, l->size);
	heap->pages -= npages;
	page_free(l, npages);
}

static void *header_of(const void *ptr, u32 *magic)
{
	uintptr_t page = ALIGN_DOWN((uintptr_t)ptr, PAGE_SIZE);

	if ((uintptr_t)ptr < 0x100000 || (uintptr_t)ptr >= (1ULL << 32)) {
		*magic = 0;
		return NULL;
	}
	*magic = *(u32 *)page;
	return (void *)page;
}

void kheap_free(void *ptr)
{
	u32 magic;
	void *h = header_of(ptr, &magic);
	struct kheap *heap;
	unsigned long irq;

	if (magic == SLAB_MAGIC)
		heap = ((struct slab *)h)->heap;
	else if (magic == LARGE_MAGIC && ptr == (struct large *)h + 1)
		heap = ((struct large *)h)->heap;
	else
		panic("BUG: kfree(%p): not a pointer kmalloc returned (or freed twice)", ptr);

	spin_lock_irqsave(&heap->lock, irq);
	if (magic == SLAB_MAGIC)
		slab_free(h, ptr);
	else
		large_free(h);
	heap->live_objects--;
	spin_unlock_irqrestore(&heap->lock, irq);
}

void kmalloc_init(void)
{
	kheap_init(&kernel_heap, "kernel_heap", 0);
	kernel_heap_ready = true;
}

static struct kheap *kheap_kernel(void)
{
	if (unlikely(!kernel_heap_ready))
		panic("BUG: kmalloc() before kmalloc_init()");
	return &kernel_heap;
}

void *kmalloc(size_t size, gfp_t flags)
{
	return kheap_alloc(kheap_kernel(), size, flags);
}

void *kzalloc(size_t size, gfp_t flags)
{
	return kmalloc(size, flags | __GFP_ZERO);
}

void *kcalloc(size_t n, size_t size, gfp_t flags)
{
	if (size && n > (size_t)-1 / size)
		return NULL;
	return kzalloc(n * size, flags);
}

void kfree(const void *ptr)
{
	if (ptr)
		kheap_free((void *)ptr);
}

size_t ksize(const void *ptr)
{
	u32 magic;
	void *h = header_of(ptr, &magic);

	if (magic == SLAB_MAGIC)
		return ((struct slab *)h)->size;
	if (magic == LARGE_MAGIC)
		return ((struct large *)h)->size;
	return 0;
}

long kmalloc_live_objects(void)
{
	return READ_ONCE(kheap_kernel()->live_objects);
}
