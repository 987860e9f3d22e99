/*
 * Client calls of the services (user/include/qservices.h): each packs a
 * message, calls, and returns the server's answer or the kernel's error.
 */
#include <string.h>
#include "qservices.h"

int q_name_pack(struct q_msg *m, const char *name)
{
	size_t len = strlen(name);

	if (!len || len > Q_NAME_MAX)
		return 0;
	memset(m->w, 0, 3 * sizeof(m->w[0]));
	memcpy(m->w, name, len);
	return 1;
}

void q_name_unpack(const struct q_msg *m, char *out)
{
	memcpy(out, m->w, Q_NAME_MAX);
	out[Q_NAME_MAX] = 0;
}

long q_call_answer(int ep, struct q_msg *m)
{
	long r = q_call(ep, m);

	return r < 0 ? r : (long)m->w[0];
}

long q_call_for_cap(int ep, struct q_msg *m)
{
	long r;

	q_recv_slot(SYS_CAP_ANY_SLOT);	/* (a reply's capability lands only where we say) */
	r = q_call_answer(ep, m);
	q_recv_slot(SYS_RECV_SLOT_NONE);
	if (r < 0)
		return r;
	if (q_msg_cap_lost(m))
		return -SYS_ENOSPC;	/* our capability space is full */
	return q_msg_cap(m) >= 0 ? q_msg_cap(m) : -SYS_EINVAL;	/* "found", with nothing */
}

/* A name request; for_cap: its reply brings a capability (q_call_for_cap()). */
static long name_call(int ns, unsigned int label, const char *name, int give, int for_cap)
{
	struct q_msg m = q_msg(label, 0, 0, 0, 0);

	if (!q_name_pack(&m, name))
		return -SYS_EINVAL;
	if (give >= 0)
		q_msg_give_cap(&m, give);
	return for_cap ? q_call_for_cap(ns, &m) : q_call_answer(ns, &m);
}

long q_ns_register(int ns, const char *name, int slot)
{
	return name_call(ns, NS_REGISTER, name, slot, 0);
}

long q_ns_lookup(int ns, const char *name)
{
	return name_call(ns, NS_LOOKUP, name, -1, 1);
}

#define WAIT_FIRST_NS	1000000UL	/* the first pause between two lookups */
#define WAIT_MAX_NS	64000000UL	/* and the longest */

long q_ns_lookup_wait(int ns, const char *name, unsigned long bound_ms)
{
	uint64_t end = q_clock_ns() + (uint64_t)bound_ms * 1000000, now;
	unsigned long pause = WAIT_FIRST_NS;
	long r;

	/* (the name server answers at once, never holds a call: the waiting is ours) */
	while ((r = q_ns_lookup(ns, name)) == -SYS_ENOENT) {
		now = q_clock_ns();
		if (now >= end)
			return -SYS_ETIMEDOUT;
		q_sleep_ns(pause < end - now ? pause : end - now);
		pause = pause * 2 < WAIT_MAX_NS ? pause * 2 : WAIT_MAX_NS;
	}
	return r;
}

long q_ns_unregister(int ns, const char *name)
{
	return name_call(ns, NS_UNREGISTER, name, -1, 0);
}

long q_ns_replace(int ns, const char *name, int slot)
{
	return name_call(ns, NS_REPLACE, name, slot, 0);
}

long q_kv_put(int kv, unsigned long key, unsigned long value)
{
	struct q_msg m = q_msg(KV_PUT, 0, key, value, 0);

	return q_call_answer(kv, &m);
}

long q_kv_get(int kv, unsigned long key, unsigned long *value)
{
	struct q_msg m = q_msg(KV_GET, 0, key, 0, 0);
	long r = q_call_answer(kv, &m);

	if (r == 0)
		*value = m.w[1];
	return r;
}

long q_kv_del(int kv, unsigned long key)
{
	struct q_msg m = q_msg(KV_DEL, 0, key, 0, 0);

	return q_call_answer(kv, &m);
}
