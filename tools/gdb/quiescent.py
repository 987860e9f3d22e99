# gdb commands for the Quiescent kernel: CPUs, run queues, tasks and RCU.
#
#   gdb build/x86_64/kernel.elf -x tools/gdb/quiescent.py -ex 'target remote :1234'
#   gdb-multiarch build/aarch64/kernel.elf -x tools/gdb/quiescent.py -ex 'target remote :1234'
#
# Commands (docs/gdb.md has a session):
#   qcpus        each online CPU: current task, idle or busy, switches, gdb thread
#   qrunq        each CPU's run queue: current task, then the queued ones in order
#   qps          qrunq, then every task on the all-tasks list
#   qrcu         grace-period number, CPUs owing a quiescent state, callbacks,
#                synchronize_rcu() tours, stall timeout
#   qtask PID    one task (a pid or a name): state, saved stack pointer, backtrace
#
# Everything is read from the kernel's own variables (cpus[], __cpu_online_mask,
# runqueues[], all_tasks, rcu_state, rcu_data[]), so the commands work on
# both architectures; only qtask's backtrace of a switched-out task needs to
# know where arch_switch_to() left the frame pointer and return address.
#
# The commands only read memory: they never write the guest, never resume
# it and never leave a different thread selected.

import gdb

MAX_LIST = 4096         # a corrupt list must not hang gdb
MAX_FRAMES = 32


# --- reading the kernel's variables ----------------------------------------

def var(name):
    """The kernel variable `name`, global or file-static (runqueues, all_tasks...)."""
    sym = gdb.lookup_global_symbol(name)
    if sym is None:
        sym = gdb.lookup_static_symbol(name)
    if sym is None:
        raise gdb.GdbError(f"no symbol '{name}': load the kernel's symbols "
                           "(gdb build/<arch>/kernel.elf ...)")
    return sym.value()


def struct(name):
    return gdb.lookup_type("struct " + name)


def field_offset(type_, member):
    for f in type_.strip_typedefs().fields():
        if f.name == member:
            return f.bitpos // 8
    raise gdb.GdbError(f"{type_} has no member {member}")


def container_of(ptr, type_name, member):
    """Linux's container_of: the struct T holding `member` at ptr."""
    t = struct(type_name)
    addr = int(ptr) - field_offset(t, member)
    return gdb.Value(addr).cast(t.pointer())


def list_nodes(head_addr):
    """Addresses of the nodes of a circular struct list_head, in order."""
    lh = struct("list_head").pointer()
    head = gdb.Value(head_addr).cast(lh)
    node = head["next"]
    n = 0
    while int(node) != int(head_addr):
        if int(node) == 0:
            raise gdb.GdbError(f"list at {int(head_addr):#x} has a NULL next pointer")
        if n == MAX_LIST:
            raise gdb.GdbError(f"list at {int(head_addr):#x}: more than {MAX_LIST} nodes "
                               "(corrupt?)")
        yield int(node)
        node = node["next"]
        n += 1


def list_entries(head_addr, type_name, member):
    for node in list_nodes(head_addr):
        yield container_of(node, type_name, member)


def comm(t):
    arr = t["comm"]
    n = arr.type.range()[1] + 1
    raw = bytes(int(arr[i]) & 0xff for i in range(n))
    return raw.split(b"\0", 1)[0].decode("ascii", "replace")


def state_name(t):
    s = str(t["state"])
    return {"TASK_RUNNING": "running", "TASK_BLOCKED": "blocked",
            "TASK_DEAD": "dead"}.get(s, s)


def task_label(t):
    return f"{comm(t)} (pid {int(t['pid'])})"


def cpumask_int(m):
    """A struct cpumask (an array of unsigned long words) as one integer."""
    bits = m["bits"]
    n = bits.type.range()[1] + 1
    return sum(int(bits[i]) << (64 * i) for i in range(n))


def online_mask():
    return cpumask_int(var("__cpu_online_mask"))


def online_cpus():
    mask = online_mask()
    ncpus = var("cpus").type.range()[1] + 1
    return [c for c in range(ncpus) if mask & (1 << c)]


