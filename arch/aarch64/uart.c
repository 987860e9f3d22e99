/*
 * The PL011 UART: the serial console.  QEMU's needs no baud rate set-up;
 * we only make sure it is enabled with FIFOs.  Output is polled; input
 * raises the UART's SPI (the device tree's interrupts property, fdt.c)
 * once kernel/console_input.c turns the receive interrupts on.  Its
 * address comes from the device tree (0x09000000 on virt until then).
 */
#include "aarch64.h"

#define UART_DR		0x00
#define UART_FR		0x18
#define UART_LCR_H	0x2c
#define UART_CR		0x30
#define UART_IMSC	0x38
#define IMSC_RXIM	(1U << 4)	/* receive: the FIFO reached its trigger level */
#define IMSC_RTIM	(1U << 6)	/* receive timeout: fewer characters wait, a while */
#define FR_RXFE		(1U << 4)	/* receive FIFO empty */
#define FR_TXFF		(1U << 5)	/* transmit FIFO full */
#define LCR_H_FEN	(1U << 4)
#define LCR_H_WLEN8	(3U << 5)
#define CR_UARTEN	(1U << 0)
#define CR_TXE		(1U << 8)
#define CR_RXE		(1U << 9)

static uintptr_t uart = 0x09000000;

void uart_init(uintptr_t base)
{
	uart = base;
	mmio_write32(uart + UART_CR, 0);		/* off while we change the format */
	mmio_write32(uart + UART_IMSC, 0);		/* no interrupts until input wants them */
	mmio_write32(uart + UART_LCR_H, LCR_H_FEN | LCR_H_WLEN8);
	mmio_write32(uart + UART_CR, CR_UARTEN | CR_TXE | CR_RXE);
}

void arch_console_putc(char c)
{
	while (mmio_read32(uart + UART_FR) & FR_TXFF)
		;
	mmio_write32(uart + UART_DR, (u8)c);
}

int arch_console_getc(void)
{
	if (mmio_read32(uart + UART_FR) & FR_RXFE)
		return -1;
	return mmio_read32(uart + UART_DR) & 0xff;
}

int arch_console_irq(void)
{
	return dt.uart_intid ? (int)dt.uart_intid : -1;
}

/* The PL011's 4 KiB frame (a driver in user mode gets it, docs/drivers.md). */
void arch_console_regs(struct device_regs *r)
{
	*r = (struct device_regs){ .ports = false, .base = uart, .size = UART_SIZE };
}

void arch_console_rx_irq(bool on)
{
	mmio_write32(uart + UART_IMSC, on ? IMSC_RXIM | IMSC_RTIM : 0);
}
