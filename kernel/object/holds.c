/*
 * Who holds whom, recorded (holds.h): a hash of every stored pointer
 * between objects, by what it names, so that a free can ask whether
 * anything still names the object.  Checking build only; each bucket
 * has its own lock (IPC links and unlinks on every wait).
 */
#include "object/holds.h"
#include "object/cap.h"
#include "user/thread.h"

#define HOLDS_MAX	(CONFIG_RCU_CHECKING ? 2048 : 1)
#define HOLDS_BUCKETS	256
#define NONE		(-1)

struct hold {
	const void *holder, *target;
	const char *field;
	u8 hkind, tkind;
	int next;			/* in its bucket, or on the free list */
};

static struct hold pool[HOLDS_MAX];
static struct {
	spinlock_t lock;
	int first;
} buckets[HOLDS_BUCKETS];
static DEFINE_SPINLOCK(free_lock);
static int free_first = NONE, never_used;	/* the pool: a free list, then what was never handed out */
static atomic_long_t recorded, overflowed;

static unsigned int bucket_of(const void *target)
{
	uintptr_t p = (uintptr_t)target;

	return (unsigned int)((p >> 4) ^ (p >> 12) ^ (p >> 20)) % HOLDS_BUCKETS;
}

static int entry_get(void)
{
	unsigned long flags;
	int i = NONE;

	spin_lock_irqsave(&free_lock, flags);
	if (free_first != NONE) {
		i = free_first;
		free_first = pool[i].next;
	} else if (never_used < HOLDS_MAX) {
		i = never_used++;
	}
	spin_unlock_irqrestore(&free_lock, flags);
	return i;
}

static void entry_put(int i)
{
	unsigned long flags;

	spin_lock_irqsave(&free_lock, flags);
	pool[i].next = free_first;
	free_first = i;
	spin_unlock_irqrestore(&free_lock, flags);
}

static void name_of(enum hold_kind kind, const void *p, char *buf, size_t size)
{
	const struct kobject *obj = p;
	const struct user_task *t = p;
	const struct user_thread *ut = p;
	const struct cap *c = p;

	switch (kind) {
	case HOLD_OBJECT:
		snprintf(buf, size, "%s object %lu", kobject_type_name(obj->head.type), obj->id);
		break;
	case HOLD_TASK:
		snprintf(buf, size, "task %d (%s)", t->id, t->name);
		break;
	case HOLD_USER_THREAD:
		snprintf(buf, size, "user thread %d", ut->tid);
		break;
	case HOLD_MM:
		snprintf(buf, size, "address space %p", p);
		break;
	case HOLD_CAP:
		snprintf(buf, size, "a %s capability in slot %d", kobject_type_name(c->type),
			 c->slot);
		break;
	case HOLD_LINE:
		snprintf(buf, size, "line %lu's action", (unsigned long)(uintptr_t)p);
		break;
	case HOLD_KERNEL:
		snprintf(buf, size, "%s", (const char *)p);
		break;
	}
}

void __holds_link(enum hold_kind hk, const void *holder, const char *field, enum hold_kind tk,
		  const void *target)
{
	unsigned int b = bucket_of(target);
	unsigned long flags;
	int i = entry_get();

	if (i == NONE) {
		if (atomic_long_inc_return_relaxed(&overflowed) == 1)
			printk("holds: more than %d stored pointers at once: the rest are not "
			       "checked\n", HOLDS_MAX);
		return;
	}
	pool[i] = (struct hold){ .holder = holder, .target = target, .field = field,
				 .hkind = hk, .tkind = tk };
	spin_lock_irqsave(&buckets[b].lock, flags);
	pool[i].next = buckets[b].first;
	buckets[b].first = i;
	spin_unlock_irqrestore(&buckets[b].lock, flags);
	atomic_long_inc(&recorded);
}

void __holds_unlink(const void *holder, const char *field, const void *target)
{
	unsigned int b = bucket_of(target);
	unsigned long flags;
	int *link, i = NONE;

	spin_lock_irqsave(&buckets[b].lock, flags);
	for (link = &buckets[b].first; *link != NONE; link = &pool[*link].next) {
		struct hold *h = &pool[*link];

		if (h->target == target && h->holder == holder && !strcmp(h->field, field)) {
			i = *link;
			*link = h->next;
			break;
		}
	}
	spin_unlock_irqrestore(&buckets[b].lock, flags);
	if (i != NONE) {
		entry_put(i);
		atomic_long_dec(&recorded);
	} else if (!atomic_long_read(&overflowed)) {
		panic("BUG: %p->%s let go of %p, which it was never recorded to hold", holder,
		      field, target);
	}
}

void __holds_check_free(enum hold_kind tk, const void *target)
{
	unsigned int b = bucket_of(target);
	char what[64], who[64];
	struct hold found;
	unsigned long flags;
	bool named = false;

	spin_lock_irqsave(&buckets[b].lock, flags);
	for (int i = buckets[b].first; i != NONE; i = pool[i].next) {
		if (pool[i].target == target) {
			found = pool[i];
			named = true;
			break;
		}
	}
	spin_unlock_irqrestore(&buckets[b].lock, flags);
	if (!named)
		return;
	name_of(tk, target, what, sizeof(what));
	name_of(found.hkind, found.holder, who, sizeof(who));
	panic("BUG: freeing %s while %s's ->%s still names it (a stored pointer without its "
	      "reference)", what, who, found.field);
}

long holds_count(void)
{
	return atomic_long_read(&recorded);
}

void holds_init(void)
{
	for (int b = 0; b < HOLDS_BUCKETS; b++) {
		spin_lock_init(&buckets[b].lock);
		buckets[b].lock.name = "holds";
		buckets[b].first = NONE;
	}
}
