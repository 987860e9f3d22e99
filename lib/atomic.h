/*
 * atomic_t, atomic_long_t and atomic64_t with Linux's names, on the
 * compiler's __atomic builtins.  Ordering follows Linux's model
 * (Documentation/atomic_t.txt):
 *
 *  - atomic_read()/atomic_set() and the operations that return nothing
 *    (atomic_inc(), atomic_add(), ...) are relaxed: the access is atomic,
 *    and nothing else is ordered by it.
 *  - The operations that return a value (atomic_inc_return(),
 *    atomic_fetch_add(), atomic_dec_and_test(), atomic_xchg(),
 *    atomic_cmpxchg(), xchg(), cmpxchg(), ...) are FULLY ordered: every
 *    access before one is ordered before every access after it, as if an
 *    smp_mb() stood on each side.  (A failed cmpxchg is fully ordered
 *    too here; Linux does not promise it, so do not lean on it.)
 *  - Their _relaxed forms (atomic_inc_return_relaxed(), xchg_relaxed(),
 *    ...) order nothing: for counters whose value orders no other data
 *    (a pid, a statistic, a maximum), so they need no partner.  The
 *    _acquire and _release forms order one side, as smp_load_acquire()
 *    and smp_store_release() do.
 *
 * Why not simply __ATOMIC_SEQ_CST: on AArch64 GCC turns a seq_cst
 * read-modify-write into an ldaxr/stlxr loop with no dmb.  That is
 * sequentially consistent only against other seq_cst atomics: a later
 * plain load may still be satisfied before the stlxr's store is visible
 * to other CPUs.  So the fully ordered forms are a relaxed operation
 * between smp_mb__before_atomic() and smp_mb__after_atomic() -- a dmb ish
 * each on AArch64, nothing on x86-64, where every locked instruction is
 * already a full barrier (asm/barrier.h).  TCG on an x86-64 host runs
 * an AArch64 guest's accesses nearly in order, so no test can show the
 * difference; the disassembly does (a dmb on each side of the loop).
 */
#ifndef LIB_ATOMIC_H
#define LIB_ATOMIC_H

#include "compiler.h"
#include "barrier.h"

typedef struct { int counter; } atomic_t;
typedef struct { long counter; } atomic_long_t;
typedef struct { long long counter; } atomic64_t;

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC_LONG_INIT(i)	{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }

/* expr, a relaxed atomic operation, made fully ordered (see above). */
#define __atomic_fully_ordered(expr)					\
({									\
	__typeof__(expr) __ret;						\
	smp_mb__before_atomic();					\
	__ret = (expr);							\
	smp_mb__after_atomic();						\
	__ret;								\
})

/* One value-returning operation in its four orderings: name, name_relaxed, _acquire, _release. */
#define __ATOMIC_RET_OP(pfx, t, vt, op, builtin)			\
static inline vt pfx##_##op##_relaxed(vt i, t *v)			\
{ return builtin(&v->counter, i, __ATOMIC_RELAXED); }			\
static inline vt pfx##_##op##_acquire(vt i, t *v)			\
{ return builtin(&v->counter, i, __ATOMIC_ACQUIRE); }			\
static inline vt pfx##_##op##_release(vt i, t *v)			\
{ return builtin(&v->counter, i, __ATOMIC_RELEASE); }			\
static inline vt pfx##_##op(vt i, t *v)					\
{ return __atomic_fully_ordered(builtin(&v->counter, i, __ATOMIC_RELAXED)); }

