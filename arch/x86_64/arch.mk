# x86-64: what the top Makefile needs to know about this architecture.
CROSS_COMPILE  :=
NEWLIB_TARGET  := x86_64-elf
KERNEL_BASE    := 0x100000
LD_ARCH_NAME   := i386:x86-64
ARCH_CFLAGS    := -m64 -mcmodel=kernel -mno-red-zone
ARCH_LDFLAGS   := -m elf_x86_64
BOOT_IMAGE      = $(ISO)
GDB            := gdb
# What tools/check-vars.sh accepts before booting: QEMU 7.2's `pc` takes at
# most 255 CPUs; the kernel boots with 10 MiB or more (measured with NR_CPUS=64,
# whose per-CPU arrays make the image ~4 MiB: at 8 MiB GRUB cannot load it).
QEMU_MACHINE   := pc
QEMU_MAX_SMP   := 255
MIN_MEM_MB     := 10
# User programs (user/user.mk): position-independent code (RIP-relative
# addressing), linked static, not PIE, at USER_PROGRAM_BASE (512 GiB + 4 MiB,
# lib/user_layout.h).  A 32-bit absolute relocation cannot reach there, so
# code built without -fpie fails to link ("relocation truncated to fit")
# instead of running wrong.  The red zone is the ABI's: interrupts from
# user mode switch to the kernel stack.
USER_ARCH_CFLAGS := -m64 -fpie
# -fpie takes a function's address through the GOT; ld would relax that
# load to an immediate, which 32 bits cannot hold above 4 GiB: keep the
# GOT (its entries are filled in at link time: no dynamic relocation).
USER_ARCH_LDFLAGS := --no-relax
