/* The console UART's receive side, from user mode (quart.h). */
#include "qcap.h"
#include "quart.h"

#if defined(__x86_64__)
#define UART_LSR	5		/* line status: bit 0, data ready */

static unsigned short port;

static int inb(unsigned short p)
{
	unsigned char v;

	__asm__ __volatile__("inb %w1, %b0" : "=a"(v) : "Nd"(p));
	return v;
}

long q_uart_map(int dev)
{
	long r = q_dev_map(dev, NULL);

	if (r >= 0)
		port = r;
	return r < 0 ? r : 0;
}

int q_uart_getc(void)
{
	return inb(port + UART_LSR) & 1 ? inb(port) : -1;
}
#else
#define UART_FR		0x18		/* flags: bit 4, receive FIFO empty */
#define FR_RXFE		(1U << 4)

static volatile unsigned int *uart;

long q_uart_map(int dev)
{
	long r = q_dev_map(dev, NULL);

	if (r >= 0)
		uart = (volatile unsigned int *)r;
	return r < 0 ? r : 0;
}

int q_uart_getc(void)
{
	return uart[UART_FR / 4] & FR_RXFE ? -1 : (int)(uart[0] & 0xff);
}
#endif
