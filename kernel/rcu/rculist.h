/*
 * The RCU lists in the kernel: lib/rculist.h, the one copy the kernel and
 * programs share, over the kernel's RCU API (rcupdate.h: its
 * rcu_assign_pointer(), rcu_dereference_raw() and the checking build's
 * rcu_list_check()).  Each retraction is an event of the trace (make
 * trace, docs/trace.md).
 */
#ifndef KERNEL_RCU_RCULIST_H
#define KERNEL_RCU_RCULIST_H

#include "rcupdate.h"

#define rcu_list_unpublished(p)	trace_record(TR_UNPUBLISH, 0, (uintptr_t)(p))

#include "../../lib/rculist.h"

#endif
