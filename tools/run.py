#!/usr/bin/env python3
"""Boot the Quiescent kernel under QEMU; in test mode, parse its KTAP output.

    tools/run.py --arch {x86_64,aarch64} --kernel ELF [--smp 4] [--mem 128M]
                 [--accel tcg|tcg-single|kvm] [--cmdline "words"] [--timeout SECONDS]
                 [--log FILE] [--mode test|run] [--debug] [--dtb FILE]
                 [--module 'ELF ARGV0 [ARG...]']...

The kernel boots as a boot loader would start it: on x86-64 from a GRUB
ISO made for the boot (tools/mkiso.sh: the command line and the modules'
module2 lines in its grub.cfg), on AArch64 as an arm64 Linux Image with
an initrd holding the modules (tools/arm64_image.py; QEMU writes where
the initrd is into the device tree's /chosen).  Both beside the log, or
beside the kernel as run.iso, run.img and run.initrd.

Kernel exit codes (QEMU's exit status): 33 all passed / clean end,
35 some test failed, 37 kernel panic.  x86-64 reaches them through
isa-debug-exit (status = value << 1 | 1), AArch64 through semihosting
SYS_EXIT (status = code).

A boot that is not interactive types on the kernel's serial input what
its cues ask for: a console line `# ktest: type "..."` (a test that needs
input; tools/lib/serial_cue.py).

Test mode prints every console line, then the KTAP verdict; its last line
is "N passed, N failed[, N skipped]".  Exit status 0 only if nothing failed,
every planned test reported and QEMU exited with 33.
Run mode exits 0 if QEMU exited with 33, else 1 -- or 0, with one line
saying so, when a person quit QEMU (Ctrl-A X).  A run-mode boot whose
stdin is a terminal is interactive (the demo waits for Enter, then the
monitor): it never times out, whatever --timeout says.

QEMU exits with status 0 both when a person quits it and when the guest
resets the machine (a triple fault, or a reset the kernel asked for:
-no-reboot turns a reset into an exit).  The runner does not guess which:
it listens on QEMU's QMP socket (-qmp) for QEMU's own SHUTDOWN event,
whose reason says (host-qmp-quit: Ctrl-A X; guest-reset: the reset).
"""

import argparse
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import dtb  # noqa: E402
from ktap import KtapParser, summary_line  # noqa: E402
from procgroup import die_with_parent, interrupt_on_signals, kill_group, start_owned  # noqa: E402
from usersyms import Symbolizer  # noqa: E402
import serial_cue  # noqa: E402
from qemu_end import EXIT_PASS, EXIT_FAIL, EXIT_PANIC, ShutdownReason, classify  # noqa: E402,F401
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import arm64_image  # noqa: E402

