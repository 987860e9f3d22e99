# Quiescent: a classic-RCU teaching kernel.
#
#   make            build build/$(ARCH)/kernel.elf (and the GRUB ISO on x86-64)
#   make run        boot the demo in QEMU (-smp $(SMP)), serial console here
#   make test       build, boot, run every in-kernel test, print KTAP and
#                   "N passed, N failed"; non-zero exit on any failure or hang
#   make debug      QEMU waiting for gdb (see README.md)
#   make fuzz       fuzz the parsers of outside input on the host (docs/fuzz.md)
#   make trace      record a grace period and its readers (trace=rcu), draw
#                   $(BUILD)/trace/timeline.svg; non-zero exit on an RCU violation
#   make model      check the Promela models of tools/model/ with Spin
#                   (docs/model.md); non-zero exit on any unexpected verdict;
#                   FULL=1: the larger bounds
#   make torture    rcutorture for DURATION seconds at each CPU count in TORTURE_SMP
#   make bench      the benchmarks on the production kernel (docs/benchmarks.md)
#   make profile    every instruction of a null system call, an IPC round trip
#                   and a capability lookup, per function and per costly class
#                   (a QEMU plugin, one CPU, -icount; docs/benchmarks.md)
#   make lab        LAB=NAME: start a lab on branch lab/NAME (LAB=list lists
#                   them; docs/labs/README.md)
#   make grade      grade the lab of this branch (or LAB=NAME; PART=ID: one part):
#                   Score: N/M, and build/grade/results.json for autograders
#   make handout    LAB=NAME: the student repository of that lab, without its
#                   solution, in build/handout/NAME (docs/labs/INSTRUCTOR.md)
#   make slides     the RCU lecture (docs/lecture/) as HTML and PDF in build/slides
#   make web        boot as make run does, and watch it in a browser: the
#                   console, the RCU timeline live, each CPU (docs/web.md)
#   make clean      remove everything under $(BUILD) but newlib (its links
#                   to the cache, or its own build with NEWLIB_CACHE=0)
#   make newlib-cache  list newlib's cache (make newlib-prune: trim it to its
#                   cap; ALL=1: empty it)
#
# Variables: ARCH (x86_64), SMP (4), MEM (128M), ACCEL (tcg | tcg-single | kvm), TESTS (a
# glob on test names), CMDLINE (extra kernel command line), TIMEOUT (seconds;
# grows with SMP, and with its square: under TCG on two host cores each of N
# vCPUs runs about N times slower, and many tests do work on every CPU), CHECKING
# (1: the checking build, the default; 0: production, read side compiled away),
# PREEMPT (0: no preemption, the default; 1: the timer tick preempts tasks,
# for lab preempt, docs/labs/preempt.md; its own build folder, *-preempt),
# QEMU_CPU (QEMU's -cpu: x86-64 max, AArch64 cortex-a76 unless given; e.g.
# cortex-a72, an ARMv8.0 core without PAN),
# DTB (AArch64: a device tree file to boot with instead of QEMU virt's own;
# tools/test_dtb.py boots hostile ones), NEWLIB_CACHE (0: newlib built in
# build/, not taken from the cache outside the tree: README.md, "The first
# build"), CCACHE (the compiler launcher, ccache when installed; empty: none).

ARCH    ?= x86_64
SMP     ?= 4
MEM     ?= 128M
ACCEL   ?= tcg
TESTS   ?= *
CMDLINE ?=
# (Only for a plausible SMP: a wrong one is refused below, without a shell
# arithmetic error first.)
TIMEOUT ?= $(shell case '$(SMP)' in ([1-9]|[1-9][0-9]|[1-9][0-9][0-9]) \
	echo $$((90 + 30 * $(SMP) + $(SMP) * $(SMP)));; (*) echo 0;; esac)
