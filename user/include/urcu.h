/*
 * User-space RCU for programs, the memb flavor, with the names of Linux
 * and liburcu's <urcu.h> (docs/urcu.md):
 *
 *	rcu_register_thread();			// each thread that reads, once
 *	rcu_read_lock();
 *	p = rcu_dereference(gp);		// subscribe
 *	... use p ...
 *	rcu_read_unlock();
 *
 *	new = ...; rcu_assign_pointer(gp, new);	// publish (updaters hold their lock)
 *	synchronize_rcu();			// or call_rcu(&old->rcu, free_old)
 *	free(old);
 *
 * Readers pay a nesting count and compiler barriers; synchronize_rcu()
 * pays two SYS_membarrier calls.  urcu-qsbr.h is the other flavor;
 * urcu/rculist.h has the RCU lists.
 */
#ifndef URCU_H
#define URCU_H

#include "urcu/urcu-memb.h"

#define rcu_register_thread		urcu_memb_register_thread
#define rcu_unregister_thread		urcu_memb_unregister_thread
#define rcu_read_lock			urcu_memb_read_lock
#define rcu_read_unlock			urcu_memb_read_unlock
#define rcu_read_ongoing		urcu_memb_read_ongoing
#define synchronize_rcu			urcu_memb_synchronize_rcu
#define call_rcu			urcu_memb_call_rcu
#define rcu_barrier			urcu_memb_barrier

#endif
