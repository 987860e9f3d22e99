# AArch64 (QEMU virt, GICv3): what the top Makefile needs to know about this architecture.
#
# Linked at 0x40200000, booted as an arm64 Linux Image (build/aarch64/Image)
# whose text_offset puts it there (boot/aarch64/entry.S): QEMU's -kernel
# loader then passes the device tree in x0 and loads an -initrd (the boot
# modules).  (Booted as the ELF, QEMU leaves the device tree at the start
# of RAM, only for a kernel at or above RAM + 2 MiB, and no initrd.)
# No -mgeneral-regs-only: newlib's string routines and GCC's vectoriser use
# the SIMD registers, so the port saves them instead (arch/aarch64/vectors.S
# on every exception, arch_fpu_save() in arch/aarch64/task.c on every
# context switch).
# -mno-outline-atomics: GCC's default for the Linux triplet calls libgcc
# helpers that pick LSE or LL/SC through getauxval(); we want the
# ldaxr/stlxr loops inline.  -mstrict-align: no unaligned accesses from
# C (they fault on device memory and before the MMU is on).
CROSS_COMPILE  := aarch64-linux-gnu-
NEWLIB_TARGET  := aarch64-elf
KERNEL_BASE    := 0x40200000
LD_ARCH_NAME   := aarch64
ARCH_CFLAGS    := -march=armv8-a -mstrict-align -mno-outline-atomics
ARCH_LDFLAGS   := -m aarch64elf
BOOT_IMAGE      = $(B)/Image
GDB            := gdb-multiarch
# What tools/check-vars.sh accepts before booting: QEMU 7.2's `virt` takes at
# most 512 CPUs; the kernel boots with 11 MiB or more.  Measured with
# NR_CPUS=64, whose per-CPU arrays, 32 KiB of exception stacks each, make
# the image ~5.3 MiB: QEMU puts the initrd after it and its 1 MiB device
# tree at the next 2 MiB boundary after that, so make run's one program
# boots with 9 MiB (8: "Not enough space for DTB") and make test's initrd of
# every test program (~1.3 MiB) needs 11 (docs/user-aarch64.md).
QEMU_MACHINE   := virt
QEMU_MAX_SMP   := 512
MIN_MEM_MB     := 11
# User programs (user/user.mk): the default small code model reaches
# +-4 GiB PC-relative (adrp), so code runs at USER_PROGRAM_BASE as linked.
USER_ARCH_CFLAGS := -march=armv8-a -mno-outline-atomics
USER_ARCH_LDFLAGS :=
