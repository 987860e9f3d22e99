/*
 * Memory.  A physical page allocator over the RAM the firmware reported
 * (kernel/page_alloc.c) and kmalloc() on top of it (kernel/kmalloc.c).
 * Memory is identity-mapped: a physical address is the pointer.
 */
#ifndef KERNEL_MM_H
#define KERNEL_MM_H

#include "types.h"
#include "list.h"
#include "spinlock.h"

#define PAGE_SIZE	4096UL
#define PAGE_SHIFT	12

typedef unsigned int gfp_t;
#define GFP_KERNEL	0x1u	/* kmalloc never sleeps: both behave alike */
#define GFP_ATOMIC	0x2u
#define __GFP_ZERO	0x100u

/* Contiguous pages, or NULL when none are left. */
void *page_alloc(size_t npages);
void page_free(void *addr, size_t npages);
size_t page_free_count(void);
size_t page_total_count(void);
/*
 * Frees the RAM the memory map lists above the kernel's image; false,
 * with a message, when the map leaves out part of the image itself.
 */
bool page_alloc_init(void);
struct mem_region;
bool mem_regions_cover(const struct mem_region *r, int n, uintptr_t start, uintptr_t end);

/* Freed objects are filled with this, so a use after free shows. */
#define POISON_FREE	0x6b

/* Size classes 16 .. 2048 bytes; larger requests take whole pages. */
#define KMALLOC_MIN_SIZE	16
#define KMALLOC_MAX_CLASS	2048
#define KMALLOC_NR_CLASSES	8

/*
 * A heap: kmalloc() uses the kernel heap; a test can make a small one with
 * a page limit to see exhaustion without exhausting the machine.
 */
struct kheap {
	const char *name;
	spinlock_t lock;
	size_t max_pages;		/* 0: no limit */
	size_t pages;			/* pages it holds now */
	long live_objects;		/* allocated and not yet freed */
	struct list_head partial[KMALLOC_NR_CLASSES];	/* slabs with free slots */
};

void kheap_init(struct kheap *heap, const char *name, size_t max_pages);
void *kheap_alloc(struct kheap *heap, size_t size, gfp_t flags);
void kheap_free(void *ptr);	/* finds the heap from the pointer */

void *kmalloc(size_t size, gfp_t flags);
void *kzalloc(size_t size, gfp_t flags);
void *kcalloc(size_t n, size_t size, gfp_t flags);
void kfree(const void *ptr);
size_t ksize(const void *ptr);
long kmalloc_live_objects(void);
void kmalloc_init(void);

#endif
