/*
 * Device interrupts: one struct irq_desc per line the arch names (x86-64
 * ISA IRQs on the I/O APIC, AArch64 GIC SPIs), who handles it, where it
 * is routed, how often it came.  kernel/arch.h has the controller's side
 * (route, mask, unmask, end of interrupt); this file has Linux's API on
 * top (request_irq(), free_irq(), irq_set_affinity(), disable_irq_nosync(),
 * enable_irq()) and the path every device interrupt takes,
 * handle_device_irq().
 *
 * The handler is published with rcu_assign_pointer() and called through
 * rcu_dereference_sched(): an interrupt handler is a region where no
 * context switch happens, a reader of every grace period.  So free_irq()
 * unpublishes it, waits with synchronize_rcu(), and then no CPU is still
 * inside it: its data may go.
 *
 * An interrupt that arrives with no handler is counted, and said once per
 * line (docs/drivers.md): the device wanted something and nobody was
 * there.  A level-triggered line is masked then (it would fire again at
 * once, for ever); an edge-triggered one stays open and counts on.
 */
#include <errno.h>
#include "kernel.h"
#include "irq.h"
#include "cpu.h"

#define IRQ_NAME_LEN	24

struct irqaction {
	irq_handler_t handler;
	void *data;
	char name[IRQ_NAME_LEN];
};

struct irq_desc {
	spinlock_t lock;		/* mask state; the handler path's too */
	struct irqaction *action;	/* RCU: NULL when nobody holds the line */
	char last_holder[IRQ_NAME_LEN];	/* for the unclaimed report ("": never held) */
	bool set_up;			/* arch_irq_setup() done */
	bool level;			/* level-triggered */
	int cpu;			/* where it is routed */
	int disable_depth;		/* masked while > 0 */
	bool unclaimed_masked;		/* masked by the unclaimed path */
	unsigned long count;		/* arrivals, in all */
	int last_cpu;			/* where the last one arrived */
	unsigned long unclaimed;	/* arrivals with no handler */
	bool unclaimed_said;
};

static struct irq_desc irq_descs[ARCH_NR_IRQS];
static DEFINE_MUTEX(irq_mutex);		/* request, free, routing */
static unsigned long stray_irqs;	/* lines the arch named beyond ARCH_NR_IRQS */

static struct irq_desc *desc_of(unsigned int irq)
{
	return irq < ARCH_NR_IRQS ? &irq_descs[irq] : NULL;
}

/* Masks or unmasks as the depth and the unclaimed state say; d->lock held. */
static void apply_mask(unsigned int irq, struct irq_desc *d)
{
	if (d->disable_depth || d->unclaimed_masked)
		arch_irq_mask(irq);
	else
		arch_irq_unmask(irq);
}

/* Sets the line up on first use; irq_mutex held. */
static int desc_setup(unsigned int irq, struct irq_desc *d)
{
	int ret;

	if (d->set_up)
		return 0;
	ret = arch_irq_setup(irq, &d->level);
	if (ret)
		return ret;
	spin_lock_init(&d->lock);
	d->cpu = 0;
	d->last_cpu = -1;
	d->set_up = true;
	return 0;
}

int request_irq(unsigned int irq, irq_handler_t handler, const char *name, void *data)
{
	struct irq_desc *d = desc_of(irq);
	struct irqaction *a;
	unsigned long flags;
	int ret;

	if (!d || !handler)
		return -EINVAL;
	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;
	*a = (struct irqaction){ .handler = handler, .data = data };
	strncpy(a->name, name ? name : "?", sizeof(a->name) - 1);
	mutex_lock(&irq_mutex);
	ret = desc_setup(irq, d);
	if (!ret && d->action)
		ret = -EBUSY;
	if (!ret) {
		spin_lock_irqsave(&d->lock, flags);
		rcu_assign_pointer(d->action, a);
		d->unclaimed_masked = false;
		d->unclaimed_said = false;	/* said again when nobody holds it next */
		apply_mask(irq, d);
		spin_unlock_irqrestore(&d->lock, flags);
	}
	mutex_unlock(&irq_mutex);
	if (ret)
		kfree(a);
	return ret;
}

void free_irq(unsigned int irq, void *data)
{
	struct irq_desc *d = desc_of(irq);
	struct irqaction *a;
	unsigned long flags;

	mutex_lock(&irq_mutex);
	a = d && d->set_up ? d->action : NULL;
	if (!a || a->data != data) {
		mutex_unlock(&irq_mutex);
		panic("BUG: free_irq(%u) by %s: not held with that data", irq, current->comm);
	}
	spin_lock_irqsave(&d->lock, flags);
	RCU_INIT_POINTER(d->action, NULL);	/* (NULL needs no ordering) */
	memcpy(d->last_holder, a->name, sizeof(d->last_holder));
	d->disable_depth = 0;	/* the holder's masking goes with it */
	apply_mask(irq, d);
	spin_unlock_irqrestore(&d->lock, flags);
	mutex_unlock(&irq_mutex);
	synchronize_rcu();	/* no CPU is still inside a->handler */
	kfree(a);
}

