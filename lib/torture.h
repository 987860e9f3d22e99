/*
 * The life of a torture element, shared by the kernel's rcutorture
 * (tests/rcutorture*.c, which tells the whole story) and urcutorture
 * (user/urcutorture/, for user-space RCU).  A writer publishes elements
 * one after another; each carries how many grace periods have passed
 * since it was retired (pipe_count), and readers check that none ends
 * while they hold it.  Freestanding: the kernel and programs include it.
 *
 *	pipe_count 0            current (or handed out again)
 *	           1            retired, no grace period yet
 *	           1 + k        k grace periods, each begun after the retirement
 *	           the poison   back in the pool: mbtest 0 (gen grows when reused)
 */
#ifndef LIB_TORTURE_H
#define LIB_TORTURE_H

#include <stdbool.h>
#include "compiler.h"
#include "barrier.h"

#define TORTURE_PIPE_LEN	10	/* Linux's RCU_TORTURE_PIPE_LEN */

struct torture_life {
	int pipe_count;
	int mbtest;		/* 1 while it may be published, 0 once back in the pool */
	unsigned long gen;	/* bumped each time it leaves the pool */
};

/* Out of the pool: a new generation first, then the fresh fields. */
static inline void torture_life_begin(struct torture_life *l)
{
	WRITE_ONCE(l->gen, l->gen + 1);
	/*
	 * [torture_gen_wmb] pairs [torture_look_end_rmb]: a reader holding
	 * the element from its last life that sees a fresh field sees the
	 * new gen too (it reads the fields, then gen), so it sees the reuse.
	 */
	smp_wmb();
	WRITE_ONCE(l->pipe_count, 0);
	WRITE_ONCE(l->mbtest, 1);
}

/* Back to the pool: unusable from now on, which a late reader sees. */
static inline void torture_life_end(struct torture_life *l, int poison)
{
	WRITE_ONCE(l->mbtest, 0);
	WRITE_ONCE(l->pipe_count, poison);
}

/* One more grace period has passed for a retired element: false once its pipe is full. */
static inline bool torture_life_age(struct torture_life *l)
{
	int pc = READ_ONCE(l->pipe_count) + 1;

	if (pc >= TORTURE_PIPE_LEN)
		return false;
	WRITE_ONCE(l->pipe_count, pc);
	return true;
}

/* Has anything happened to l that a correct RCU forbids while a reader holds it? */
static inline bool torture_life_ended_under(const struct torture_life *l, unsigned long gen)
{
	return READ_ONCE(l->pipe_count) >= 2 || READ_ONCE(l->gen) != gen;
}

/*
 * What a reader saw of the element as it began to hold it.  Its end
 * (torture_look_end()) is where a reuse under it is caught: nothing here
 * orders gen before the fields, and a reuse that came before this look
 * is not the reader's to see (it found the element current or just
 * retired, in its rcu_dereference()).
 */
struct torture_look {
	unsigned long gen;
	int pipe_count;
	bool mbtest_ok;
};

static inline void torture_look_begin(const struct torture_life *l, struct torture_look *look)
{
	look->gen = READ_ONCE(l->gen);
	look->mbtest_ok = READ_ONCE(l->mbtest) == 1;
	look->pipe_count = READ_ONCE(l->pipe_count);
}

/*
 * As the reader lets go: the Reader Pipe bucket of its section, the most
 * grace periods it saw end under it, or TORTURE_PIPE_LEN when the element
 * was freed (perhaps reused) under it (*recycled).
 */
static inline int torture_look_end(const struct torture_life *l, const struct torture_look *look,
				   bool *recycled)
{
	int pc = READ_ONCE(l->pipe_count), mbtest = READ_ONCE(l->mbtest);

	smp_rmb();	/* [torture_look_end_rmb] pairs [torture_gen_wmb]: a fresh field, a new gen */
	*recycled = READ_ONCE(l->gen) != look->gen || mbtest != 1;
	if (*recycled)
		return TORTURE_PIPE_LEN;
	pc = max(pc, look->pipe_count);
	return pc < 0 || pc > TORTURE_PIPE_LEN ? TORTURE_PIPE_LEN : pc;
}

#endif
