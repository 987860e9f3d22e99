# x86-64: what the top Makefile needs to know about this architecture.
CROSS_COMPILE  :=
NEWLIB_TARGET  := x86_64-elf
KERNEL_BASE    := 0x100000
LD_ARCH_NAME   := i386:x86-64
ARCH_CFLAGS    := -m64 -mcmodel=kernel -mno-red-zone
ARCH_LDFLAGS   := -m elf_x86_64
BOOT_IMAGE      = $(ISO)
GDB            := gdb
