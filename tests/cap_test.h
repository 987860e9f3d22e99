/*
 * What the capability tests share (tests/cap_*.c): a capability space of
 * the kernel's own, with no task behind it -- every operation of
 * kernel/object/cap.c works on it as on a task's -- made and emptied.
 */
#ifndef TESTS_CAP_TEST_H
#define TESTS_CAP_TEST_H

#include "ktest.h"
#include "object/cap.h"
#include <errno.h>

struct test_space {
	struct quota *q;
	struct cspace *cs;
};

static inline bool test_space_make(struct test_space *ts)
{
	ts->q = quota_create(quota_default_bytes());
	ts->cs = ts->q ? cspace_create(ts->q, NULL) : NULL;
	return ts->cs != NULL;
}

static inline void test_space_free(struct test_space *ts)
{
	if (ts->cs) {
		cspace_destroy(ts->cs);
		cspace_free(ts->cs);
	}
	if (ts->q)
		quota_put(ts->q);
	object_settle();	/* (the leak check counts the nodes' pages) */
}

#endif
