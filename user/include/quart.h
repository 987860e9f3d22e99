/*
 * The console UART's receive side for a driver in user mode (user/lib/
 * uart.c; docs/drivers.md): its registers come from a device capability
 * the kernel granted (q_dev_map()), then characters are read the way the
 * kernel reads them (x86-64: COM1's ports; AArch64: the PL011's frame).
 */
#ifndef QUART_H
#define QUART_H

/* Gets the registers of the device in slot dev: 0, or a negative error. */
long q_uart_map(int dev);
/* The next character the UART holds, or -1. */
int q_uart_getc(void);

#endif
