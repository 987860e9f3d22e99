/*
 * Printing a CPU mask (cpumask.h has the rest, inline).
 */
#include "kernel.h"

int cpumask_format(char *buf, int len, const struct cpumask *m)
{
	int w = BITS_TO_LONGS(nr_cpumask_bits) - 1, n;

	while (w > 0 && !READ_ONCE(m->bits[w]))
		w--;
	/* "%#lx" prints 0 as "0", as printk("%#lx") of a one-word mask did. */
	n = snprintf(buf, len, "%#lx", READ_ONCE(m->bits[w]));
	while (--w >= 0 && n < len)
		n += snprintf(buf + n, len - n, ",%016lx", READ_ONCE(m->bits[w]));
	return n < len ? n : len - 1;
}