# The most CPUs the kernel supports: the default is kernel/param.h's, defined there only.
NR_CPUS ?= $(shell sed -n 's/^\#define NR_CPUS[[:space:]]*\([0-9][0-9]*\).*/\1/p' kernel/param.h)
# 1: the checking build (read-side nesting tracked, misuse reported); 0: production
CHECKING ?= 1
# 1: make test also boots each expect-panic/warning test alone (at SMP=2);
# 0: they are listed as skipped (CI boots them in one run per build, not in every one)
ISOLATED ?= 1
# 1: the tick preempts a task at interrupt return (docs/labs/preempt.md)
PREEMPT ?= 0
# QEMU's CPU model (empty: tools/run.py's, x86-64 max, AArch64 cortex-a76)
QEMU_CPU ?=
# make run: the demo to play (a name, list, none) and its pace (enter, 0, milliseconds)
DEMO      ?=
DEMO_PACE ?=
# AArch64: boot with this device tree (QEMU -dtb; a dumped one is packed first)
DTB ?=
# 0: newlib built in build/ for this clone alone, not taken from the cache
# outside the tree (tools/newlib.sh: NEWLIB_CACHE_DIR, NEWLIB_CACHE_MAX_MB)
NEWLIB_CACHE ?= 1

# Variables a person may get wrong are checked first, before anything is
# built or booted, each refused with one line naming what is accepted.
ARCHES := x86_64 aarch64
ifneq ($(words $(ARCH)) $(filter $(ARCHES),$(ARCH)),1 $(ARCH))
$(error ARCH=$(ARCH): unknown architecture; use ARCH=x86_64 or ARCH=aarch64)
endif

$(foreach v,CHECKING ISOLATED PREEMPT NEWLIB_CACHE,$(if $(filter-out 0 1,$($(v)))$(filter-out 1,$(words $($(v)))),\
	$(error $(v)=$($(v)): use $(v)=1 or $(v)=0)))

include arch/$(ARCH)/arch.mk

BUILD   ?= build
B        := $(BUILD)/$(ARCH)$(if $(filter 0,$(CHECKING)),-prod)$(if $(filter 1,$(PREEMPT)),-preempt)
ELF      := $(B)/kernel.elf
ISO      := $(B)/quiescent.iso
NEWLIB   := build/newlib-$(ARCH)
LIBC     := $(NEWLIB)/$(NEWLIB_TARGET)/lib/libc.a
# ccache (tools/deps.sh installs it) makes a rebuild of what was compiled
# before, in this clone or another, a lookup: the labs' wrong solutions
# and make lab rebuild the kernel for each patch.  CCACHE= turns it off.
CCACHE   ?= $(if $(shell command -v ccache),ccache)
CC       := $(strip $(CCACHE) $(CROSS_COMPILE)gcc)
# The debug information names this folder "." (gdb runs here: make debug),
# so an object is the same whichever clone compiled it and ccache can
# give one clone's object to another.
DEBUG_PREFIX := -fdebug-prefix-map=$(CURDIR)=.
LD       := $(CROSS_COMPILE)ld
NM       := $(CROSS_COMPILE)nm
OBJDUMP  := $(CROSS_COMPILE)objdump
AR       := $(CROSS_COMPILE)ar

# Flags newlib is built with too (a change rebuilds it).  __DYNAMIC_REENT__:
# newlib asks __getreent() for the current reentrancy structure instead of
# using one global one (kernel/newlib_glue.c gives each CPU's contexts their own).
BASE_CFLAGS := -O2 -g -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
               -fno-omit-frame-pointer -fno-optimize-sibling-calls -D__DYNAMIC_REENT__ \
               $(ARCH_CFLAGS)
CFLAGS := $(BASE_CFLAGS) -std=gnu11 -Wall -Wextra -Werror -fno-strict-aliasing \
          -fno-common -nostdinc -isystem $(NEWLIB)/$(NEWLIB_TARGET)/include \
          -isystem $(shell $(CC) -print-file-name=include) \
          -Ikernel -Ilib -Iarch/$(ARCH) -Iarch/$(ARCH)/include \
          -DNR_CPUS=$(NR_CPUS) -DCONFIG_RCU_CHECKING=$(CHECKING) \
          -DCONFIG_PREEMPT=$(PREEMPT) -MMD -MP $(DEBUG_PREFIX)
