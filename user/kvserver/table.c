/*
 * The key-value server's table (table.h): updates by copy -- a put makes
 * a new entry, complete before hlist_*_rcu() publishes it, and the entry
 * it replaces is retired, never written again.
 */
#include <stdlib.h>
#include "table.h"
#include "qserver.h"
#include "urcu-qsbr.h"

static struct kv_entry *new_entry(unsigned long key, unsigned long value)
{
	struct kv_entry *e = malloc(sizeof(*e));

	if (e) {
		e->key = key;
		e->value = value;
		e->live = Q_ENTRY_LIVE;
	}
	return e;
}

long kv_put(struct kv_table *t, unsigned long key, unsigned long value)
{
	struct kv_entry *old = kv_find(t, key), *e;

	if (!old && t->nkeys == KV_MAX_KEYS)
		return -SYS_ENOSPC;
	e = new_entry(key, value);
	if (!e)
		return -SYS_ENOSPC;
	if (old) {
		hlist_replace_rcu(&old->node, &e->node);	/* a reader sees the old or the new */
		t->retire(old);
	} else {
		hlist_add_head_rcu(&e->node, &t->buckets[key % KV_BUCKETS]);
		t->nkeys++;
	}
	return 0;
}

long kv_del(struct kv_table *t, unsigned long key)
{
	struct kv_entry *e = kv_find(t, key);

	if (!e)
		return -SYS_ENOENT;
	hlist_del_rcu(&e->node);
	t->nkeys--;
	t->retire(e);
	return 0;
}

void kv_free_now(struct kv_entry *e)
{
	q_entry_free(e, sizeof(*e), &e->live);
}

static void free_after_gp(struct rcu_head *head)
{
	kv_free_now(container_of(head, struct kv_entry, rcu));
}

void kv_free_qsbr(struct kv_entry *e)
{
	call_rcu(&e->rcu, free_after_gp);
}