int irq_set_affinity(unsigned int irq, int cpu)
{
	struct irq_desc *d = desc_of(irq);
	int ret = 0;

	if (!d || cpu < 0 || cpu >= nr_cpu_ids)
		return -EINVAL;
	cpus_read_lock();	/* cpu stays online while we route to it */
	mutex_lock(&irq_mutex);
	if (!cpu_online(cpu))
		ret = -ENODEV;
	else
		ret = desc_setup(irq, d);
	if (!ret) {
		arch_irq_route(irq, cpu);
		WRITE_ONCE(d->cpu, cpu);
	}
	mutex_unlock(&irq_mutex);
	cpus_read_unlock();
	return ret;
}

void disable_irq_nosync(unsigned int irq)
{
	struct irq_desc *d = desc_of(irq);
	unsigned long flags;

	if (!d || !d->set_up)
		return;
	spin_lock_irqsave(&d->lock, flags);
	if (d->disable_depth++ == 0)
		apply_mask(irq, d);
	spin_unlock_irqrestore(&d->lock, flags);
}

void enable_irq(unsigned int irq)
{
	struct irq_desc *d = desc_of(irq);
	unsigned long flags;

	if (!d || !d->set_up)
		return;
	spin_lock_irqsave(&d->lock, flags);
	if (d->disable_depth == 0)
		printk("irq: enable_irq(%u) by %s without a disable_irq_nosync(): ignored\n",
		       irq, current->comm);
	else if (--d->disable_depth == 0)
		apply_mask(irq, d);
	spin_unlock_irqrestore(&d->lock, flags);
}

/* Nobody holds the line: count, say so once, mask it if it would fire again at once. */
static void unclaimed(unsigned int irq, struct irq_desc *d)
{
	char what[64];
	bool say;

	spin_lock(&d->lock);
	d->unclaimed++;
	say = !d->unclaimed_said;
	d->unclaimed_said = true;
	if (d->level) {
		d->unclaimed_masked = true;
		apply_mask(irq, d);
	}
	spin_unlock(&d->lock);
	if (!say)
		return;
	arch_irq_describe(irq, what, sizeof(what));
	printk("irq: %s arrived on CPU%d and nobody holds it (%s%s): %s; counted from now on, "
	       "said once (monitor: irqs)\n", what, smp_processor_id(),
	       d->last_holder[0] ? "its last holder was " : "never requested",
	       d->last_holder,
	       d->level ? "level-triggered, masked until someone requests it" :
			  "edge-triggered, left open");
}

void handle_device_irq(unsigned int irq)
{
	struct irq_desc *d = desc_of(irq);
	struct irqaction *a;

	irq_enter();
	if (!d || !d->set_up) {
		/* The controller named a line nobody set up: count it, say it once. */
		if (!stray_irqs++)
			printk("irq: CPU%d: interrupt on line %u, which was never set up: "
			       "counted (monitor: irqs)\n", smp_processor_id(), irq);
		if (d)
			arch_irq_mask(irq);
	} else {
		/* (statistics: a line moving between CPUs may lose a count) */
		WRITE_ONCE(d->count, d->count + 1);
		WRITE_ONCE(d->last_cpu, smp_processor_id());
		a = rcu_dereference_sched(d->action);
		if (a)
			a->handler(irq, a->data);
		else
			unclaimed(irq, d);
	}
	arch_irq_eoi(irq);
	irq_exit();
}

bool irq_get_stats(unsigned int irq, struct irq_stats *st)
{
	struct irq_desc *d = desc_of(irq);

	if (!d || !READ_ONCE(d->set_up))
		return false;
	*st = (struct irq_stats){
		.count = READ_ONCE(d->count), .unclaimed = READ_ONCE(d->unclaimed),
		.cpu = READ_ONCE(d->cpu), .last_cpu = READ_ONCE(d->last_cpu),
		.level = d->level, .held = rcu_access_pointer(d->action) != NULL,
		.masked = READ_ONCE(d->disable_depth) || READ_ONCE(d->unclaimed_masked),
	};
	return true;
}

unsigned long irq_stray_count(void)
{
	return READ_ONCE(stray_irqs);
}

/* The monitor's irqs: every line set up, who holds it, where it goes. */
void irq_show(void)
{
	int shown = 0;

	for (unsigned int irq = 0; irq < ARCH_NR_IRQS; irq++) {
		struct irq_desc *d = &irq_descs[irq];
		struct irq_stats st;
		struct irqaction *a;
		char what[64];

		if (!irq_get_stats(irq, &st))
			continue;
		arch_irq_describe(irq, what, sizeof(what));
		rcu_read_lock();
		a = rcu_dereference(d->action);
		printk("  %-36s %s, to CPU%d, %lu arrived (last on CPU%d), %lu unclaimed, %s%s\n",
		       what, st.level ? "level" : "edge", st.cpu, st.count, st.last_cpu,
		       st.unclaimed, st.masked ? "masked, " : "",
		       a ? a->name : "nobody holds it");
		rcu_read_unlock();
		shown++;
	}
	if (!shown)
		printk("  no device interrupt is set up\n");
	if (irq_stray_count())
		printk("  %lu interrupts on lines never set up\n", irq_stray_count());
}
