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
# Flags newlib-user is built with too (part of its cache key: a change rebuilds it).  Frame
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
               -Iuser/arch/$(ARCH) -Ilib -MMD -MP $(DEBUG_PREFIX)
USER_ASFLAGS := $(USER_ARCH_CFLAGS) -g -Ilib -Iuser/include -MMD -MP $(DEBUG_PREFIX)
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
# A lab's own tests (docs/labs/README.md, "For lab authors"), booted by
# make grade only, which passes the lab definition's MAKE_VARS:
# LAB_TESTS=DIR builds each DIR/NAME.c as the user test tests/user/NAME
# (user_NAME), with DIR on its include path, and LAB_PROGRAMS=user/NAME...
# puts those programs on make test's boot; make grade's unseen tests
# (docs/labs/INSTRUCTOR.md, "Clients the students never saw") come the
# same way from LAB_UNSEEN=DIR.  All empty for make test itself.
LAB_TESTS    ?=
LAB_PROGRAMS ?=
LAB_UNSEEN   ?=
LAB_TEST_SRCS  := $(sort $(foreach d,$(LAB_TESTS) $(LAB_UNSEEN),$(wildcard $(d)/*.c)))
LAB_TEST_NAMES := $(patsubst %.c,tests/user/%,$(notdir $(LAB_TEST_SRCS)))
$(foreach d,$(LAB_TESTS) $(LAB_UNSEEN),$(if $(wildcard $(d)/*.c),,\
	$(error LAB_TESTS, LAB_UNSEEN: $(d) holds no .c file (a lab's tests))))
ifneq ($(filter $(LAB_TEST_NAMES),$(USER_PROG_NAMES)),)
$(error $(filter $(LAB_TEST_NAMES),$(USER_PROG_NAMES)): a lab's test is named as a test of tests/user/: name it otherwise)
endif
ifneq ($(words $(LAB_TEST_NAMES)),$(words $(sort $(LAB_TEST_NAMES))))
$(error LAB_TESTS, LAB_UNSEEN: two lab tests of one name: $(LAB_TEST_NAMES))
endif
USER_PROG_NAMES += $(LAB_TEST_NAMES)
USER_PROGS    := $(patsubst %,$(UB)/%.elf,$(USER_PROG_NAMES))
# Every object of every program, one-file or not.
USER_PROG_OBJS := $(patsubst %.c,$(UB)/obj/%.c.o,$(USER_PROG_SRCS) $(wildcard $(USER_PROG_DIRS:%=%/*.c)))

.PHONY: user newlib-user
user: $(USER_PROGS)
newlib-user: $(USER_NEWLIB).ok

# From the cache as the kernel's newlib is (the top Makefile's NEWLIB_RULES).
$(eval $(call NEWLIB_RULES,$(USER_NEWLIB),$(USER_BASE_CFLAGS)))

$(UB)/flags: FORCE
	@mkdir -p $(UB)
	@echo '$(USER_CFLAGS) $(USER_ASFLAGS) $(USER_LDFLAGS)' | cmp -s - $@ || \
	    echo '$(USER_CFLAGS) $(USER_ASFLAGS) $(USER_LDFLAGS)' > $@

$(UB)/user.ld: user/user.ld lib/user_layout.h
	@mkdir -p $(UB)
	@cpp -P -Ilib -DOUTPUT_ARCH_NAME=$(LD_ARCH_NAME) $< -o $@

$(UB)/obj/%.c.o: %.c $(UB)/flags $(USER_NEWLIB).key | $(USER_NEWLIB).ok
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

$(UB)/%.elf: $(UB)/obj/%.c.o $(USER_RT) $(UB)/user.ld $(USER_NEWLIB).ok
	$(USER_LINK)

# A program of several files: user/NAME/*.c make $(UB)/user/NAME.elf.
define USER_DIR_PROG
$(UB)/$(1).elf: $(patsubst %.c,$(UB)/obj/%.c.o,$(wildcard $(1)/*.c)) $(USER_RT) $(UB)/user.ld $(USER_NEWLIB).ok
	$$(USER_LINK)
endef
$(foreach d,$(USER_PROG_DIRS),$(eval $(call USER_DIR_PROG,$(d))))

# A lab's test: DIR/NAME.c makes $(UB)/tests/user/NAME.elf.
define USER_LAB_TEST
$(UB)/obj/lab/$(notdir $(1)).o: $(1) $(UB)/flags | $(USER_LIBC)
	@mkdir -p $$(dir $$@)
	@echo "  CC      $(1) (user, a lab's test)"
	@$$(CC) $$(USER_CFLAGS) -I$(dir $(1)) $(addprefix -I,$(LAB_TESTS)) -c $$< -o $$@
$(UB)/tests/user/$(basename $(notdir $(1))).elf: $(UB)/obj/lab/$(notdir $(1)).o $(USER_RT) $(UB)/user.ld $(USER_LIBC)
	$$(USER_LINK)
endef
$(foreach f,$(LAB_TEST_SRCS),$(eval $(call USER_LAB_TEST,$(f))))

# (the programs' objects are kept: make would delete them as intermediate)
.SECONDARY: $(USER_PROG_OBJS)

-include $(USER_RT_OBJS:.o=.d) $(USER_PROG_OBJS:.o=.d)

# What each boot carries (tools/run.py --module): make test, every user
# test and helper, the fuzzer and urcutorture (tests/user_sysfuzz.c,
# tests/urcutorture.c); make run, the programs in USER_RUN (their argv after
# the name, if any, as in USER_RUN='user/hello a b').  A program of user/
# is built but boots only when listed here (docs/user.md, "Programs"):
# USER_SERVICES go on both boots -- the root task, the services and the
# clients it starts -- and so do user/sysfuzz, the console server
# (tests/console_server.c starts one) and make grade's LAB_PROGRAMS on
# make test's.  A task that starts a program missing from its boot is
# told so by the runtime (user/lib/spawn.c).
USER_SERVICES := user/root user/nameserver user/kvserver user/kvclient
USER_TEST_NAMES := $(filter tests/% user/sysfuzz user/urcutorture user/console_server $(USER_SERVICES) \
                            $(LAB_PROGRAMS),$(USER_PROG_NAMES))
USER_RUN ?= $(if $(USER_PROG_SRCS),user/hello)
USER_TEST_MODULES := $(foreach p,$(USER_TEST_NAMES),--module '$(UB)/$(p).elf $(p)')
# make bench's and make profile's programs (tests/bench/)
USER_BENCH_NAMES := tests/user/helpers/nullcall tests/user/helpers/pingpong user/kvserver \
                    tests/user/helpers/capcall
USER_BENCH_MODULES := $(foreach p,$(filter $(USER_BENCH_NAMES),$(USER_TEST_NAMES)),\
                        --module '$(UB)/$(p).elf $(p)')
# make run's first module is the root task (user/root.c): it runs USER_RUN,
# then the services, each a module of its own, and leaves two of them up
# for the monitor (--serve); and the console server, which the kernel
# starts itself with console.server=1.
USER_RUN_MODULES := $(if $(strip $(USER_RUN)),--module '$(UB)/user/root.elf user/root --serve $(USER_RUN)' \
                      --module '$(UB)/$(firstword $(USER_RUN)).elf $(firstword $(USER_RUN))' \
                      $(foreach p,$(filter-out user/root,$(USER_SERVICES)),--module '$(UB)/$(p).elf $(p)') \
                      --module '$(UB)/user/console_server.elf user/console_server')
