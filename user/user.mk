# User programs (docs/user.md): the runtime in user/lib and user/arch/$(ARCH),
# newlib built a second time for user mode (build/newlib-user-$(ARCH): no
# kernel code model, no -ffreestanding), and one ELF per program:
#
#   user/NAME.c              programs (user/hello: make run's boot module)
#   user/NAME/*.c            a program of several files, its main() in main.c
#   tests/user/NAME.c        user tests: make test runs each as user_NAME
#   tests/user/ARCH/NAME.c   the same, on one architecture only
#   tests/user/helpers/NAME.c  programs the kernel tests start
#
# Each links to $(UB)/PATH.elf, PATH its source without .c: that is also
# its name as a boot module (argv[0]), so the runner finds the ELF of a
# program the kernel names.  Included by the top Makefile.

UB            := $(BUILD)/$(ARCH)/user
USER_NEWLIB   := build/newlib-user-$(ARCH)
USER_LIBC     := $(USER_NEWLIB)/$(NEWLIB_TARGET)/lib/libc.a
USER_LIBM     := $(USER_NEWLIB)/$(NEWLIB_TARGET)/lib/libm.a
# Flags newlib-user is built with too (a change rebuilds it).  Frame
# pointers: the kernel's fault reports walk the user stack by them.
USER_BASE_CFLAGS := -O2 -g -fno-stack-protector -fno-omit-frame-pointer -D__DYNAMIC_REENT__ \
                    $(USER_ARCH_CFLAGS)
