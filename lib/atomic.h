/*
 * atomic_t with Linux's names, on the compiler's __atomic builtins.
 * Ordering follows Linux: operations that return a value are fully
 * ordered (__ATOMIC_SEQ_CST); those that return nothing, and
 * atomic_read()/atomic_set(), are relaxed (no ordering beyond the access).
 */
#ifndef LIB_ATOMIC_H
#define LIB_ATOMIC_H

#include "compiler.h"

typedef struct { int counter; } atomic_t;
typedef struct { long long counter; } atomic64_t;

#define ATOMIC_INIT(i)		{ (i) }
#define ATOMIC64_INIT(i)	{ (i) }

#define __ATOMIC_OPS(pfx, t, vt)					\
static inline vt pfx##_read(const t *v) { return READ_ONCE(v->counter); } \
static inline void pfx##_set(t *v, vt i) { WRITE_ONCE(v->counter, i); } \
static inline void pfx##_add(vt i, t *v)				\
{ __atomic_fetch_add(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_sub(vt i, t *v)				\
{ __atomic_fetch_sub(&v->counter, i, __ATOMIC_RELAXED); }		\
static inline void pfx##_inc(t *v) { pfx##_add(1, v); }		\
static inline void pfx##_dec(t *v) { pfx##_sub(1, v); }		\
static inline vt pfx##_add_return(vt i, t *v)				\
{ return __atomic_add_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline vt pfx##_sub_return(vt i, t *v)				\
{ return __atomic_sub_fetch(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline vt pfx##_fetch_add(vt i, t *v)				\
{ return __atomic_fetch_add(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline vt pfx##_fetch_sub(vt i, t *v)				\
{ return __atomic_fetch_sub(&v->counter, i, __ATOMIC_SEQ_CST); }	\
static inline vt pfx##_inc_return(t *v) { return pfx##_add_return(1, v); } \
static inline vt pfx##_dec_return(t *v) { return pfx##_sub_return(1, v); } \
static inline bool pfx##_dec_and_test(t *v) { return pfx##_dec_return(v) == 0; } \
static inline bool pfx##_inc_and_test(t *v) { return pfx##_inc_return(v) == 0; } \
static inline vt pfx##_xchg(t *v, vt n)					\
{ return __atomic_exchange_n(&v->counter, n, __ATOMIC_SEQ_CST); }	\
static inline vt pfx##_cmpxchg(t *v, vt old, vt n)			\
{									\
	__atomic_compare_exchange_n(&v->counter, &old, n, false,	\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	return old;							\
}									\
static inline bool pfx##_try_cmpxchg(t *v, vt *old, vt n)		\
{									\
	return __atomic_compare_exchange_n(&v->counter, old, n, false,	\
					   __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
}

__ATOMIC_OPS(atomic, atomic_t, int)
__ATOMIC_OPS(atomic64, atomic64_t, long long)

#undef __ATOMIC_OPS

/* Generic exchange helpers on plain variables, fully ordered. */
#define xchg(p, v)	__atomic_exchange_n((p), (v), __ATOMIC_SEQ_CST)
#define cmpxchg(p, o, n)						\
({									\
	__typeof__(*(p)) __old = (o);					\
	__atomic_compare_exchange_n((p), &__old, (n), false,		\
				    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST); \
	__old;								\
})

#endif