TOOLS = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TIMEOUT = 120
# The AArch64 CPU: ARMv8.2 (cortex-a72's ARMv8.0 has no PAN; docs/user.md).
AARCH64_CPU = "cortex-a76"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="Run the Quiescent kernel under QEMU.")
    p.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    p.add_argument("--kernel", required=True, metavar="ELF")
    p.add_argument("--smp", type=int, default=4)
    p.add_argument("--mem", default="128M")
    # tcg-single: one host thread runs every vCPU in turn (QEMU's
    # -accel tcg,thread=single), so no vCPU waits for the host to wake its
    # thread: a diagnostic for what the host's wake-ups cost (docs/rcu.md).
    p.add_argument("--accel", choices=["tcg", "tcg-single", "kvm"], default="tcg")
    p.add_argument("--cmdline", default="", help="kernel command line words")
    p.add_argument("--timeout", type=float, default=None,
                   help=f"kill QEMU after this many seconds (default {DEFAULT_TIMEOUT}; "
                        "none for --debug unless given; an interactive run, with a "
                        "terminal on stdin, never times out: a person is at the monitor)")
    p.add_argument("--log", metavar="FILE", help="copy the console to FILE")
    p.add_argument("--mode", choices=["test", "run"], default="run")
    p.add_argument("--debug", action="store_true",
                   help="start QEMU halted with a gdb stub on :1234")
    p.add_argument("--icount", metavar="SHIFT",
                   help="QEMU's deterministic mode, -icount shift=SHIFT,sleep=off: each "
                        "instruction takes 2^SHIFT ns of virtual time and one vCPU runs "
                        "at a time (TCG only; make bench ICOUNT=1, docs/benchmarks.md)")
    p.add_argument("--plugin", metavar="SO[,ARG=VALUE...]",
                   help="load a QEMU TCG plugin (-plugin; make profile's, "
                        "tools/profile/insncount.c)")
    p.add_argument("--dtb", metavar="FILE",
                   help="AArch64: boot with this device tree instead of QEMU virt's own "
                        "(QEMU still writes /chosen and the memory node); a tree dumped "
                        "with -machine dumpdtb is packed first (make DTB=FILE)")
    p.add_argument("--no-isolated", action="store_true",
                   help="skip the tests that need a boot of their own (expect a panic "
                        "or a warning): each is reported as skipped")
    p.add_argument("--cpu", metavar="MODEL",
                   help=f"QEMU's CPU model (default: x86-64 max, AArch64 {AARCH64_CPU}; "
                        "cortex-a72, say, runs AArch64 without PAN)")
    p.add_argument("--module", action="append", default=[], metavar="'ELF ARGV0 [ARG...]'",
                   help="a user program to boot beside the kernel (a boot module: "
                        "docs/user.md); its argv follows the file; may repeat")
    p.add_argument("--user-dir", metavar="DIR",
                   help="where the user programs' ELFs with symbols are (build/ARCH/user): "
                        "addresses in user fault reports get their function names")
    return p.parse_args(argv)


def boot_file_path(args, ext):
    """The runner's own boot file (ext: .iso, .img, .initrd): beside the log
    (run.log -> run.iso), else beside the kernel as run.iso; never the
    Makefile's quiescent.iso or Image."""
    if args.log:
        return os.path.splitext(args.log)[0] + ext
    return os.path.join(os.path.dirname(os.path.abspath(args.kernel)), "run" + ext)


def iso_path(args):
    return boot_file_path(args, ".iso")


def build_arm64_boot(args):
    """The Image and the initrd (None without modules) for an AArch64 boot;
    raises arm64_image.BootFileError with the reason."""
    image = boot_file_path(args, ".img")
    arm64_image.make_image(args.kernel, image)
    if not args.module:
        return image, None
    initrd = boot_file_path(args, ".initrd")
    arm64_image.make_initrd(args.module, initrd)
    return image, initrd


def dtb_path(args):
    """The runner's packed copy of --dtb: beside the log, else beside the kernel."""
    if args.log:
        return os.path.splitext(args.log)[0] + ".dtb"
    return os.path.join(os.path.dirname(os.path.abspath(args.kernel)), "run.dtb")


def pack_dtb(args):
    """Writes the packed copy of --dtb (a tree padded to 1 MiB costs that
    much RAM: QEMU loads it whole after the Image and initrd, or below an
    ELF kernel, where it finds no room for it); returns None or what is wrong."""
    try:
        with open(args.dtb, "rb") as f:
            blob = dtb.packed(f.read())
    except OSError as e:
        return f"run: cannot read the device tree {args.dtb}: {e.strerror}"
    except (ValueError, struct.error):
        return f"run: {args.dtb} is not a flattened device tree (no 0xd00dfeed header)"
    args.dtb_packed = dtb_path(args)
    os.makedirs(os.path.dirname(args.dtb_packed) or ".", exist_ok=True)
    with open(args.dtb_packed, "wb") as f:
        f.write(blob)
    return None


def tcg_accel(args):
    """QEMU's -accel value for TCG: multi-threaded, or one thread for all vCPUs."""
    return "tcg,thread=single" if args.accel == "tcg-single" else "tcg"


