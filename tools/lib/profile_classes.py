"""make profile: the classes of instructions that cost on hardware far more
than their count says, recognised in objdump's text of each instruction
(AT&T syntax on x86, GNU on AArch64).  docs/benchmarks.md, "make
profile", lists them with what each stands for; the order here is the
order of every table and summary line, and a name never changes (scripts
read them).

    classify("x86", "lock cmpxchg %rdx,(%rdi)")  -> "atomic_rmw"
    classify("aarch64", "dmb\tish")              -> "full_fence"
    classify("x86", "mov %rax,%rbx")             -> None
"""

import re

# (name, the short column title, what it counts)
CLASSES = (
    ("atomic_rmw", "atomic", "atomic read-modify-writes: x86 lock-prefixed and xchg with "
     "memory; AArch64 store-exclusives (each attempt) and LSE atomics"),
    ("full_fence", "fence", "full fences: mfence and the lock add $0 of the stack idiom; "
     "dmb ish/sy/osh/nsh, any dsb"),
    ("fp_save", "fp save", "FP/SIMD state saves: fxsave, xsave*; AArch64 a save of the "
     "whole register file (stp q0, q1 at offset 0 whose 15th next is stp q30, q31 at 480)"),
    ("fp_restore", "fp rstor", "FP/SIMD state restores: fxrstor, xrstor*; AArch64 the same "
     "sequence of ldp"),
    ("msr_write", "msr", "system-register writes: wrmsr; AArch64 msr to any register but "
     "DAIF and TTBRn (their own classes)"),
    ("swapgs", "swapgs", "swapgs (x86-64)"),
    ("priv_change", "priv", "privilege changes by instruction: syscall, sysret, iret, int; "
     "svc, eret, hvc, smc (interrupts taken are not instructions)"),
    ("irq_mask", "irq", "interrupt masking: cli, sti, popf; msr daifset/daifclr/daif"),
    ("pt_base_write", "cr3", "page-table base writes: mov to cr3; msr ttbr0_el1/ttbr1_el1"),
    ("clock_read", "clock", "clock reads: rdtsc, rdtscp; mrs cntvct_el0/cntpct_el0"),
    ("tlb_flush", "tlbi", "TLB invalidations: invlpg, invpcid; tlbi"),
)
CLASS_NAMES = tuple(c[0] for c in CLASSES)

# x86: "lock" then an add/or of $0 to the stack is a full fence, not an atomic.
X86_FENCE_IDIOM = re.compile(r"^lock\s+(add|or)[bwlq]?\s+\$0x0,.*\(%[re]sp\)$")
# The classes x86 tells by the mnemonic alone (the whole mnemonic matches).
X86_BY_MNEMONIC = tuple((re.compile(pattern), cls) for pattern, cls in (
    (r"mfence", "full_fence"),
    (r"(fxsave|xsave)(64|opt|opt64|c|c64|s|s64)?", "fp_save"),
    (r"(fxrstor|xrstor)(64|s|s64)?", "fp_restore"),
    (r"wrmsr", "msr_write"),
    (r"swapgs", "swapgs"),
    (r"syscall|sysret[lq]?|sysenter|sysexit[lq]?|iret[wlq]?|int3?|into", "priv_change"),
    (r"cli|sti|popf[wlq]?", "irq_mask"),
    (r"rdtscp?", "clock_read"),
    (r"invlpg|invpcid", "tlb_flush"),
))

A64_STORE_EXCLUSIVE = re.compile(r"^stl?x(r[bh]?|p)$")
A64_LSE = re.compile(r"^(casp?|ld(add|clr|eor|set|smax|smin|umax|umin)|swp|"
                     r"st(add|clr|eor|set|smax|smin|umax|umin))(a|al|l)?[bh]?$")
A64_FULL_DMB = re.compile(r"^(ish|sy|osh|nsh)$")
# A whole register file saved (restored): q0, q1 at the base, then 15 more
# pairs up to q30, q31 at 480.  A struct copy through q0, q1 is not one.
A64_FP_FIRST = re.compile(r"^q0, q1, \[(x\d+)(, #0)?\]$")
A64_FP_LAST = re.compile(r"^q30, q31, \[(x\d+), #480\]$")
A64_CLOCK = re.compile(r"^x\d+,\s*cnt[pv]ct(ss)?_el0$")


def x86_class(text):
    text = re.sub(r"\s+", " ", text.split("#")[0]).strip()
    mnem, _, ops = text.partition(" ")
    if mnem == "lock":
        return "full_fence" if X86_FENCE_IDIOM.match(text) else "atomic_rmw"
    if mnem.startswith("xchg") and any(o and o[0] not in "%$" for o in ops.split(",")):
        return "atomic_rmw"	# with a memory operand: locked without the prefix
    if mnem.startswith("mov") and ops.endswith(",%cr3"):
        return "pt_base_write"
    for pattern, cls in X86_BY_MNEMONIC:
        if pattern.fullmatch(mnem):
            return cls
    return None


def a64_split(text):
    text = re.sub(r"\s+", " ", text.split("//")[0]).strip()
    mnem, _, ops = text.partition(" ")
    return mnem, ops.strip()


def a64_file_transfer(mnem, ops, after):
    """Is this stp/ldp of q0, q1 the first of a whole register file's 16?"""
    first = A64_FP_FIRST.match(ops)
    last = after and after(15)
    if not first or not last:
        return False
    last_mnem, last_ops = a64_split(last)
    m = A64_FP_LAST.match(last_ops)
    return last_mnem == mnem and m is not None and m.group(1) == first.group(1)


def a64_class(text, after=None):
    mnem, ops = a64_split(text)
    if A64_STORE_EXCLUSIVE.match(mnem) or A64_LSE.match(mnem):
        return "atomic_rmw"
    if (mnem == "dmb" and A64_FULL_DMB.match(ops)) or mnem == "dsb":
        return "full_fence"
    if mnem in ("stp", "ldp") and a64_file_transfer(mnem, ops, after):
        return "fp_save" if mnem == "stp" else "fp_restore"
    if mnem in ("svc", "eret", "hvc", "smc", "eretaa", "eretab"):
        return "priv_change"
    if mnem == "msr":
        reg = ops.split(",")[0].strip().lower()
        if reg in ("daifset", "daifclr", "daif"):
            return "irq_mask"
        if reg in ("ttbr0_el1", "ttbr1_el1"):
            return "pt_base_write"
        return "msr_write"
    if mnem == "mrs" and A64_CLOCK.match(ops.lower()):
        return "clock_read"
    if mnem == "tlbi":
        return "tlb_flush"
    return None


def classify(arch, text, after=None):
    """The class of one instruction (objdump's text), or None.  after(k):
    the text of the k-th instruction after it in memory, or None (AArch64
    tells a register-file save by its sequence)."""
    return x86_class(text) if arch == "x86" else a64_class(text, after)
