"""Ordering that emulation cannot show, graded from the instructions.

QEMU's TCG runs an AArch64 guest nearly in order, so a missing barrier
passes every test.  The compiler's output still says what the code asks
of the CPU: these checks read the AArch64 instructions of the functions a
part names (one object file, compiled as the kernel's Makefile compiles
it) and look for the barrier or release the ordering needs.

Each check takes {function: [instruction text]} and returns None when
satisfied, else the lines that say what is missing and why it matters.
"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "lib"))
from bench_objdump import FUNC_RE, INSN_RE  # noqa: E402  objdump -d's lines, as make bench reads them
# Stores (not to the stack: the prologue saves registers there), and what orders them.
STORE_RE = re.compile(r"^(st[lx]?[rp]\w*|stp)\b")
STACK_RE = re.compile(r"\[sp\b")
RELEASE_RE = re.compile(r"^stl\w*\b")
FULL_DMB_RE = re.compile(r"^dmb\s+(ish|sy)\s*$")
STORE_DMB_RE = re.compile(r"^dmb\s+(ish|ishst|sy|st)\s*$")
BYTE_STORE_RE = re.compile(r"^st\w*rb\b")
# What a CPU may do after a store that a barrier must keep behind it: a load, a call, a return.
LATER_ACCESS_RE = re.compile(r"^(ld\w*|bl|blr|ret|b)\b")


class Missing(Exception):
    pass


def object_path(arch, source):
    """The object the default build makes from source (the Makefile's
    $(B)/obj/%.c.o, with CHECKING=1 and PREEMPT=0; a program's, under
    user/: user/user.mk's $(UB)/obj/%.c.o)."""
    if source.startswith("user/"):
        return f"build/{arch}/user/obj/{source}.o"
    return f"build/{arch}/obj/{source}.o"


def cross_prefix(arch):
    with open(os.path.join(ROOT, "arch", arch, "arch.mk")) as f:
        m = re.search(r"^CROSS_COMPILE\s*:?=\s*(\S*)", f.read(), re.M)
    return m.group(1) if m else ""


def parse(objdump_text):
    """{function: [instructions]}, each without address and encoding."""
    out, cur = {}, None
    for line in objdump_text.splitlines():
        m = FUNC_RE.match(line)
        if m:
            cur = out.setdefault(m.group(2), [])
            continue
        m = INSN_RE.match(line)
        if m and cur is not None:
            cur.append(" ".join(m.group(2).split("//")[0].split()))
    return out


def functions(obj, arch, names):
    text = subprocess.run([cross_prefix(arch) + "objdump", "-d", "--no-show-raw-insn", obj],
                          text=True, capture_output=True, check=True).stdout
    funcs = parse(text)
    missing = [n for n in names if n not in funcs]
    if missing:
        raise Missing(f"{os.path.relpath(obj, ROOT)} has no function " + ", ".join(missing) +
                      " (did a rename or an inline remove it?)")
    return {n: funcs[n] for n in names}


def stores(insns):
    return [i for i, x in enumerate(insns) if STORE_RE.match(x) and not STACK_RE.search(x)]


def publish_site_releases(funcs):
    """Each function initialises an element and publishes it: among its
    stores (the stack's aside) there must be a release (stlr: the
    publication) or a dmb that orders the last after the others.  With
    plain stores only, another CPU may see the pointer before the fields."""
    problems = []
    for name, insns in funcs.items():
        st = stores(insns)
        if len(st) < 2:
            problems.append(f"{name}(): expected the stores that initialise an element "
                            f"and the store that publishes it, found {len(st)}")
            continue
        first, last = st[0], st[-1]
        # A release anywhere from the first store on (list_add_rcu() publishes
        # new, then fixes next->prev with a plain store), or a dmb before the last.
        if not any(RELEASE_RE.match(x) or STORE_DMB_RE.match(x) for x in insns[first:last + 1]):
            problems.append(f"{name}(): its {len(st)} stores are all plain (the last: "
                            f"'{insns[last]}'): no release (stlr) publishes the element and "
                            "no dmb orders the publication after the initialisation")
    if problems:
        problems.append("on a weakly ordered CPU (AArch64) a reader may then see the pointer "
                        "before the fields: publish with rcu_assign_pointer(), a release "
                        "store (smp_store_release())")
    return problems or None


# A call that returns a new element: the allocator, or a helper that calls it.
ALLOC_CALL_RE = re.compile(r"^bl\s.*<(malloc|calloc|\w*(new|alloc)\w*)>")


def each_new_entry_released(funcs):
    """Each function allocates elements and publishes them: after each
    allocation call, before the function returns, a release (stlr: the
    publication) or a dmb that orders it after the stores that fill the
    element.  A path that publishes with a plain store passes every test
    under TCG."""
    problems = []
    for name, insns in funcs.items():
        calls = [i for i, x in enumerate(insns) if ALLOC_CALL_RE.match(x)]
        if not calls:
            problems.append(f"{name}(): no call to malloc() (or to a helper that makes the "
                            "new entry) found: the check looks for the release after it")
        for c in calls:
            end = next((i for i in range(c + 1, len(insns)) if insns[i].startswith("ret")
                        or ALLOC_CALL_RE.match(insns[i])), len(insns))
            if not any(RELEASE_RE.match(x) or STORE_DMB_RE.match(x) for x in insns[c:end]):
                plain = len(stores(insns[c:end]))
                problems.append(f"{name}(): after '{insns[c]}' its {plain} stores are all "
                                "plain: no release (stlr) publishes the new entry")
    if problems:
        problems.append("on a weakly ordered CPU (AArch64) a reader on another CPU may then "
                        "see the entry before its key and value: publish with "
                        "hlist_add_head_rcu(), hlist_replace_rcu() (rcu_assign_pointer(), "
                        "a release store)")
    return problems or None


def _full_barrier_between(insns, lo, hi):
    return any(FULL_DMB_RE.match(x) for x in insns[lo:hi])


def idle_barriers(funcs):
    """rcu_idle_enter(): a full barrier before the byte store that marks the
    CPU idle, and another after it, before any later load, call or
    return.  rcu_idle_exit(): a full barrier after the store that clears
    the flag.  The pairs are in docs/rcu.md's barrier table."""
    enter, leave = funcs["rcu_idle_enter"], funcs["rcu_idle_exit"]
    problems = []
    for name, insns, before in (("rcu_idle_enter", enter, True), ("rcu_idle_exit", leave, False)):
        st = [i for i, x in enumerate(insns) if BYTE_STORE_RE.match(x)]
        if not st:
            problems.append(f"{name}(): no byte store to the idle flag found")
            continue
        s = st[0]
        nxt = next((i for i in range(s + 1, len(insns)) if LATER_ACCESS_RE.match(insns[i])
                    and not STACK_RE.search(insns[i])), len(insns))
        if before and not _full_barrier_between(insns, 0, s):
            problems.append(f"{name}(): no full barrier (dmb ish) before '{insns[s]}' "
                            "[idle_enter_mb_before]: coming from an interrupt handler, "
                            "its loads of RCU-protected data could complete after another "
                            "CPU sees this CPU idle and frees what it read")
        if not _full_barrier_between(insns, s + 1, nxt):
            tag = "[idle_enter_mb_after]" if before else "[idle_exit_mb]"
            why = ("our flag may become visible after we read gp_seq, while "
                   "rcu_gp_start() publishes gp_seq and then reads the flags: each side "
                   "misses the other and a grace period waits for an idle CPU" if before else
                   "a reader after it could load a pointer before our flag is visible, "
                   "and a grace period that starts meanwhile would count this CPU idle")
            problems.append(f"{name}(): no full barrier (dmb ish) between '{insns[s]}' and "
                            f"the next load or call {tag}: {why}")
    return problems or None


def _calls(insns, name):
    """Indexes of the calls to name (objdump names an object file's external targets)."""
    return [i for i, x in enumerate(insns) if re.match(r"^bl\s", x) and f"<{name}>" in x]


def call_rcu_barrier(funcs):
    """call_rcu() holds a full barrier [call_rcu_mb]: the caller's removal
    comes before its read of gp_seq.  (Where it stands is not checked.)"""
    if any(FULL_DMB_RE.match(x) for x in funcs["call_rcu"]):
        return None
    return ["call_rcu(): no full barrier (dmb ish) [call_rcu_mb]: the caller's removal "
            "may become visible after call_rcu() reads gp_seq, so a grace period it takes "
            "for not yet started may already have looked at the CPUs, and a CPU that "
            "leaves idle after it began can still find the removed element"]


def expedited_barriers(funcs):
    """synchronize_rcu_expedited(): a full barrier after it fills the mask
    and before it reads the first idle flag (its first rcu_cpu_in_eqs()
    call) [exp_start_mb], and one after wait_for_completion() and before
    rcu_wait_end() [exp_wait_mb]."""
    insns = funcs["synchronize_rcu_expedited"]
    problems = []
    eqs, wait, end = (_calls(insns, n) for n in ("rcu_cpu_in_eqs", "wait_for_completion",
                                                   "rcu_wait_end"))
    if not eqs:
        problems.append("synchronize_rcu_expedited(): no call to rcu_cpu_in_eqs() found: "
                        "ask it which CPUs are idle (the check looks for the barrier before it)")
    elif not _full_barrier_between(insns, 0, eqs[0]):
        problems.append("synchronize_rcu_expedited(): no full barrier (dmb ish) before it "
                        "reads the idle flags [exp_start_mb]: a CPU that leaves idle may "
                        "start a reader that misses the caller's removal while we still "
                        "read it as idle and report it")
    if not wait:
        problems.append("synchronize_rcu_expedited(): no call to wait_for_completion() found")
    elif not _full_barrier_between(insns, wait[0] + 1, end[0] if end else len(insns)):
        problems.append("synchronize_rcu_expedited(): no full barrier (dmb ish) after "
                        "wait_for_completion() [exp_wait_mb]: the caller's kfree() could "
                        "come before the last CPU's report, and the readers it waited for")
    return problems or None