def require_kernel():
    """Stop with a hint while the kernel has not set itself up yet."""
    if online_mask() == 0:
        raise gdb.GdbError("the kernel has not started yet (cpu_online_mask is empty): "
                           "stop later, e.g. hbreak kmain or hbreak synchronize_rcu, "
                           "then continue")


def rq(cpu):
    return var("runqueues")[cpu]


def all_tasks():
    head = var("all_tasks")
    return list(list_entries(head.address, "task_struct", "tasks"))


# --- which gdb thread is which CPU -----------------------------------------

def _cpu_pointer_register():
    """The register holding this CPU's struct cpu pointer (arch_cpu_self())."""
    name = gdb.selected_inferior().architecture().name()
    if "x86-64" in name:
        return ["$gs_base"]
    if "aarch64" in name:
        return ["$TPIDR_EL1", "$tpidr_el1"]
    return []


def cpu_of_thread(thread):
    """The kernel's CPU number for a gdb thread (QEMU: one thread per vCPU)."""
    cpus = var("cpus")
    base = int(cpus.address)
    size = cpus.type.target().sizeof
    ncpus = cpus.type.range()[1] + 1
    old = gdb.selected_thread()
    try:
        thread.switch()
        for reg in _cpu_pointer_register():
            try:
                p = int(gdb.parse_and_eval(reg))
            except gdb.error:
                continue
            if base <= p < base + ncpus * size and (p - base) % size == 0:
                return (p - base) // size
    finally:
        if old is not None and old.is_valid():
            old.switch()
    # Early boot, or the register is not exposed: QEMU numbers its vCPU
    # threads 1, 2, ... in the order the kernel numbers its CPUs 0, 1, ...
    return thread.ptid[1] - 1 if thread.ptid[1] > 0 else thread.num - 1


def cpu_threads():
    """{cpu: gdb thread}."""
    out = {}
    inf = gdb.selected_inferior()
    if inf.pid == 0:
        raise gdb.GdbError("not connected: target remote :1234 first")
    for th in inf.threads():
        out[cpu_of_thread(th)] = th
    return out


def selected_cpu():
    th = gdb.selected_thread()
    return cpu_of_thread(th) if th is not None else None


# --- qcpus -------------------------------------------------------------------

