/*
 * Programs use the kernel's barrier instructions (arch/x86_64/include/asm/
 * barrier.h, freestanding): one copy of smp_mb() and its kin, for lib/'s
 * barrier.h and atomic.h in user mode as in the kernel.
 */
#include "../../../../arch/x86_64/include/asm/barrier.h"
