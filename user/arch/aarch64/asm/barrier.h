/*
 * Programs use the kernel's barrier instructions (arch/aarch64/include/asm/
 * barrier.h, freestanding): one copy of smp_mb() and its kin, for lib/'s
 * barrier.h and atomic.h in user mode as in the kernel.
 */
#include "../../../../arch/aarch64/include/asm/barrier.h"