class QCpus(gdb.Command):
    """Each online CPU: its current task (name, pid, state), idle or busy,
context switches, queued tasks, and the gdb thread that is this CPU.
'>' marks the CPU gdb is stopped on (the selected thread)."""

    def __init__(self):
        super().__init__("qcpus", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        require_kernel()
        cpus = var("cpus")
        rcu_data = var("rcu_data")
        threads = cpu_threads()
        here = selected_cpu()
        online = online_cpus()
        print(f"{len(online)} CPUs online (nr_cpu_ids {int(var('nr_cpu_ids'))}, "
              f"cpu_online_mask {online_mask():#x}); "
              f"gdb is on CPU{here} (thread {gdb.selected_thread().num})")
        print("  CPU  thread  current task             state    switches  queued  "
              "ticks  ipis  idle/busy")
        for c in online:
            r = rq(c)
            curr = r["curr"]
            idle = int(curr) == int(r["idle"])
            if not idle:
                what = "busy"
            elif int(rcu_data[c]["idle"]):
                what = ("idle (halted: call_rcu()'s grace periods count it quiescent; "
                        "a synchronize_rcu() tour wakes it with an IPI)")
            else:
                what = "idle"
            if int(cpus[c]["irq_depth"]) > 0:
                what += ", in an interrupt handler"
            if int(r["prev"]):
                what += f", switching from {task_label(r['prev'])}"
            th = threads.get(c)
            print(f"{'>' if c == here else ' '} {c:3d}  {th.num if th else '?':>6}  "
                  f"{task_label(curr):24.24s} {state_name(curr):8s} "
                  f"{int(r['nr_switches']):8d}  {int(r['nr_queued']):6d}  "
                  f"{int(cpus[c]['ticks']):5d}  {int(cpus[c]['ipis']):4d}  {what}")


# --- qrunq / qps --------------------------------------------------------------

def where(t):
    """What a task is doing, in words."""
    cpu = int(t["cpu"])
    r = rq(cpu)
    st = str(t["state"])
    if int(r["curr"]) == int(t):
        s = f"running on CPU{cpu}"
        if int(t["migrate_to"]) >= 0:
            s += f", about to hop to CPU{int(t['migrate_to'])} (run_on)"
        return s
    if int(r["prev"]) == int(t):
        return f"being switched out on CPU{cpu}"
    if int(r["idle"]) == int(t):
        return f"CPU{cpu}'s idle task, switched out (runs when the queue is empty)"
    if st == "TASK_RUNNING":
        if int(t["migrate_to"]) >= 0:
            return f"hopping to CPU{int(t['migrate_to'])} (run_on)"
        return f"queued on CPU{cpu}"
    if st == "TASK_BLOCKED":
        on_sleep = int(t["sleep_node"]["next"]) not in (0, int(t["sleep_node"].address))
        if on_sleep:
            return f"in msleep() on CPU{cpu}, until {int(t['wake_at_ns']) / 1e6:.3f} ms"
        if int(t["waiting_since_ns"]):
            return (f"in wait_for_completion() on CPU{cpu} since "
                    f"{int(t['waiting_since_ns']) / 1e6:.3f} ms")
        return f"blocked on CPU{cpu}"
    if st == "TASK_DEAD":
        return f"dead (on CPU{cpu}; kthread_stop() reaps it)"
    return st


def show_runqueues():
    for c in online_cpus():
        r = rq(c)
        queued = [task_label(t) for t in
                  list_entries(r["queue"].address, "task_struct", "run_node")]
        sleepers = [task_label(t) for t in
                    list_entries(r["sleepers"].address, "task_struct", "sleep_node")]
        print(f"CPU{c}: current {task_label(r['curr'])}, {int(r['nr_switches'])} switches")
        print(f"      queue ({int(r['nr_queued'])}): "
              f"{', '.join(queued) if queued else '(empty)'}")
        if sleepers:
            print(f"      msleep(): {', '.join(sleepers)}")


class QRunq(gdb.Command):
    """Each online CPU's run queue: the current task, then the queued tasks
in the order they will run (round-robin), and the tasks in msleep() there."""

    def __init__(self):
        super().__init__("qrunq", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        require_kernel()
        show_runqueues()


class QPs(gdb.Command):
    """The run queues (as qrunq), then every task on the all-tasks list:
pid, name, CPU, state, switches, RCU read-side nesting, what it is doing."""

    def __init__(self):
        super().__init__("qps", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        require_kernel()
        show_runqueues()
        print("  pid  task             cpu  state    switches  rcu  doing")
        for t in all_tasks():
            print(f"{int(t['pid']):5d}  {comm(t):15.15s}  {int(t['cpu']):3d}  "
                  f"{state_name(t):8s} {int(t['switches']):8d}  "
                  f"{int(t['rcu_read_lock_nesting']):3d}  {where(t)}")


# --- qrcu ----------------------------------------------------------------------

def seg_count(seg):
    n = 0
    p = seg["head"]
    while int(p):
        n += 1
        if n > MAX_LIST:
            raise gdb.GdbError("callback list too long (corrupt?)")
        p = p["next"]
    return n


def signed_long(v):
    """A 64-bit unsigned long read as the kernel's (long) casts it."""
    x = int(v) & (2**64 - 1)
    return x - 2**64 if x >= 2**63 else x


class QRcu(gdb.Command):
    """RCU's state: the grace-period number and whether one is running, the
CPUs that still owe it a quiescent state (qs_mask), each CPU's queued
callbacks by segment (done / wait / next, with the grace period each
waits for), synchronize_rcu() tours and the polled API's wait numbers,
the stall timeout.  gp_seq and the wait numbers start below the wrap, so
they are shown signed, as (long) in the kernel reads them."""

    def __init__(self):
        super().__init__("qrcu", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        require_kernel()
        s = var("rcu_state")
        seq = signed_long(s["gp_seq"])		# starts below the wrap: -600 at boot
        mask = cpumask_int(s["qs_mask"])
        running = seq & 1
        print(f"call_rcu() grace period {seq >> 1}: "
              f"{'in progress' if running else 'none in progress'} (gp_seq {seq})"
              + (f", started at {int(s['gp_start_ns']) / 1e6:.3f} ms" if running else ""))
        owe = [f"CPU{c}" for c in range(mask.bit_length()) if mask & (1 << c)]
        print(f"CPUs that still owe a quiescent state: "
              f"{' '.join(owe) if owe else 'none'} (qs_mask {mask:#x})")
        print(f"another grace period needed when this one ends: "
              f"{'yes' if int(s['gp_needed']) else 'no'}; "
              f"grace periods completed: {int(s['gps_completed'])}")
        print(f"synchronize_rcu() tours completed: {int(s['tours_completed']['counter'])}; "
              f"waits (tours and grace periods) for the polled API: last started "
              f"#{signed_long(s['waits_started']['counter'])}, highest ended "
              f"#{signed_long(s['waits_done'])}")
        timeout = int(var("rcu_stall_timeout_s"))
        try:
            reports = int(var("rcu_stall_reports"))
        except gdb.GdbError:
            reports = "?"
        print(f"stall timeout: {timeout} s (rcu_cpu_stall_timeout); stall reports: {reports}")
        try:
            on, table = var("rcu_injections_on"), var("rcu_injection_descs")
            for i in range(int(on.type.sizeof // on[0].type.sizeof)):
                if int(on[i]):
                    print(f"FAULT INJECTION ON: rcu.inject={table[i]['name'].string()} "
                          f"({table[i]['what'].string()})")
        except gdb.GdbError:
            pass
        rcu_data = var("rcu_data")
        print("callbacks per CPU (done: ready to invoke; wait, next: ready once gp_seq "
              "reaches the value shown):")
        for c in online_cpus():
            d = rcu_data[c]
            segs = []
            for name in ("done", "wait", "next"):
                seg = d[name]
                n = seg_count(seg)
                if name == "done" or n == 0:
                    segs.append(f"{name} {n}")
                else:
                    gp = signed_long(seg["gp"])
                    segs.append(f"{name} {n} ready at gp_seq {gp}")
            th = d["cb_thread"]
            rcuc = task_label(th) if int(th) else "no rcuc thread"
            flags = []
            if int(d["idle"]):
                flags.append("idle")
            if int(d["cb_work"]):
                flags.append("rcuc has work")
            print(f"  CPU{c}: {int(d['ncbs'])} queued ({', '.join(segs)}); "
                  f"invoked {int(d['cbs_invoked'])}; {rcuc}"
                  f"{'; ' + ', '.join(flags) if flags else ''}")


# --- qtask -------------------------------------------------------------------

def find_task(arg):
    require_kernel()
    arg = arg.strip()
    if not arg:
        raise gdb.GdbError("usage: qtask PID (or a task name)")
    tasks = all_tasks()
    if arg.isdigit():
        pid = int(arg)
        match = [t for t in tasks if int(t["pid"]) == pid]
        if pid == 0 and len(match) > 1:
            raise gdb.GdbError("pid 0 is every CPU's idle task: give its name, "
                               "e.g. qtask swapper/1")
    else:
        match = [t for t in tasks if comm(t) == arg]
    if not match:
        raise gdb.GdbError(f"no task '{arg}' on the all-tasks list (qps lists them)")
    if len(match) > 1:
        print(f"{len(match)} tasks named '{arg}': "
              + ", ".join(task_label(t) for t in match) + "; showing the first")
    return match[0]


def switched_frame(sp):
    """(pc, fp) saved by arch_switch_to() at sp: arch/*/task.c arch_switched_frame()."""
    u64 = gdb.lookup_type("unsigned long long").pointer()
    s = gdb.Value(sp).cast(u64)
    name = gdb.selected_inferior().architecture().name()
    if "x86-64" in name:
        # pushed rbp, rbx, r12-r15: r15 at sp[0] ... rbp at sp[5], return address sp[6]
        return int(s[6]), int(s[5])
    if "aarch64" in name:
        # x19-x28 at sp[0..9], x29 (frame pointer) sp[10], x30 (return address) sp[11]
        return int(s[11]), int(s[10])
    raise gdb.GdbError(f"qtask: no switch frame layout for architecture {name}")


def describe_pc(pc, is_return):
    """'func () at file:line' for pc; a return address is looked up at pc-1."""
    look = pc - 1 if is_return else pc
    names = []
    try:
        block = gdb.block_for_pc(look)
    except RuntimeError:
        block = None
    while block is not None:
        if block.function is not None:
            names.append(block.function.print_name)
        block = block.superblock
    sal = gdb.find_pc_line(look)
    loc = ""
    if sal.symtab is not None:
        loc = f" at {sal.symtab.filename}:{sal.line}"
    if not names:
        # An assembly label has no function block: take the ELF symbol.
        try:
            sym = str(gdb.parse_and_eval(f"(void *){look:#x}"))
            sym = sym.split("<", 1)[1].rstrip(">").split("+", 1)[0] if "<" in sym else "??"
        except gdb.error:
            sym = "??"
        return f"{sym} (){loc}"
    fn = names[0] + " ()"
    if len(names) > 1:
        fn += " [inlined into " + " <- ".join(names[1:]) + "]"
    return fn + loc


def frame_walk(pc, fp):
    """Frame-pointer walk: at fp, the caller's fp, then the return address
    (the same frame record on x86-64 and AArch64; the kernel keeps frame
    pointers).  Ends at a zero fp, as a new task's first frame has."""
    u64 = gdb.lookup_type("unsigned long long").pointer()
    frames = [(pc, False)]
    prev = 0
    for _ in range(MAX_FRAMES):
        if fp == 0 or fp & 7 or fp <= prev:
            break
        try:
            rec = gdb.Value(fp).cast(u64)
            next_fp, ret = int(rec[0]), int(rec[1])
        except gdb.MemoryError:
            break
        if ret == 0:
            break
        frames.append((ret, True))
        prev, fp = fp, next_fp
    return frames


class QTask(gdb.Command):
    """qtask PID (or NAME): a task's state, CPU, saved stack pointer, RCU
read-side nesting, and its backtrace: for a task switched out, walked from
the frame arch_switch_to() saved on its stack; for a task running now,
gdb's own 'bt' on the CPU's thread."""

    def __init__(self):
        super().__init__("qtask", gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        t = find_task(arg)
        cpu = int(t["cpu"])
        r = rq(cpu)
        running = int(r["curr"]) == int(t)
        print(f"{task_label(t)}: {state_name(t)}, {where(t)}")
        print(f"  task_struct {int(t):#x}, stack {int(t['stack']):#x}"
              f"{' (boot stack)' if not int(t['stack']) else ''}, "
              f"saved sp {int(t['sp']):#x}{' (stale: running now)' if running else ''}")
        print(f"  switches {int(t['switches'])}, rcu_read_lock nesting "
              f"{int(t['rcu_read_lock_nesting'])}, migrate_to {int(t['migrate_to'])}, "
              f"should_stop {int(t['should_stop'])}")
        if running:
            th = cpu_threads().get(cpu)
            if th is None:
                print("  (no gdb thread for its CPU)")
                return
            print(f"  running on CPU{cpu}: its registers are live; "
                  f"backtrace of gdb thread {th.num}:")
            old = gdb.selected_thread()
            try:
                th.switch()
                out = gdb.execute("bt 20", to_string=True)
            finally:
                old.switch()
            for line in out.splitlines():
                print("    " + line)
            return
        if int(r["prev"]) == int(t):
            print("  being switched out: its frame is not complete yet")
            return
        if str(t["state"]) == "TASK_DEAD":
            print("  dead: no backtrace")
            return
        pc, fp = switched_frame(int(t["sp"]))
        print("  backtrace from its saved frame (arch_switch_to):")
        for i, (a, ret) in enumerate(frame_walk(pc, fp)):
            print(f"    #{i:<2d} {a:#018x} in {describe_pc(a, ret)}")


QCpus()
QRunq()
QPs()
QRcu()
QTask()
print("quiescent.py: qcpus, qrunq, qps, qrcu, qtask PID (help qcpus ...; docs/gdb.md)")