def qemu_command(args, serial_interactive, boot=None):
    """The QEMU argv for these arguments.  boot: the ISO (x86-64), or the
    Image and initrd (AArch64: build_arm64_boot(); None boots the ELF
    itself, which QEMU starts without an initrd)."""
    if args.arch == "x86_64":
        cmd = ["qemu-system-x86_64", "-boot", "d", "-cdrom", boot,
               "-display", "none", "-no-reboot",
               "-device", "isa-debug-exit,iobase=0xf4,iosize=0x04",
               "-smp", str(args.smp), "-m", args.mem]
        if args.accel == "kvm":
            cmd += ["-accel", "kvm", "-cpu", "host,-arch-capabilities"]
        else:
            cmd += ["-cpu", args.cpu or "max", "-accel", tcg_accel(args)]
    else:
        image, initrd = boot or (args.kernel, None)
        cmd = ["qemu-system-aarch64", "-M", "virt,gic-version=3", "-cpu", args.cpu or AARCH64_CPU,
               "-display", "none", "-no-reboot", "-kernel", image]
        if initrd:
            cmd += ["-initrd", initrd]
        if args.cmdline:
            cmd += ["-append", args.cmdline]
        if getattr(args, "dtb_packed", None):
            cmd += ["-dtb", args.dtb_packed]
        cmd += ["-semihosting-config", "enable=on,target=native",
                "-smp", str(args.smp), "-m", args.mem, "-accel", tcg_accel(args)]
    if args.icount is not None:
        cmd += ["-icount", f"shift={args.icount},sleep=off"]
    if args.plugin:
        cmd += ["-plugin", args.plugin]
    if serial_interactive:
        cmd += ["-serial", "mon:stdio"]
    else:
        cmd += ["-serial", "stdio", "-monitor", "none"]
    if args.debug:
        cmd += ["-s", "-S"]
    if getattr(args, "qmp", None):
        cmd += ["-qmp", f"unix:{args.qmp},server=on,wait=off"]
    return cmd


class Console:
    """Writes lines to our stdout and to the log, flushing each; transform
    (if given) rewrites each line first (the user programs' symbols)."""

    def __init__(self, log_path, transform=None):
        self.transform = transform
        self.log = None
        if log_path:
            d = os.path.dirname(log_path)
            if d:
                os.makedirs(d, exist_ok=True)
            self.log = open(log_path, "w", encoding="utf-8", errors="replace")

    def line(self, text):
        if self.transform:
            text = self.transform(text)
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
        if self.log:
            self.log.write(text + "\n")
            self.log.flush()

    def close(self):
        if self.log:
            self.log.close()
            self.log = None


def type_cue(proc, line):
    """The kernel's cue to type on its serial console (tools/lib/serial_cue.py):
    the bytes go to QEMU's serial input, its stdin."""
    data = serial_cue.typed(line)
    if data is None or proc.stdin is None:
        return
    try:
        proc.stdin.write(data)
        proc.stdin.flush()
    except (BrokenPipeError, OSError):
        pass		# QEMU has gone; its exit status says why


def run_piped(cmd, console, timeout, on_line=None, qmp=None):
    """Run cmd with its stdin a pipe (QEMU's serial input: the kernel's cues
    are typed into it) and its stdout+stderr piped; stream each line to
    console (and on_line); qmp (a ShutdownReason) listens to QEMU.
    Returns (status, timed_out)."""
    try:
        proc = start_owned(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT)
    except OSError as e:
        console.line(f"run: cannot start {cmd[0]}: {e.strerror} (tools/deps.sh installs QEMU)")
        return 1, False
    if qmp:
        qmp.start(proc)
    fired = threading.Event()

    def on_timeout():
        fired.set()
        kill_group(proc)

    timer = None
    if timeout is not None and timeout > 0:
        timer = threading.Timer(timeout, on_timeout)
        timer.daemon = True
        timer.start()
    try:
        for raw in proc.stdout:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n").replace("\r", "")
            console.line(text)
            type_cue(proc, text)
            if on_line:
                on_line(text)
        status = proc.wait()
    except KeyboardInterrupt:
        kill_group(proc)
        raise
    finally:
        if timer:
            timer.cancel()
        proc.stdout.close()
        try:
            proc.stdin.close()
        except (BrokenPipeError, OSError):
            pass
    return status, fired.is_set()


