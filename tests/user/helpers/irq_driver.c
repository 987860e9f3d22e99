/*
 * irq_driver: a device driver as small as can be, for tests/irq_driver.c,
 * which grants it an interrupt capability in slot 0 (the console UART's
 * receive line, let go by the kernel).
 *
 *   irq_driver once CPU   moves to CPU, binds the line to a notification,
 *                         waits for one interrupt, acknowledges it; exits
 *                         with 64 + the CPU it woke on
 *   irq_driver hold CPU   binds, then waits for ever (to be killed)
 *
 * A bind that fails exits with its error (16: -SYS_EBUSY, someone holds
 * the line).  The kernel test serves the UART itself (this program has
 * no access to its registers), so the driver only proves that the
 * interrupt reached it.
 */
#include <stdlib.h>
#include <string.h>
#include "qcap.h"

#define IRQ		0
#define IRQ_BIT		1

int main(int argc, char **argv)
{
	int ntf, cpu, ret;
	long bits;

	if (argc != 3)
		return 2;
	cpu = atoi(argv[2]);
	if (q_set_cpu(cpu) < 0)
		return 3;
	ntf = q_notification_create(SYS_CAP_ANY_SLOT);
	if (ntf < 0)
		return 4;
	ret = q_irq_bind(IRQ, ntf, IRQ_BIT);
	if (ret < 0)
		return -ret;
	if (!strcmp(argv[1], "hold")) {
		for (;;)
			q_wait(ntf);
	}
	bits = q_wait(ntf);
	if (bits != IRQ_BIT)
		return 5;
	cpu = q_cpu();
	if (q_irq_ack(IRQ) < 0)
		return 6;
	return 64 + cpu;
}