ASFLAGS := $(ARCH_CFLAGS) -fno-pic -fno-pie -g -Ikernel -Iarch/$(ARCH) -MMD -MP $(DEBUG_PREFIX)
LDFLAGS := $(ARCH_LDFLAGS) -nostdlib -static -z max-page-size=4096 -z noexecstack \
           --no-warn-rwx-segments -T $(B)/linker.ld

# The sources, by group; one kernel image holds them all (the monitor's
# `test` and `torture` need the tests in it).  Any file dropped in one of
# these folders is built: there is no list to edit.
ARCH_SRCS   := $(wildcard boot/$(ARCH)/*.S arch/$(ARCH)/*.S arch/$(ARCH)/*.c)
KERNEL_SRCS := $(wildcard kernel/*.c kernel/rcu/*.c kernel/user/*.c kernel/object/*.c)
DEMO_SRCS   := $(wildcard kernel/demo/*.c)
TEST_SRCS   := $(sort $(wildcard tests/*.c tests/$(ARCH)/*.c tests/bench/*.c))
SRCS := $(ARCH_SRCS) $(KERNEL_SRCS) $(DEMO_SRCS) $(TEST_SRCS)
OBJS := $(patsubst %,$(B)/obj/%.o,$(SRCS))

RUN := python3 tools/run.py --arch $(ARCH) --kernel $(ELF) --smp $(SMP) --mem $(MEM) \
       $(if $(QEMU_CPU),--cpu $(QEMU_CPU)) \
       --accel $(ACCEL) --timeout $(TIMEOUT) --user-dir $(BUILD)/$(ARCH)/user \
       $(if $(DTB),--dtb '$(DTB)')

.PHONY: all run test debug trace torture bench profile clean deps newlib newlib-cache newlib-prune lab grade handout slides web FORCE
all: $(ELF) $(BOOT_IMAGE) user

deps:
	@bash tools/deps.sh

# newlib comes from a cache outside the tree, keyed by everything that
# decides its contents (tools/newlib.sh; README.md, "The first build").
# $(1).key says what that is; it is worked out again only when one of its
# inputs changed (the flags, the build script, the tarball, the compiler or
# assembler installed), and rewritten only when it differs.  $(1).ok is made
# when $(1) is a valid build for that key: a link to the cache's entry,
# built first if the cache has none, or with NEWLIB_CACHE=0 a folder of its
# own; it holds the cache settings it was made with, so that changing them
# makes it again.  A libc.a or libm.a changed since, or gone, has it
# checked again (and rebuilt if damaged).
NEWLIB_CACHE_DIR    ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/quiescent/newlib
NEWLIB_CACHE_MAX_MB ?= 1024
NEWLIB_TARBALL      ?= /usr/src/newlib/newlib-3.3.0.tar.xz
export NEWLIB_CACHE NEWLIB_CACHE_DIR NEWLIB_CACHE_MAX_MB NEWLIB_TARBALL
NEWLIB_LIBS = $(addprefix $(1)/$(NEWLIB_TARGET)/lib/,libc.a libm.a)
NEWLIB_MODE := $(NEWLIB_CACHE) $(NEWLIB_CACHE_DIR)
# The installed compiler and assembler, and the tarball, or FORCE before
# tools/deps.sh has installed them.
NEWLIB_INPUTS := $(or $(realpath $(shell command -v $(CROSS_COMPILE)gcc)),FORCE) \
                 $(or $(realpath $(shell command -v $(CROSS_COMPILE)as)),FORCE) \
                 $(or $(wildcard $(NEWLIB_TARBALL)),FORCE) tools/build-newlib.sh
define NEWLIB_RULES
$(1).flags: FORCE
	@mkdir -p $$(dir $$@)
	@echo '$(2)' | cmp -s - $$@ || echo '$(2)' > $$@
$(1).key: $(1).flags $(NEWLIB_INPUTS) | deps
	@bash tools/newlib.sh key $(ARCH) $(1) "$(CROSS_COMPILE)" -- $(2)
$(1).ok: $(1).key $(if $(word 2,$(wildcard $(call NEWLIB_LIBS,$(1)))),$(call NEWLIB_LIBS,$(1)),FORCE) \
         $(if $(filter-out $(NEWLIB_MODE),$(file <$(1).ok))$(filter-out $(file <$(1).ok),$(NEWLIB_MODE)),FORCE) | deps
	@bash tools/newlib.sh install $(ARCH) $(1) "$(CROSS_COMPILE)" -- $(2)
	@echo '$(NEWLIB_MODE)' > $$@
endef
$(eval $(call NEWLIB_RULES,$(NEWLIB),$(BASE_CFLAGS)))
newlib: $(NEWLIB).ok
newlib-cache:
	@bash tools/newlib.sh list
newlib-prune:
	@bash tools/newlib.sh prune $(if $(filter 1,$(ALL)),--all)

# Rebuild everything when the flags change (a CHECKING or NR_CPUS switch, a new -f...).
$(B)/flags: FORCE
	@mkdir -p $(B)
	@echo '$(CFLAGS) $(ASFLAGS)' | cmp -s - $@ || echo '$(CFLAGS) $(ASFLAGS)' > $@
# A new newlib (another key) rebuilds everything: its headers are -isystem,
# which -MMD does not track.
$(OBJS): $(B)/flags $(NEWLIB).key
FORCE:

$(B)/obj/%.c.o: %.c | $(NEWLIB).ok
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(B)/obj/%.S.o: %.S
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) $(ASFLAGS) -c $< -o $@

$(B)/linker.ld: linker.ld arch/$(ARCH)/arch.mk
	@mkdir -p $(B)
	@cpp -P -DKERNEL_BASE=$(KERNEL_BASE) -DOUTPUT_ARCH_NAME=$(LD_ARCH_NAME) $< -o $@

# Two links: the second embeds the first's symbol table (tools/ksyms.py).
LIBGCC = $(shell $(CC) $(ARCH_CFLAGS) -print-libgcc-file-name)
$(ELF): $(OBJS) $(B)/linker.ld $(NEWLIB).ok tools/ksyms.py
	@echo "  LD      $@"
	@python3 tools/ksyms.py --empty $(B)/ksyms0.S
	@$(CC) $(ASFLAGS) -c $(B)/ksyms0.S -o $(B)/ksyms0.o
	@$(LD) $(LDFLAGS) -o $(B)/kernel.pass1.elf $(OBJS) $(B)/ksyms0.o $(LIBC) $(LIBGCC)
	@python3 tools/ksyms.py $(NM) $(B)/kernel.pass1.elf $(B)/ksyms.S
	@$(CC) $(ASFLAGS) -c $(B)/ksyms.S -o $(B)/ksyms.o
	@$(LD) $(LDFLAGS) -Map=$(B)/kernel.map -o $@ $(OBJS) $(B)/ksyms.o $(LIBC) $(LIBGCC)

$(ISO): $(ELF) tools/mkiso.sh
	@echo "  ISO     $@"
	@bash tools/mkiso.sh $(ELF) $@

# AArch64: the arm64 Linux Image boot loaders start (tools/arm64_image.py).
$(B)/Image: $(ELF) tools/arm64_image.py
	@echo "  IMAGE   $@"
	@python3 tools/arm64_image.py image $(ELF) $@

# make run DEMO=name plays one demo (DEMO=list lists them); DEMO_PACE=enter|0|MS
# (default: wait for Enter when a terminal is attached, else never wait).
RUN_DEMO_WORDS := $(if $(DEMO),demo=$(DEMO)) $(if $(DEMO_PACE),demo.pace=$(DEMO_PACE))
run: deps all
	@$(RUN) --mode run $(USER_RUN_MODULES) --cmdline "$(strip $(RUN_DEMO_WORDS) $(CMDLINE))"

test: deps all
	@$(RUN) --mode test --log $(B)/test.log $(if $(filter 0,$(ISOLATED)),--no-isolated) \
	    $(USER_TEST_MODULES) \
	    --cmdline "ktest.filter=$(TESTS) $(CMDLINE)"

# make debug: QEMU halted (-s -S: gdb stub on :1234) until gdb attaches; it
# prints the gdb command, which loads tools/gdb/quiescent.py (docs/gdb.md).
# DEMO and DEMO_PACE work as for make run.
debug: deps all
	@$(RUN) --mode run --debug $(USER_RUN_MODULES) --cmdline "$(strip $(RUN_DEMO_WORDS) $(CMDLINE))"

# make web: boots as make run does (DEMO, DEMO_PACE, CMDLINE alike) with
# the trace streaming (trace.stream=1), and serves the console and the
# live RCU timeline on http://127.0.0.1:$(WEB_PORT)/ (the URL it prints
# holds the page's token); it ends with QEMU (tools/web.py, docs/web.md).
WEB_PORT ?= 8047
web: deps all
	@bash tools/deps.sh web
	@python3 tools/web.py --arch $(ARCH) --kernel $(ELF) --smp $(SMP) --mem $(MEM) \
	    $(if $(QEMU_CPU),--cpu $(QEMU_CPU)) --port $(WEB_PORT) --out $(BUILD)/web/$(ARCH) \
	    $(USER_RUN_MODULES) --cmdline "$(strip $(RUN_DEMO_WORDS) $(CMDLINE))"

# Everything under $(BUILD) (kernels of both arches, trace, bench, torture)
# but the prebuilt newlib, which takes long to build again (make newlib).
clean:
	rm -rf $(filter-out $(BUILD)/newlib-%,$(wildcard $(BUILD)/*))

-include $(OBJS:.o=.d)

# User programs: their runtime, newlib-user, one ELF each (user/user.mk).
include user/user.mk

# make trace: the trace scenario (tests/trace_scenario.c) with trace=rcu,
# drawn by tools/timeline.py into $(BUILD)/trace/timeline.svg (tools/trace.sh).
TRACE_DIR := $(BUILD)/trace
trace: deps all
	@bash tools/trace.sh $(TRACE_DIR) "$(CMDLINE)" $(RUN)

# make lab LAB=NAME: this clone becomes the lab's starting point, on a new
# branch lab/NAME (LAB=list lists the labs); make grade scores it, or the
# lab LAB=NAME on any branch (tools/labs/labs.py, docs/labs/README.md).
# PART=ID grades one part; GRADE_JSON=PATH writes the results for an
# autograder there (default build/grade/results.json); UNSEEN=DIR boots
# the instructor's unseen tests of DIR too (tools/labs/labs.py).
LAB ?=
PART ?=
GRADE_JSON ?=
UNSEEN ?=
lab:
	@python3 tools/labs/labs.py start $(if $(LAB),$(LAB),list)
grade:
	@python3 tools/labs/labs.py grade --arch $(ARCH) $(if $(LAB),--lab $(LAB)) \
	    $(if $(PART),--part $(PART)) $(if $(GRADE_JSON),--json $(GRADE_JSON)) \
	    $(if $(UNSEEN),--unseen $(UNSEEN)) $(GRADE_FLAGS)

# make handout LAB=NAME: the student repository of lab NAME (a git repository
# of one commit, the lab's functions as starters, no trace of their
# reference: tools/handout/handout.py checks) in HANDOUT_DIR.
HANDOUT_DIR ?= $(BUILD)/handout/$(LAB)
handout:
	@[ -f tools/handout/handout.py ] || { echo "make handout: this is a student repository;" \
	    "make handout runs in the course's repository"; exit 2; }
	@python3 tools/handout/handout.py build $(if $(LAB),$(LAB) --out $(HANDOUT_DIR),list)

# make slides: the RCU lecture (docs/lecture/slides.md) rendered by reveal.js
# (npm) in headless Chromium into $(BUILD)/slides (index.html, lecture.pdf),
# then checked page by page (tools/slides.py).
slides:
	@[ -f tools/slides.py ] || { echo "make slides: the lecture is not in a student repository"; exit 2; }
	@bash tools/deps.sh slides
	@python3 tools/slides.py --out $(BUILD)/slides

# make torture DURATION=600: rcutorture at each CPU count in TORTURE_SMP
# (not in CI), its histograms per CPU count (tools/torture.sh).
DURATION    ?= 60
TORTURE_SMP ?= 1 2 4 8 16
torture: deps all
	@bash tools/torture.sh $(B)/torture $(DURATION) "$(TORTURE_SMP)" "$(CMDLINE)" \
	    --arch $(ARCH) --kernel $(ELF) --mem $(MEM) --accel $(ACCEL)

# make bench: build the production kernel (CHECKING=0: rcu_read_lock() is
# nothing), boot it at each CPU count in BENCH_SMP and run the in-kernel
# benchmarks (tests/bench/, docs/benchmarks.md); tools/bench.py writes
# $(BENCH_DIR)/results.csv, results.md and PNG plots, checks with objdump
# that the read side costs zero instructions, and prints the table.
# PREEMPT=1 measures the preemptible build, whose read side is not free
# (the count is reported, not checked).
BENCH_SMP ?= 1 2 4
# BENCH_RUNS=R: the scaling run, R boots at each CPU count (docs/benchmarks.md)
BENCH_RUNS ?=
# ICOUNT=1: boot under QEMU's -icount shift=0 (repeatable figures, one vCPU
# at a time: nothing runs in parallel; docs/benchmarks.md).  Never in tests.
ICOUNT ?=
BENCH_DIR ?= $(BUILD)/bench$(if $(BENCH_RUNS),-scale)$(if $(filter 1,$(PREEMPT)),-preempt)
BENCH_ELF := $(BUILD)/$(ARCH)-prod$(if $(filter 1,$(PREEMPT)),-preempt)/kernel.elf
bench:
	@bash tools/deps.sh bench
	@$(MAKE) --no-print-directory CHECKING=0 all
	@python3 tools/bench.py run --arch $(ARCH) --kernel $(BENCH_ELF) --out $(BENCH_DIR) \
	    $(if $(filter 1,$(PREEMPT)),--preempt) \
	    --smp "$(BENCH_SMP)" --accel $(ACCEL) --mem $(MEM) --objdump $(OBJDUMP) --nm $(NM) \
	    $(if $(BENCH_RUNS),--runs $(BENCH_RUNS)) $(if $(filter 1,$(ICOUNT)),--icount 0) \
	    $(USER_BENCH_MODULES) --cmdline "$(CMDLINE)" --command "make bench ARCH=$(ARCH) BENCH_SMP=\"$(BENCH_SMP)\" ACCEL=$(ACCEL)$(if $(BENCH_RUNS), BENCH_RUNS=$(BENCH_RUNS))$(if $(filter 1,$(ICOUNT)), ICOUNT=1)"

# make profile: the production kernel at one CPU under -icount shift=0
# with QEMU's plugin tools/profile/insncount.c (built for the host), which
# counts every instruction between the marks around each benchmark
# program's loop (tests/bench/profile.c: a null system call, an IPC round
# trip between threads and between tasks, a capability lookup, PROFILE_ROUNDS
# rounds each); tools/profile.py symbolizes the counts with the kernel's
# and the programs' symbols, classes the costly instructions, prints the
# tables and one PROFILE line per operation, and writes $(PROFILE_DIR)/
# profile.md and profile.json.  CMDLINE adds kernel words (CMDLINE=
# 'ipc.fastpath=0': the general IPC path).  At one CPU only: x86-64 under -icount
# stops at two (docs/benchmarks.md).
PROFILE_ROUNDS ?= 1000
PROFILE_DIR ?= $(BUILD)/profile/$(ARCH)
PROFILE_PLUGIN := $(BUILD)/profile/insncount.so
HOSTCC ?= cc
$(PROFILE_PLUGIN): tools/profile/insncount.c tools/profile/qemu_plugin_v1.h lib/profile_mark.h
	@mkdir -p $(dir $@)
	@echo "  HOSTCC  $@"
	@$(HOSTCC) -O2 -g -Wall -Wextra -Werror -fPIC -shared -fvisibility=hidden -Ilib \
	    -o $@ $< -lpthread
profile:
	@bash tools/deps.sh
	@$(MAKE) --no-print-directory CHECKING=0 all $(PROFILE_PLUGIN)
	@python3 tools/profile.py run --arch $(ARCH) --kernel $(BENCH_ELF) --plugin $(PROFILE_PLUGIN) \
	    --user-dir $(BUILD)/$(ARCH)/user --out $(PROFILE_DIR) --rounds $(PROFILE_ROUNDS) \
	    --mem $(MEM) --objdump $(OBJDUMP) --cmdline '$(CMDLINE)' $(USER_BENCH_MODULES)

# make model: the models of tools/model/ checked exhaustively by Spin
# (docs/model.md): first the barrier tables' links to the code (every tag
# checked or explained), then the ARMv8 encoding on the litmus tests, the
# kernel's access sequences on ARMv8, and the grace-period models with their
# broken variants.  MODEL=name and VARIANT=name run a subset (and print every
# counterexample; TRAILS=1 does that for a whole run); FULL=1 checks the
# .pml models at their larger bounds.  Work files go to $(BUILD)/model.
.PHONY: model
model:
	@bash tools/deps.sh model
	@rc=0; python3 tools/model/check_links.py --strict || rc=1; \
	python3 tools/model/model.py --out $(BUILD)/model $(if $(MODEL),--only $(MODEL)) \
	    $(if $(VARIANT),--variant $(VARIANT)) $(if $(filter 1,$(FULL)),--full) \
	    $(if $(filter 1,$(TRAILS)),--trails) || rc=1; \
	if [ $$rc -ne 0 ]; then echo "model: FAILED"; fi; exit $$rc
# make fuzz FUZZ_SECONDS=60: every parser of outside input, built for the host
# with libFuzzer, ASan and UBSan, fuzzed for FUZZ_SECONDS each (docs/fuzz.md);
# then the system-call fuzzer (target syscalls) in user mode on both
# architectures, SYSFUZZ_CALLS calls each, from SYSFUZZ_SEED (0: random).
FUZZ_SECONDS ?= 60
SYSFUZZ_CALLS ?= 1000000
SYSFUZZ_SEED ?= 0
.PHONY: fuzz
fuzz:
	@bash tools/deps.sh fuzz
	@python3 tools/fuzz/fuzz.py run -t $(FUZZ_SECONDS) --calls $(SYSFUZZ_CALLS) \
	    --seed $(SYSFUZZ_SEED) $(FUZZ_TARGETS)
# The targets that boot QEMU: their CPU counts and memory size must make
# sense (checked here, once every variable has its value; still before
# anything is built).
ifneq ($(filter run test debug trace torture bench profile web,$(MAKECMDGOALS)),)
VARS_WRONG := $(shell sh tools/check-vars.sh $(QEMU_MACHINE) $(QEMU_MAX_SMP) $(MIN_MEM_MB) \
	'$(MEM)' 'SMP=$(SMP)' $(if $(filter torture,$(MAKECMDGOALS)),'TORTURE_SMP=$(TORTURE_SMP)') \
	$(if $(filter bench,$(MAKECMDGOALS)),'BENCH_SMP=$(BENCH_SMP)'))
ifneq ($(VARS_WRONG),)
$(error $(VARS_WRONG))
endif
endif