def run_interactive(cmd, timeout, qmp=None):
    """Run cmd on our terminal (-serial mon:stdio: Ctrl-A X quits)."""
    try:
        proc = subprocess.Popen(cmd, preexec_fn=die_with_parent)
    except OSError as e:
        print(f"run: cannot start {cmd[0]}: {e.strerror} (tools/deps.sh installs QEMU)")
        return 1, False
    if qmp:
        qmp.start(proc)
    try:
        proc.wait(timeout)
        return proc.returncode, False
    except subprocess.TimeoutExpired:
        proc.terminate()
        try:
            proc.wait(3)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        return proc.returncode, True
    except KeyboardInterrupt:
        proc.terminate()
        proc.wait()
        raise


def build_iso(kernel, iso, words, modules=()):
    """Runs mkiso.sh: None when the ISO is built, else why not (the last
    lines mkiso.sh wrote, which name grub-mkrescue's complaint: a grader
    that shows only the failure line still shows the reason)."""
    cmd = [os.path.join(TOOLS, "mkiso.sh")]
    for m in modules:
        cmd += ["-m", m]
    cmd += [kernel, iso] + words
    r = subprocess.run(cmd, stderr=subprocess.PIPE, text=True, errors="replace")
    sys.stderr.write(r.stderr)
    if r.returncode == 0:
        return None
    said = [ln.strip() for ln in r.stderr.splitlines() if ln.strip()]
    return "; ".join(said[-3:]) or f"mkiso.sh exited with status {r.returncode}"


ISOLATED_TIMEOUT = 120


MODULES_RE = re.compile(r"^user: (\d+) boot modules? \(programs\)")


class ModuleCount:
    """Watches for the kernel's count of the boot modules it found, which
    must equal the programs the runner put on the boot: GRUB loads fewer
    when memory is short, and the tests of the missing ones would vanish
    from the plan without a word."""

    def __init__(self, expected):
        self.expected = expected
        self.seen = None
        self.kernel_spoke = False

    def feed(self, line):
        m = MODULES_RE.match(line)
        if m:
            self.seen = int(m.group(1))
        self.kernel_spoke = self.kernel_spoke or line.startswith("Quiescent ")

    def problem(self):
        if self.expected and not self.kernel_spoke:
            return (f"run: the kernel never started: the boot loader could not load it and "
                    f"its {self.expected} programs (too little memory? more MEM)")
        if self.expected and self.seen is not None and self.seen < self.expected:
            return (f"run: the kernel found {self.seen} of the {self.expected} programs put on "
                    "the boot (the boot loader loads fewer when memory is short: more MEM?)")
        return None


def isolated_cpus(words):
    """An isolated test's CPU count: 2, or N from its word ktest.cpus=N."""
    for w in words.split():
        if w.startswith("ktest.cpus=") and w[len("ktest.cpus="):].isdigit():
            return int(w[len("ktest.cpus="):])
    return 2


