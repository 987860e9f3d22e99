#ifndef KERNEL_RCUPDATE_H
#define KERNEL_RCUPDATE_H
/* Placeholder: the pointer primitives; the read side and grace periods come with kernel/rcu.c. */
#include "barrier.h"

/* Publish: every initialising store to *v is visible before p points to it. */
#define rcu_assign_pointer(p, v)	smp_store_release(&(p), (v))
#define RCU_INIT_POINTER(p, v)		WRITE_ONCE((p), (v))
/* Subscribe: an address dependency orders the loads through the result. */
#define rcu_dereference_raw(p)		READ_ONCE(p)
#define rcu_dereference(p)		rcu_dereference_raw(p)
#define rcu_dereference_check(p, c)	rcu_dereference_raw(p)
#define rcu_dereference_protected(p, c)	(p)
#define rcu_access_pointer(p)		READ_ONCE(p)
/* Non-preemptible classic RCU: readers only need the compiler to keep their accesses inside. */
static inline void rcu_read_lock(void) { barrier(); }
static inline void rcu_read_unlock(void) { barrier(); }
#endif
