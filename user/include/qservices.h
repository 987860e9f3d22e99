/*
 * The services' protocols (docs/microkernel.md, "Services in user space"):
 * the name server (user/nameserver.c) and the key-value server
 * (user/kvserver.c), and the client calls over them.  The root task
 * (user/root.c) starts both and hands each program a capability to the
 * name server; everything else is found by name.
 *
 * Every reply's w[0] is 0 or a negative error (-SYS_ENOENT, -SYS_EEXIST,
 * ...); the client calls below return it, or the kernel's error if the
 * call itself failed (-SYS_EPIPE: the server is gone).
 */
#ifndef QSERVICES_H
#define QSERVICES_H

#include "qcap.h"

/* Names: up to Q_NAME_MAX bytes, packed into a message's words 0..2. */
#define Q_NAME_MAX	23

/* The name server's labels. */
#define NS_REGISTER	1	/* name in w0..w2, the capability with it: -> 0, -EEXIST, -ENOSPC */
#define NS_LOOKUP	2	/* name in w0..w2: -> 0 and a copy of the capability, or -ENOENT */
#define NS_UNREGISTER	3	/* name: -> 0 (only the badge that registered it), -EPERM, -ENOENT */
#define NS_REPLACE	4	/* name and a capability: -> 0 (only the registrant), -EPERM, -ENOENT */

/* The key-value server's labels: 64-bit keys and values. */
#define KV_PUT		1	/* w1 key, w2 value: -> 0, or -ENOSPC */
#define KV_GET		2	/* w1 key: -> 0 and w1 = value, or -ENOENT */
#define KV_DEL		3	/* w1 key: -> 0, or -ENOENT */
#define KV_STATS	4	/* -> w1 = calls served, w2 = keys held */

/*
 * A call whose reply's w[0] is the answer: the answer, or the kernel's
 * error.  q_call_for_cap: a call whose reply brings a capability, with
 * our receive slot set for it for the call only: the slot it landed in,
 * or -error (-SYS_ENOSPC: our space is full; -SYS_EINVAL: the answer was
 * 0 but no capability came).
 */
long q_call_answer(int ep, struct q_msg *m);
long q_call_for_cap(int ep, struct q_msg *m);

/* Packs name into m's words 0..2; false if it is empty or too long. */
int q_name_pack(struct q_msg *m, const char *name);
/* Unpacks m's words 0..2 into out (Q_NAME_MAX + 1 bytes). */
void q_name_unpack(const struct q_msg *m, char *out);

/* Registers the capability in slot under name (the name server keeps a copy). */
long q_ns_register(int ns, const char *name, int slot);
/* A copy of the capability registered as name, in a new slot: the slot, or -error. */
long q_ns_lookup(int ns, const char *name);
/*
 * The same, for a name that may not be registered yet (its server was
 * just started): asks again, 1 ms apart and then up to 64 ms apart,
 * until the name is there or bound_ms have passed: -SYS_ETIMEDOUT then.
 * Any other error returns at once (-SYS_EPIPE: the name server is gone).
 * Q_NS_WAIT_MS is a bound generous enough for a loaded host.
 */
#define Q_NS_WAIT_MS	20000
long q_ns_lookup_wait(int ns, const char *name, unsigned long bound_ms);
long q_ns_unregister(int ns, const char *name);
/* Replaces the capability registered as name (by us) with the one in slot: a lookup sees one or the other. */
long q_ns_replace(int ns, const char *name, int slot);

long q_kv_put(int kv, unsigned long key, unsigned long value);
long q_kv_get(int kv, unsigned long key, unsigned long *value);
long q_kv_del(int kv, unsigned long key);

#endif
