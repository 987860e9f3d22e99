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
 * in gp.c), and might_sleep_check() reports a callback that would sleep
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

	if (!strcmp(what, "rcu_barrier"))
		why = "rcu_barrier() waits for every queued callback, this one included: "
		      "it would wait for itself";
	else if (!strcmp(what, "run_on"))
		why = "it would move rcuc off the CPU whose callback lists it works on";
	panic("BUG: %s() called from RCU callback %s (%p) in %s: %s", what,
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
 * backward-shift deletion; if it ever fills up, the check is switched off
 * (and says so).
 */

#define SLOTS	32768		/* power of two */

static const void *slots[SLOTS];
static long used;
static bool disabled;
static DEFINE_SPINLOCK(queued_lock);

static unsigned int slot_of(const void *p)
{
	uintptr_t x = (uintptr_t)p >> 3;

	x ^= x >> 17;
	x *= 0x9e3779b97f4a7c15ULL;
	return (x >> 40) & (SLOTS - 1);
}

void rcu_debug_queue(const struct rcu_head *head)
{
	unsigned long flags;
	unsigned int i;

	if (!CONFIG_RCU_CHECKING || READ_ONCE(disabled))
		return;
	spin_lock_irqsave(&queued_lock, flags);
	if (used >= SLOTS / 2) {
		disabled = true;
		spin_unlock_irqrestore(&queued_lock, flags);
		printk("rcu: more than %d callbacks in flight: double call_rcu() detection off\n",
		       SLOTS / 2);
		return;
	}
	for (i = slot_of(head); slots[i]; i = (i + 1) & (SLOTS - 1)) {
		if (slots[i] == head) {
			spin_unlock_irqrestore(&queued_lock, flags);
			panic("BUG: call_rcu() on rcu_head %p, which is already queued "
			      "(its callback %p has not run yet)", (void *)head, (void *)head->func);
		}
	}
	slots[i] = head;
	used++;
	spin_unlock_irqrestore(&queued_lock, flags);
}

void rcu_debug_dequeue(const struct rcu_head *head)
{
	unsigned long flags;
	unsigned int i, j, k;

	if (!CONFIG_RCU_CHECKING || READ_ONCE(disabled))
		return;
	spin_lock_irqsave(&queued_lock, flags);
	for (i = slot_of(head); slots[i] && slots[i] != head; i = (i + 1) & (SLOTS - 1))
		;
	if (slots[i] == head) {
		/* Backward shift: move later entries of the probe chain into the hole. */
		slots[i] = NULL;
		used--;
		for (j = (i + 1) & (SLOTS - 1); slots[j]; j = (j + 1) & (SLOTS - 1)) {
			k = slot_of(slots[j]);
			if ((j > i && (k <= i || k > j)) || (j < i && k <= i && k > j)) {
				slots[i] = slots[j];
				slots[j] = NULL;
				i = j;
			}
		}
	}
	spin_unlock_irqrestore(&queued_lock, flags);
}