def run_isolated(args, tests, console, first_num, counts, arm64_boot=None):
    """Boots each expect-panic/warning test in a kernel of its own, at SMP=2
    (or the count its word ktest.cpus=N gives).

    A test passes when the console shows its message and QEMU ends with the
    panic code (a panic test) or the pass code (a warning test)."""
    base = [w for w in args.cmdline.split() if not w.startswith("ktest.filter=")]
    for i, t in enumerate(tests):
        num = first_num + i
        words = base + [f"ktest.isolated={t.name}"] + t.cmdline.split()
        sub = argparse.Namespace(**vars(args))
        sub.smp = isolated_cpus(t.cmdline)
        sub.cmdline = " ".join(words)
        qmp = ShutdownReason()
        sub.qmp = qmp.path
        console.line(f"# ktest: isolated boot {i + 1}/{len(tests)}: {t.name} "
                     f"(expects the {t.kind} \"{t.message}\"; SMP={sub.smp} {' '.join(words)})")
        boot = arm64_boot		# (the Image and initrd do not depend on the words)
        if args.arch == "x86_64":
            boot = os.path.splitext(iso_path(args))[0] + "-isolated.iso"
            why = build_iso(args.kernel, boot, words, args.module)
            if why:
                console.line(f"not ok {num} {t.name} # could not build the ISO: {why}")
                counts.failed += 1
                continue
        seen, skip = [], []

        def watch(line, seen=seen, skip=skip, msg=t.message):
            # The kernel's own "# ktest: running X (expects ...)" line quotes
            # the message: only the real report counts.
            if msg and msg in line and not line.startswith("# ktest"):
                seen.append(line)
            if line.startswith("ok 1 ") and "# SKIP" in line:
                skip.append(line.split("# SKIP", 1)[1].strip())

        status, timed_out = run_piped(qemu_command(sub, False, boot), console,
                                      ISOLATED_TIMEOUT, watch, qmp)
        end, _ = classify(args.arch, status, timed_out, ISOLATED_TIMEOUT, qmp.finish())
        want = "panic" if t.kind == "panic" else "clean"
        if skip and end == "clean":
            console.line(f"ok {num} {t.name} # SKIP {skip[0]}")
            counts.skipped += 1
        elif seen and end == want:
            console.line(f"ok {num} {t.name}")
            counts.passed += 1
        else:
            why = "message seen" if seen else f"message \"{t.message}\" not seen"
            console.line(f"not ok {num} {t.name} # expected a {t.kind}: {why}, "
                         f"run ended with: {end} (exit {status})")
            counts.failed += 1


def skip_isolated(tests, console, first_num, counts):
    """ISOLATED=0: each test that needs a boot of its own is listed as skipped."""
    for i, t in enumerate(tests):
        console.line(f"ok {first_num + i} {t.name} # SKIP needs a boot of its own (ISOLATED=0)")
        counts.skipped += 1


def main(argv=None):
    args = parse_args(argv)
    return _main(args)


def _early_failure(args, msg):
    """A run that could not start: the message, and in test mode the summary
    (one failure) as the last line."""
    print(msg)
    if args.mode == "test":
        print(summary_line(KtapParser().finish("crash")[1]))
    return 1


# kernel/cmdline.c: a longer word is ignored ("word too long").
MAX_CMDLINE_WORD = 255


