/*
 * A memory object mapped when the quota has no room left for the page
 * tables its mapping needs: the map must fail with -ENOMEM and the
 * kernel live on -- the map holds cap_mutex, so it must not wait there
 * for a grace period to reclaim its quota (docs/microkernel.md,
 * "Quotas"; the checking build panics if it does).  Once the pages are
 * given back the same map succeeds.
 */
#include <stdio.h>
#include "utest.h"
#include "qcap.h"

#define PAGE		4096L
#define MOST_PAGES	4096
#define FAR		(USER_MAP_BASE + (1UL << 39) * 3)	/* a fresh 512 GiB: every level of table new */

static long pages[MOST_PAGES];

int main(void)
{
	int mem = q_memory_create(SYS_CAP_ANY_SLOT, 1), n = 0;
	struct sys_quota_info info;
	long r, err = 0;

	printf("quota_map_tables: start\n");	/* (stdio's buffer, before the quota is spent) */
	CHECK(mem >= 0);
	/* Spend the quota a page at a time: what is left is less than one page table. */
	while (n < MOST_PAGES && (r = q_map(NULL, PAGE, SYS_PROT_READ | SYS_PROT_WRITE)) > 0)
		pages[n++] = r;
	err = r;
	CHECK_EQ(err, -SYS_ENOMEM);
	CHECK_EQ(q_quota_info(SYS_BOOT_SLOT_QUOTA, &info), 0);
	printf("spent: %d pages, used %ld of %ld\n", n, info.used, info.limit);

	/* The map needs up to three new page tables: the quota cannot pay for one. */
	r = q_memory_map(mem, (void *)FAR, SYS_PROT_READ | SYS_PROT_WRITE);
	printf("memory map with the quota spent: %ld\n", r);
	CHECK_EQ(r, -SYS_ENOMEM);
	r = q_memory_map(mem, NULL, SYS_PROT_READ);
	printf("memory map anywhere with the quota spent: %ld\n", r);
	CHECK(r == -SYS_ENOMEM || r > 0);
	if (r > 0)
		CHECK_EQ(q_memory_unmap(mem), 0);

	for (int i = 0; i < n; i++)
		CHECK_EQ(q_unmap((void *)pages[i], PAGE), 0);
	r = q_memory_map(mem, (void *)FAR, SYS_PROT_READ | SYS_PROT_WRITE);
	CHECK_EQ(r, (long)FAR);
	if (r > 0) {
		*(volatile long *)r = 42;
		CHECK_EQ(q_memory_unmap(mem), 0);
	}
	CHECK_EQ(q_cap_delete(mem), 0);
	return check_result();
}
