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