def _main(args):

    # Any other overlong word the kernel ignores and says so (tools/test_cmdlines.py
    # boots one); an ignored filter would run the demos instead of the tests.
    for word in args.cmdline.split():
        if word.startswith("ktest.filter=") and len(word) > MAX_CMDLINE_WORD:
            return _early_failure(
                args, f"run: ktest.filter= is {len(word)} characters long; the kernel takes "
                      f"command-line words of at most {MAX_CMDLINE_WORD} and ignores longer "
                      "ones: without its filter the kernel would run the demos, not the "
                      "tests; use a shorter TESTS glob")
    if not os.path.isfile(args.kernel):
        return _early_failure(args, f"run: kernel {args.kernel} not found (build it first)")
    if args.dtb:
        if args.arch != "aarch64":
            return _early_failure(args, "run: --dtb (make DTB=) is for aarch64: x86-64 boots "
                                        "through GRUB, with ACPI tables, not a device tree")
        why = pack_dtb(args)
        if why:
            return _early_failure(args, why)
    if args.accel == "kvm":
        if args.arch == "aarch64":
            return _early_failure(
                args, "run: --accel kvm is impossible for aarch64 on this x86-64 host "
                      "(KVM runs guests of the host's own architecture only); use --accel tcg")
        if not os.access("/dev/kvm", os.R_OK | os.W_OK):
            return _early_failure(args, "run: --accel kvm needs a usable /dev/kvm; use --accel tcg")
        if args.icount is not None or args.plugin:
            return _early_failure(args, "run: --icount and --plugin are TCG's; they do "
                                        "not exist under --accel kvm")
    if args.icount is not None and not (args.icount.isdigit() and int(args.icount) <= 10):
        return _early_failure(args, f"run: --icount {args.icount!r}: give a shift from 0 "
                                    "to 10 (2^shift ns of virtual time per instruction)")

    interactive = (args.mode == "run" and sys.stdin.isatty())
    if interactive:
        # The kernel paces its demo and ends at the monitor only for a person.
        args.cmdline = (args.cmdline + " demo.tty=1").strip()
    timeout = args.timeout
    if interactive:
        # A person at the monitor may take as long as they like; Ctrl-A X
        # or 'halt' ends the run.  Only unattended runs need a limit.
        timeout = None
    elif timeout is None and not args.debug:
        timeout = DEFAULT_TIMEOUT

    if args.arch == "x86_64":
        boot = iso_path(args)
        why = build_iso(args.kernel, boot, args.cmdline.split(), args.module)
        if why:
            return _early_failure(args, f"run: could not build the GRUB ISO: {why}")
    else:
        try:
            boot = build_arm64_boot(args)
        except arm64_image.BootFileError as e:
            return _early_failure(args, f"run: could not make the boot files: {e}")

    qmp = ShutdownReason()
    args.qmp = qmp.path
    cmd = qemu_command(args, interactive, boot)

    if args.debug:
        # tools/deps.sh installs gdb-multiarch, which debugs both; plain gdb
        # (x86-64 only) when it is there.
        gdb = "gdb" if args.arch == "x86_64" and shutil.which("gdb") else "gdb-multiarch"
        script = os.path.join(TOOLS, "gdb", "quiescent.py")
        if not os.path.relpath(script).startswith(".."):
            script = os.path.relpath(script)
        print(f"run: QEMU waits for a debugger; in another terminal run:\n"
              f"  {gdb} {shlex.quote(args.kernel)} -x {shlex.quote(script)} "
              f"-ex 'target remote :1234'\n"
              f"run: commands qcpus, qps, qrcu, qtask PID; see docs/gdb.md", flush=True)

    if interactive:
        if args.log:
            print("run: --log is ignored on an interactive terminal", flush=True)
        status, timed_out = run_interactive(cmd, timeout, qmp)
        end, verdict = classify(args.arch, status, timed_out, timeout, qmp.finish())
        if verdict:
            print(verdict)
        return 0 if end in ("clean", "quit") else 1

    tools = "aarch64-linux-gnu-" if args.arch == "aarch64" else ""
    console = Console(args.log, Symbolizer(args.user_dir, tools).line if args.user_dir else None)
    try:
        parser = KtapParser() if args.mode == "test" else None
        # (a debug run's kernel starts only when gdb lets it: no verdict on silence there)
        modules = ModuleCount(0 if args.debug else len(args.module))

        def on_line(line):
            modules.feed(line)
            if parser:
                parser.feed(line)

        status, timed_out = run_piped(cmd, console, timeout, on_line, qmp)
        end, verdict = classify(args.arch, status, timed_out, timeout, qmp.finish())
        short = modules.problem()
        if short:
            console.line(short)
        if not parser:
            if verdict:
                console.line(verdict)
            return 0 if end in ("clean", "quit") and not short else 1

        if end == "quit":
            end = "crash"		# (a test run quit before its end did not pass)
        lines, counts = parser.finish(end)
        for line in lines:
            console.line(line)
        if parser.isolated and end in ("clean", "failed"):
            if args.no_isolated:
                skip_isolated(parser.isolated, console, (parser.plan or 0) + 1, counts)
            else:
                run_isolated(args, parser.isolated, console, (parser.plan or 0) + 1, counts,
                             boot if args.arch == "aarch64" else None)
        if end == "clean" and counts.planned and not counts.complete:
            verdict = (f"run: kernel exited with {EXIT_PASS} (clean end) "
                       "before every planned test reported")
        elif end == "clean" and counts.planned and counts.failed:
            verdict = f"run: kernel exited with {EXIT_PASS} (all passed) but KTAP reports failures"
        if verdict:
            console.line(verdict)
        if short:
            counts.failed += 1
        console.line(summary_line(counts))
        ok = counts.failed == 0 and counts.complete and end == "clean"
        return 0 if ok else 1
    finally:
        console.close()


if __name__ == "__main__":
    interrupt_on_signals()
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit(130)
