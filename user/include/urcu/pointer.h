/*
 * Publish and subscribe for programs, with liburcu's and Linux's names:
 * the same two operations as the kernel's (kernel/rcu/rcupdate.h), good
 * for every flavor of the user-space RCU library (urcu.h, urcu-qsbr.h).
 *
 *	rcu_assign_pointer(gp, p)   publish p, fully initialised
 *	p = rcu_dereference(gp)     subscribe, inside a read-side section
 */
#ifndef URCU_POINTER_H
#define URCU_POINTER_H

#include "compiler.h"
#include "barrier.h"

/*
 * Publish: a release store.  [urcu_assign_release] pairs
 * [urcu_dereference_dep]: the stores that initialised *v are visible
 * before the store that makes v reachable, so a reader that finds v never
 * sees its fields unset.
 */
#define rcu_assign_pointer(p, v)					\
	do {								\
		__typeof__(p) __urcu_new = (v);				\
		smp_store_release(&(p), __urcu_new);			\
	} while (0)
/* liburcu's form: the pointer's address. */
#define rcu_set_pointer(pp, v)		rcu_assign_pointer(*(pp), (v))
/* A pointer nobody can reach yet, or NULL: no release needed. */
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE((p), (v))

/*
 * Subscribe: one untorn load.  [urcu_dereference_dep] pairs
 * [urcu_assign_release]: what the reader then loads through the pointer
 * depends on its address, which both architectures order after the load
 * (only DEC Alpha would not), so it reads the initialised fields.
 */
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference(p)		rcu_dereference_raw(p)
/* Only the pointer's value, never dereferenced. */
#define rcu_access_pointer(p)		READ_ONCE(p)
/* On the update side, under the lock that keeps p from changing. */
#define rcu_dereference_protected(p, c)	((void)sizeof(c), (p))

#endif
