/*
 * TLB shootdowns, for tests/user_tlb.c.
 *
 * tlb shoot: a thread on CPU 1 reads a page in a loop while the first
 * thread, on CPU 0, unmaps it and fills new pages (likely the same
 * frame, reused) with other contents.  Once unmap() has returned, the
 * reader's next read must fault: it must never see the new contents
 * through a translation its CPU kept.  Ends killed by that fault (or
 * exit 2: it saw the new contents; exit 3: it never faulted; exit 4: no
 * page or no thread).
 *
 * tlb solo: maps and unmaps pages with one thread, on one CPU: no other
 * CPU ever had the address space loaded, so no shootdown may be needed.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "quiescent.h"

#define PAGE		4096
#define OLD		0x1111111111111111ULL
#define NEW		0x2222222222222222ULL
#define REUSE_PAGES	16
#define READS_BEFORE	1000
#define WAIT_NS		(5ULL * 1000 * 1000 * 1000)
/*
 * The reader's page sits half-way up the map area, where map(NULL, ...)
 * (first fit from USER_MAP_BASE) never reaches: its address is never
 * mapped again during the test.  At the first free address, the new
 * pages took it back at once, and a reader whose CPU the host had not
 * run since the shootdown read NEW through a fresh, correct translation:
 * the test failed once on a loaded host without any stale TLB entry.
 */
#define READER_PAGE	(USER_MAP_BASE + (USER_HEAP_BASE - USER_MAP_BASE) / 2)

static volatile uint64_t *page;
static volatile long reads;

static int reader(void *arg)
{
	(void)arg;
	for (;;) {
		if (*page == NEW) {
			printf("the reader saw the page's next contents after unmap()\n");
			q_syscall(SYS_exit, 2, 0, 0, 0, 0, 0);
		}
		reads++;
	}
	return 0;	/* (never) */
}

static int shoot(void)
{
	uint64_t t0;

	if (q_map((void *)READER_PAGE, PAGE, SYS_PROT_READ | SYS_PROT_WRITE) != (long)READER_PAGE)
		return 4;
	page = (volatile uint64_t *)READER_PAGE;
	*page = OLD;
	if (q_thread_create(reader, NULL, 1) < 0)
		return 4;
	while (reads < READS_BEFORE)
		;
	printf("unmapping %p while CPU1 reads it\n", (void *)page);
	q_unmap((void *)page, PAGE);
	for (int i = 0; i < REUSE_PAGES; i++) {
		uint64_t *p = (uint64_t *)q_map(NULL, PAGE, SYS_PROT_READ | SYS_PROT_WRITE);

		for (int k = 0; k < PAGE / 8; k++)
			p[k] = NEW;
	}
	t0 = q_clock_ns();
	while (q_clock_ns() - t0 < WAIT_NS)
		q_sleep_ns(10 * 1000 * 1000);
	printf("the reader never faulted\n");
	return 3;
}

static int solo(void)
{
	for (int i = 0; i < 100; i++) {
		long p = q_map(NULL, 4 * PAGE, SYS_PROT_READ | SYS_PROT_WRITE);

		if (p < 0)
			return 5;
		memset((void *)p, i, 4 * PAGE);
		q_unmap((void *)p, 4 * PAGE);
	}
	return 0;
}

int main(int argc, char **argv)
{
	q_set_cpu(0);
	if (argc > 1 && !strcmp(argv[1], "shoot"))
		return shoot();
	return solo();
}
