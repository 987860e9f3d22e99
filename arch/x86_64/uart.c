/*
 * The 16550 UART on COM1: the serial console.  Output is polled; input
 * raises COM1's ISA interrupt, IRQ 4, once kernel/console_input.c turns
 * the receive interrupt on (IER), with OUT2 set in the modem control
 * register: on a PC that bit connects the UART's interrupt output to the
 * interrupt controller.
 */
#include "x86.h"

#define COM1		0x3f8
#define COM1_IRQ	4
#define UART_DATA	0
#define UART_IER	1
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define IER_RX_DATA	0x01	/* received data available */
#define MCR_DTR		0x01
#define MCR_RTS		0x02
#define MCR_OUT2	0x08
#define LSR_DATA_READY	0x01
#define LSR_THR_EMPTY	0x20

void uart_init(void)
{
	outb(COM1 + UART_IER, 0x00);		/* no interrupts until input wants them */
	outb(COM1 + UART_LCR, 0x80);		/* divisor latch access */
	outb(COM1 + UART_DATA, 0x01);		/* 115200 baud */
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x03);		/* 8 bits, no parity, 1 stop */
	outb(COM1 + UART_FCR, 0x07);		/* FIFOs on and cleared */
	outb(COM1 + UART_MCR, MCR_DTR | MCR_RTS | MCR_OUT2);
}

int arch_console_irq(void)
{
	return COM1_IRQ;
}

/* COM1's eight ports (a driver in user mode gets them, docs/drivers.md). */
void arch_console_regs(struct device_regs *r)
{
	*r = (struct device_regs){ .ports = true, .base = COM1, .size = 8 };
}

void arch_console_rx_irq(bool on)
{
	outb(COM1 + UART_IER, on ? IER_RX_DATA : 0);
}

void arch_console_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
		;
	outb(COM1 + UART_DATA, (u8)c);
}

int arch_console_getc(void)
{
	if (!(inb(COM1 + UART_LSR) & LSR_DATA_READY))
		return -1;
	return inb(COM1 + UART_DATA);
}
