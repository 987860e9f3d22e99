/*
 * User-space RCU for programs, the QSBR flavor, with the names of
 * liburcu's <urcu-qsbr.h> (docs/urcu.md): readers cost nothing, and each
 * registered thread announces quiescent states.  A server:
 *
 *	rcu_register_thread();
 *	for (;;) {
 *		badge = q_recv(ep, &m);		// offline while it waits
 *		rcu_read_lock();
 *		e = lookup(...);		// RCU list walks, rcu_dereference()
 *		... answer from e ...
 *		rcu_read_unlock();
 *		rcu_quiescent_state();		// e is forgotten
 *	}
 *
 * urcu.h is the other flavor; urcu/rculist.h has the RCU lists.
 */
#ifndef URCU_QSBR_H
#define URCU_QSBR_H

#include "urcu/urcu-qsbr.h"

#define rcu_register_thread		urcu_qsbr_register_thread
#define rcu_unregister_thread		urcu_qsbr_unregister_thread
#define rcu_read_lock			urcu_qsbr_read_lock
#define rcu_read_unlock			urcu_qsbr_read_unlock
#define rcu_read_ongoing		urcu_qsbr_read_ongoing
#define rcu_quiescent_state		urcu_qsbr_quiescent_state
#define rcu_thread_offline		urcu_qsbr_thread_offline
#define rcu_thread_online		urcu_qsbr_thread_online
#define synchronize_rcu			urcu_qsbr_synchronize_rcu
#define call_rcu			urcu_qsbr_call_rcu
#define rcu_barrier			urcu_qsbr_barrier

#endif
