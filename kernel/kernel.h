/*
 * The kernel's whole API in one include, for kernel code, demos and tests
 * (tests/ include it through ktest.h).
 */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include "types.h"
#include "compiler.h"
#include "barrier.h"
#include "atomic.h"
#include "arch.h"
#include "smp.h"
#include "preempt.h"
#include "spinlock.h"
#include "printk.h"
#include "panic.h"
#include "time.h"
#include "mm.h"
#include "cmdline.h"
#include "sched.h"
#include "completion.h"
#include "mutex.h"
#include "list.h"
#include "rcu/rcupdate.h"
#include "rcu/rculist.h"
#include "rcu/srcu.h"
#include "trace.h"

#include <string.h>
#include <limits.h>
#include <stdio.h>	/* snprintf (integer formats are safe on any CPU) */

#endif
