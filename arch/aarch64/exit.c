/*
 * Ending QEMU: semihosting SYS_EXIT (0x18) with x1 pointing at
 * {ADP_Stopped_ApplicationExit, status} makes QEMU exit with `status`
 * (the runner passes -semihosting-config enable=on,target=native).
 */
#include "aarch64.h"

#define SYS_EXIT			0x18
#define ADP_STOPPED_APPLICATION_EXIT	0x20026

void arch_qemu_exit(int status)
{
	static u64 block[2];
	register u64 x0 __asm__("x0") = SYS_EXIT;
	register u64 x1 __asm__("x1") = (uintptr_t)block;

	arch_irq_disable();
	block[0] = ADP_STOPPED_APPLICATION_EXIT;
	block[1] = status;
	__asm__ __volatile__("hlt #0xf000" : "+r"(x0) : "r"(x1) : "memory");
	/*
	 * Still here: semihosting is off.  The hlt then traps as an undefined
	 * instruction, and trap.c skips it so that we get here.
	 */
	static const char msg[] = "\r\nQuiescent: no semihosting exit; halting.\r\n";
	for (size_t i = 0; i < sizeof(msg) - 1; i++)
		arch_console_putc(msg[i]);
	for (;;)
		arch_cpu_halt();
}