# -fstack-clash-protection: a frame larger than a page touches each page
# on its way down, so it meets the guard page below the stack (a "stack
# overflow" report) instead of jumping over it.
USER_CFLAGS := $(USER_BASE_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -fno-common \
               -fstack-clash-protection \
               -nostdinc -isystem $(USER_NEWLIB)/$(NEWLIB_TARGET)/include \
               -isystem $(shell $(CC) -print-file-name=include) -Iuser/include -Iuser/lib \
               -Iuser/arch/$(ARCH) -Ilib -MMD -MP
USER_ASFLAGS := $(USER_ARCH_CFLAGS) -g -Ilib -Iuser/include -MMD -MP
USER_LDFLAGS := $(ARCH_LDFLAGS) $(USER_ARCH_LDFLAGS) -nostdlib -static -z max-page-size=4096 \
                -z noexecstack -T $(UB)/user.ld
USER_LIBGCC   = $(shell $(CC) $(USER_ARCH_CFLAGS) -print-libgcc-file-name)

USER_RT_SRCS  := $(wildcard user/lib/*.c user/arch/$(ARCH)/*.S)
USER_RT_OBJS  := $(patsubst %,$(UB)/obj/%.o,$(USER_RT_SRCS))
USER_RT       := $(UB)/libquiescent.a
USER_PROG_SRCS := $(sort $(wildcard user/*.c tests/user/*.c tests/user/$(ARCH)/*.c \
                            tests/user/helpers/*.c))
# An architecture whose user runtime is not written yet builds no program
# (and so boots none): its user/arch folder has no crt0.S.
USER_PROG_DIRS := $(patsubst %/main.c,%,$(wildcard user/*/main.c))
ifeq ($(wildcard user/arch/$(ARCH)/crt0.S),)
USER_PROG_SRCS :=
USER_PROG_DIRS :=
endif
USER_PROG_NAMES := $(sort $(patsubst %.c,%,$(USER_PROG_SRCS)) $(USER_PROG_DIRS))
USER_PROGS    := $(patsubst %,$(UB)/%.elf,$(USER_PROG_NAMES))
# Every object of every program, one-file or not.
USER_PROG_OBJS := $(patsubst %.c,$(UB)/obj/%.c.o,$(USER_PROG_SRCS) $(wildcard $(USER_PROG_DIRS:%=%/*.c)))

.PHONY: user newlib-user
user: $(USER_PROGS)
newlib-user: $(USER_LIBC)

$(USER_NEWLIB).flags: FORCE
	@mkdir -p $(dir $@)
	@echo '$(USER_BASE_CFLAGS)' | cmp -s - $@ || echo '$(USER_BASE_CFLAGS)' > $@
$(USER_LIBC): $(USER_NEWLIB).flags | deps
	@bash tools/build-newlib.sh $(ARCH) $(USER_NEWLIB) "$(CROSS_COMPILE)" -- $(USER_BASE_CFLAGS)

$(UB)/flags: FORCE
	@mkdir -p $(UB)
	@echo '$(USER_CFLAGS) $(USER_ASFLAGS) $(USER_LDFLAGS)' | cmp -s - $@ || \
	    echo '$(USER_CFLAGS) $(USER_ASFLAGS) $(USER_LDFLAGS)' > $@

$(UB)/user.ld: user/user.ld lib/user_layout.h
	@mkdir -p $(UB)
	@cpp -P -Ilib -DOUTPUT_ARCH_NAME=$(LD_ARCH_NAME) $< -o $@

$(UB)/obj/%.c.o: %.c $(UB)/flags | $(USER_LIBC)
	@mkdir -p $(dir $@)
	@echo "  CC      $< (user)"
	@$(CC) $(USER_CFLAGS) -c $< -o $@

$(UB)/obj/%.S.o: %.S $(UB)/flags
	@mkdir -p $(dir $@)
	@echo "  AS      $< (user)"
	@$(CC) $(USER_ASFLAGS) -c $< -o $@

$(USER_RT): $(USER_RT_OBJS)
	@rm -f $@
	@$(AR) rcs $@ $^

define USER_LINK
	@mkdir -p $(dir $@)
	@echo "  LD      $@"
	@$(LD) $(USER_LDFLAGS) -o $@ $(filter %.c.o,$^) --start-group $(USER_RT) $(USER_LIBC) \
	    $(USER_LIBM) $(USER_LIBGCC) --end-group
endef

$(UB)/%.elf: $(UB)/obj/%.c.o $(USER_RT) $(UB)/user.ld $(USER_LIBC)
	$(USER_LINK)

# A program of several files: user/NAME/*.c make $(UB)/user/NAME.elf.
define USER_DIR_PROG
$(UB)/$(1).elf: $(patsubst %.c,$(UB)/obj/%.c.o,$(wildcard $(1)/*.c)) $(USER_RT) $(UB)/user.ld $(USER_LIBC)
	$$(USER_LINK)
endef
$(foreach d,$(USER_PROG_DIRS),$(eval $(call USER_DIR_PROG,$(d))))

# (the programs' objects are kept: make would delete them as intermediate)
.SECONDARY: $(USER_PROG_OBJS)

-include $(USER_RT_OBJS:.o=.d) $(USER_PROG_OBJS:.o=.d)

# What each boot carries (tools/run.py --module): make test, every user
# test and helper, the fuzzer and urcutorture (tests/user_sysfuzz.c,
# tests/urcutorture.c); make run, the programs in USER_RUN (their argv after
# the name, if any, as in USER_RUN='user/hello a b').
# (and the services that tests/user/services.c starts through the root task,
# and the console server tests/console_server.c starts)
USER_SERVICES := user/root user/nameserver user/kvserver user/kvclient
USER_TEST_NAMES := $(filter tests/% user/sysfuzz user/urcutorture user/console_server $(USER_SERVICES),$(USER_PROG_NAMES))
USER_RUN ?= $(if $(USER_PROG_SRCS),user/hello)
USER_TEST_MODULES := $(foreach p,$(USER_TEST_NAMES),--module '$(UB)/$(p).elf $(p)')
USER_BENCH_MODULES := $(foreach p,$(filter tests/user/helpers/nullcall tests/user/helpers/pingpong,$(USER_TEST_NAMES)),\
                        --module '$(UB)/$(p).elf $(p)')
# make run's first module is the root task (user/root.c): it runs USER_RUN,
# then the services, each a module of its own; and the console server,
# which the kernel starts itself with console.server=1.
USER_RUN_MODULES := $(if $(strip $(USER_RUN)),--module '$(UB)/user/root.elf user/root $(USER_RUN)' \
                      --module '$(UB)/$(firstword $(USER_RUN)).elf $(firstword $(USER_RUN))' \
                      $(foreach p,$(filter-out user/root,$(USER_SERVICES)),--module '$(UB)/$(p).elf $(p)') \
                      --module '$(UB)/user/console_server.elf user/console_server')
