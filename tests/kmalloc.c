/* kmalloc/kfree: sizes, alignment, poisoning, exhaustion on a bounded heap. */
#include "ktest.h"

KTEST(kmalloc_sizes_and_alignment)
{
	static const size_t sizes[] = { 1, 8, 16, 17, 100, 128, 500, 2048, 2049, 4096, 20000 };
	void *p[ARRAY_SIZE(sizes)];
	long live = kmalloc_live_objects();

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		p[i] = kmalloc(sizes[i], GFP_KERNEL);
		KASSERT(p[i] != NULL);
		KEXPECT_EQ((uintptr_t)p[i] % 16, 0);
		if (sizes[i] >= 128 && sizes[i] <= KMALLOC_MAX_CLASS)
			KEXPECT_EQ((uintptr_t)p[i] % 128, 0);
		KEXPECT(ksize(p[i]) >= sizes[i]);
		memset(p[i], (int)i, sizes[i]);
	}
	/* No two objects overlap: each still holds its own pattern. */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		const u8 *b = p[i];

		KEXPECT_EQ(b[0], i);
		KEXPECT_EQ(b[sizes[i] - 1], i);
	}
	KEXPECT_EQ(kmalloc_live_objects(), live + (long)ARRAY_SIZE(sizes));
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++)
		kfree(p[i]);
	KEXPECT_EQ(kmalloc_live_objects(), live);
}

KTEST(kmalloc_zero_size_and_kfree_null)
{
	KEXPECT(kmalloc(0, GFP_KERNEL) == NULL);
	kfree(NULL);	/* does nothing */
	u8 *z = kzalloc(300, GFP_ATOMIC);
	KASSERT(z != NULL);
	for (int i = 0; i < 300; i++)
		KEXPECT_EQ(z[i], 0);
	kfree(z);
}

KTEST(kfree_poisons_freed_memory)
{
	/* Two objects in one slab, so the slab page stays after one is freed. */
	u8 *keep = kmalloc(64, GFP_KERNEL);
	u8 *p = kmalloc(64, GFP_KERNEL);

	KASSERT(keep && p);
	memset(p, 0x11, 64);
	kfree(p);
	for (int i = 0; i < 64; i++)
		KEXPECT_EQ(p[i], POISON_FREE);	/* reading freed memory: test only */
	kfree(keep);
}

KTEST(kmalloc_exhaustion_returns_null)
{
	static struct kheap heap;
	void *objs[200];
	int n = 0;
	size_t per_page = (PAGE_SIZE - 128) / 256;

	kheap_init(&heap, "test_heap", 4);
	while (n < (int)ARRAY_SIZE(objs) && (objs[n] = kheap_alloc(&heap, 256, GFP_KERNEL)))
		n++;
	KEXPECT_EQ(n, 4 * per_page);		/* exactly what four pages hold */
	KEXPECT_EQ(heap.pages, 4);
	KEXPECT(kheap_alloc(&heap, 3000, GFP_KERNEL) == NULL);
	for (int i = 0; i < n; i++)
		kheap_free(objs[i]);
	KEXPECT_EQ(heap.pages, 0);		/* empty slabs went back */
	KEXPECT_EQ(heap.live_objects, 0);
	objs[0] = kheap_alloc(&heap, 256, GFP_KERNEL);
	KEXPECT(objs[0] != NULL);		/* usable again */
	kheap_free(objs[0]);
	KEXPECT(kmalloc(1ULL << 40, GFP_KERNEL) == NULL);	/* more than the machine has */
	KEXPECT(kcalloc(1ULL << 62, 16, GFP_KERNEL) == NULL);	/* n * size overflows */
}

KTEST(page_alloc_returns_pages_it_counts)
{
	size_t before = page_free_count();
	void *p = page_alloc(3);

	KASSERT(p != NULL);
	KEXPECT_EQ((uintptr_t)p % PAGE_SIZE, 0);
	KEXPECT_EQ(page_free_count(), before - 3);
	page_free(p, 3);
	KEXPECT_EQ(page_free_count(), before);
}