#define __ATOMIC_OPS(pfx, t, vt)					\
static inline vt pfx##_read(const t *v) { return READ_ONCE(v->counter); } \
static inline void pfx##_set(t *v, vt i) { WRITE_ONCE(v->counter, i); } \
static inline void pfx##_add(vt i, t *v)				\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_sub(vt i, t *v)				\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_inc(t *v) { pfx##_add(1, v); }		\
static inline void pfx##_dec(t *v) { pfx##_sub(1, v); }		\
__ATOMIC_RET_OP(pfx, t, vt, add_return, __atomic_add_fetch)		\
__ATOMIC_RET_OP(pfx, t, vt, sub_return, __atomic_sub_fetch)		\
__ATOMIC_RET_OP(pfx, t, vt, fetch_add, __atomic_fetch_add)		\
__ATOMIC_RET_OP(pfx, t, vt, fetch_sub, __atomic_fetch_sub)		\
static inline vt pfx##_inc_return(t *v) { return pfx##_add_return(1, v); } \
static inline vt pfx##_dec_return(t *v) { return pfx##_sub_return(1, v); } \
static inline vt pfx##_inc_return_relaxed(t *v)				\
{ return pfx##_add_return_relaxed(1, v); }				\
static inline vt pfx##_dec_return_relaxed(t *v)				\
{ return pfx##_sub_return_relaxed(1, v); }				\
static inline bool pfx##_dec_and_test(t *v) { return pfx##_dec_return(v) == 0; } \
static inline bool pfx##_inc_and_test(t *v) { return pfx##_inc_return(v) == 0; } \
static inline vt pfx##_xchg(t *v, vt n) { return xchg(&v->counter, n); }	\
static inline vt pfx##_xchg_relaxed(t *v, vt n)				\
{ return xchg_relaxed(&v->counter, n); }				\
static inline vt pfx##_cmpxchg(t *v, vt old, vt n)			\
{ return cmpxchg(&v->counter, old, n); }				\
static inline vt pfx##_cmpxchg_relaxed(t *v, vt old, vt n)		\
{ return cmpxchg_relaxed(&v->counter, old, n); }			\
static inline bool pfx##_try_cmpxchg(t *v, vt *old, vt n)		\
{ return try_cmpxchg(&v->counter, old, n); }				\
static inline bool pfx##_try_cmpxchg_relaxed(t *v, vt *old, vt n)	\
{ return try_cmpxchg_relaxed(&v->counter, old, n); }			\
/* Adds 1 unless the count is 0, ordering nothing: true if it added (a lock orders it). */ \
static inline bool pfx##_inc_not_zero_relaxed(t *v)			\
{									\
	vt __c = pfx##_read(v);						\
	do {								\
		if (!__c)						\
			return false;					\
	} while (!pfx##_try_cmpxchg_relaxed(v, &__c, __c + 1));		\
	return true;							\
}									\
/* The same, fully ordered: adds 1 unless the count is 0 (an object being freed). */ \
static inline bool pfx##_inc_not_zero(t *v)				\
{ return __atomic_fully_ordered(pfx##_inc_not_zero_relaxed(v)); }

/*
 * Exchange helpers on plain variables.  xchg()/cmpxchg()/try_cmpxchg()
 * are fully ordered; the suffixed forms give only what their name says.
 * try_cmpxchg() updates *old with the value found when it fails.
 */
#define __xchg(p, v, mo)	__atomic_exchange_n((p), (v), (mo))
#define xchg_relaxed(p, v)	__xchg((p), (v), __ATOMIC_RELAXED)
#define xchg_acquire(p, v)	__xchg((p), (v), __ATOMIC_ACQUIRE)
#define xchg_release(p, v)	__xchg((p), (v), __ATOMIC_RELEASE)
#define xchg(p, v)		__atomic_fully_ordered(xchg_relaxed((p), (v)))

#define __try_cmpxchg(p, po, n, mo)					\
	__atomic_compare_exchange_n((p), (po), (n), false, (mo), __ATOMIC_RELAXED)
#define try_cmpxchg_relaxed(p, po, n)	__try_cmpxchg((p), (po), (n), __ATOMIC_RELAXED)
#define try_cmpxchg_acquire(p, po, n)	__try_cmpxchg((p), (po), (n), __ATOMIC_ACQUIRE)
#define try_cmpxchg_release(p, po, n)	__try_cmpxchg((p), (po), (n), __ATOMIC_RELEASE)
#define try_cmpxchg(p, po, n)						\
	__atomic_fully_ordered(try_cmpxchg_relaxed((p), (po), (n)))

/* cmpxchg(): returns the value found; it equals o when the swap happened. */
#define __cmpxchg(try, p, o, n)						\
({									\
	__typeof__(*(p)) __old = (o);					\
	(void)try((p), &__old, (n));					\
	__old;								\
})
#define cmpxchg_relaxed(p, o, n)	__cmpxchg(try_cmpxchg_relaxed, p, o, n)
#define cmpxchg_acquire(p, o, n)	__cmpxchg(try_cmpxchg_acquire, p, o, n)
#define cmpxchg_release(p, o, n)	__cmpxchg(try_cmpxchg_release, p, o, n)
#define cmpxchg(p, o, n)		__cmpxchg(try_cmpxchg, p, o, n)

__ATOMIC_OPS(atomic, atomic_t, int)
__ATOMIC_OPS(atomic_long, atomic_long_t, long)
__ATOMIC_OPS(atomic64, atomic64_t, long long)

#undef __ATOMIC_OPS
#undef __ATOMIC_RET_OP

#endif
