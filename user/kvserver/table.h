/*
 * The key-value server's table (table.c): 64-bit keys and values in an
 * RCU hash table.  kv_find() walks it as a reader: inside a read-side
 * section of either flavor, or under a lock that excludes the writers
 * (the benchmark's baselines: bench.c).  kv_put() and kv_del() are the
 * writers: their caller excludes the other writers, and each entry they
 * take out goes to retire(), which frees it when no reader can hold it
 * (call_rcu() of the flavor; a lock's holder: at once).
 */
#ifndef KVSERVER_TABLE_H
#define KVSERVER_TABLE_H

#include <stdbool.h>
#include "urcu/urcu-common.h"	/* struct rcu_head */
#include "urcu/rculist.h"

#define KV_MAX_KEYS	256
#define KV_BUCKETS	64

struct kv_entry {
	struct hlist_node node;		/* in its bucket: RCU readers, one writer at a time */
	struct rcu_head rcu;
	unsigned long key, value;
	unsigned long live;		/* Q_ENTRY_LIVE until freed (qserver.h) */
};

struct kv_table {
	struct hlist_head buckets[KV_BUCKETS];
	unsigned long nkeys;		/* the writers' */
	void (*retire)(struct kv_entry *e);
};

/* The entry for key, or NULL: a reader's walk (see above). */
static inline struct kv_entry *kv_find(struct kv_table *t, unsigned long key)
{
	struct kv_entry *e;

	hlist_for_each_entry_rcu(e, &t->buckets[key % KV_BUCKETS], node)
		if (e->key == key)
			return e;
	return NULL;
}

/* Sets key to value (a new entry replaces the old): 0, or -SYS_ENOSPC. */
long kv_put(struct kv_table *t, unsigned long key, unsigned long value);
/* 0, or -SYS_ENOENT. */
long kv_del(struct kv_table *t, unsigned long key);
/* Frees e at once: a retire() for a table no reader walks without the writers' lock. */
void kv_free_now(struct kv_entry *e);
/* Frees e after a grace period of QSBR (call_rcu()): the server's retire(). */
void kv_free_qsbr(struct kv_entry *e);

#endif
