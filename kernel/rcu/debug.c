/*
 * The checking build's misuse reports: "suspicious RCU usage" warnings
 * (rcu_dereference() outside a reader, and the like: RCU_LOCKDEP_WARN in
 * rcupdate.h), the panic on an unbalanced rcu_read_unlock(), and the
 * record of queued rcu_heads, so that call_rcu() on a head that is
 * already waiting (its callback has not run yet) panics with a clear
 * message instead of silently corrupting the callback lists.
 */
#include "kernel.h"
#include "rcu.h"

void (*rcu_publish_hook)(const void *where, const void *p);

void rcu_warn_suspicious(const char *file, int line, const char *what)
{
	printk("WARNING: suspicious RCU usage\n");
	printk("%s:%d %s!\n", file, line, what);
	printk("CPU: %d Task: %s rcu_read_lock nesting: %d\n", smp_processor_id(),
	       current->comm, current->rcu_read_lock_nesting);
	dump_stack();
	printk("---[ end trace ]---\n");
}

/*
 * Callbacks run one after another in rcuc/N, outside every lock but in a
 * context that must not block, as in Linux (there, softirq context).  The
 * checking build marks the task while a callback runs (invoke_callback()
 * in callbacks.c), and might_sleep_check() reports a callback that would sleep
 * instead of leaving it to delay or deadlock what queues behind it.
 */
void *rcu_debug_callback_enter(rcu_callback_t func)
{
	void *outer = current->rcu_callback;

	if (CONFIG_RCU_CHECKING)
		current->rcu_callback = (void *)func;
	return outer;
}

void rcu_debug_callback_exit(void *outer)
{
	if (CONFIG_RCU_CHECKING)
		current->rcu_callback = outer;
}

void rcu_callback_might_sleep(const char *what)
{
	uintptr_t off, size;
	const char *name = ksym_lookup((uintptr_t)current->rcu_callback, &off, &size);
	const char *why = "callbacks must not sleep: the callbacks queued behind it wait";

	const char *kind = srcu_gp_thread_is(current) ? "SRCU" : "RCU";

	if (srcu_gp_thread_is(current))
		why = "SRCU callbacks must not sleep: srcu_gp runs every domain's grace "
		      "periods and callbacks, and all of them would wait";
	else if (!strcmp(what, "rcu_barrier"))
		why = "rcu_barrier() waits for every queued callback, this one included: "
		      "it would wait for itself";
	else if (!strcmp(what, "run_on"))
		why = "it would move rcuc off the CPU whose callback lists it works on";
	panic("BUG: %s() called from %s callback %s (%p) in %s: %s", what, kind,
	      name ? name : "?", current->rcu_callback, current->comm, why);
}

void rcu_read_unlock_underflow(void)
{
	current->rcu_read_lock_nesting = 0;
	panic("BUG: rcu_read_unlock() without a matching rcu_read_lock() in task %s",
	      current->comm);
}

/*
 * The queued rcu_heads: an open-addressing hash set of addresses, with
 * backward-shift deletion.  A head that finds its shard half full is not
 * recorded (its own double queueing goes unseen; the boot says so once),
 * while every head recorded is still checked: one crowded shard does not
 * blind the check for the rest of the boot.  It is cut into shards, each with its own lock, by the
 * high bits of the hash: a head always lands in the same shard, so a
 * double call_rcu() is still seen, while the rcuc threads of many CPUs
 * rarely wait for each other (one lock for all of them, at 32 vCPUs on
 * two host cores, queued them behind descheduled holders for seconds).
 */

#define SLOTS		32768		/* power of two */
#define SHARDS		64		/* power of two, dividing SLOTS */
#define SHARD_SLOTS	(SLOTS / SHARDS)

static struct queued_shard {
	spinlock_t lock;
	long used;
	const void *slots[SHARD_SLOTS];
} shards[SHARDS] = { [0 ... SHARDS - 1] = { .lock = __SPIN_LOCK_UNLOCKED(queued_lock) } };
static bool crowded_said;		/* "a shard is half full" printed once */

static unsigned int slot_of(const void *p)
{
	uintptr_t x = (uintptr_t)p >> 3;

	x ^= x >> 17;
	x *= 0x9e3779b97f4a7c15ULL;
	return (x >> 40) & (SLOTS - 1);
}

static struct queued_shard *shard_of(const void *p)
{
	return &shards[slot_of(p) / SHARD_SLOTS];
}

/* The slot after i in its shard (probe chains wrap inside the shard). */
static unsigned int next_slot(unsigned int i)
{
	return (i + 1) & (SHARD_SLOTS - 1);
}

/* Records head as queued by `caller` (call_rcu, call_srcu); panics if it is already. */
void rcu_debug_queue(const struct rcu_head *head, const char *caller)
{
	struct queued_shard *sh = shard_of(head);
	unsigned long flags;
	unsigned int i;
	bool full;

	if (!CONFIG_RCU_CHECKING)
		return;
	spin_lock_irqsave(&sh->lock, flags);
	for (i = slot_of(head) % SHARD_SLOTS; sh->slots[i]; i = next_slot(i)) {
		if (sh->slots[i] == head) {
			spin_unlock_irqrestore(&sh->lock, flags);
			panic("BUG: %s() on rcu_head %p, which is already queued "
			      "(its callback %p has not run yet)", caller, (void *)head,
			      (void *)head->func);
		}
	}
	full = sh->used >= SHARD_SLOTS / 2;	/* keep probe chains short */
	if (!full) {
		sh->slots[i] = head;
		sh->used++;
	}
	spin_unlock_irqrestore(&sh->lock, flags);
	if (full && !READ_ONCE(crowded_said)) {	/* (two CPUs may both say it: harmless) */
		WRITE_ONCE(crowded_said, true);
		printk("rcu: more than %d callbacks in flight in one of %d shards: heads "
		       "queued there meanwhile are not checked for a double %s()\n",
		       SHARD_SLOTS / 2, SHARDS, caller);
	}
}

void rcu_debug_dequeue(const struct rcu_head *head)
{
	struct queued_shard *sh = shard_of(head);
	unsigned long flags;
	unsigned int i, j, k;

	if (!CONFIG_RCU_CHECKING)
		return;
	spin_lock_irqsave(&sh->lock, flags);
	/* (not found: it was queued while its shard was crowded) */
	for (i = slot_of(head) % SHARD_SLOTS; sh->slots[i] && sh->slots[i] != head; i = next_slot(i))
		;
	if (sh->slots[i] == head) {
		/* Backward shift: move later entries of the probe chain into the hole. */
		sh->slots[i] = NULL;
		sh->used--;
		for (j = next_slot(i); sh->slots[j]; j = next_slot(j)) {
			k = slot_of(sh->slots[j]) % SHARD_SLOTS;
			if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
				sh->slots[i] = sh->slots[j];
				sh->slots[j] = NULL;
				i = j;
			}
		}
	}
	spin_unlock_irqrestore(&sh->lock, flags);
}
