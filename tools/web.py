#!/usr/bin/env python3
"""make web: boot the kernel as make run does and watch it live in a browser.

    tools/web.py --arch ARCH --kernel ELF [--smp 4] [--mem 128M] [--cpu MODEL]
                 [--cmdline WORDS] [--port 8047] [--out build/web]
                 [--module 'ELF ARGV0 [ARG...]']... [--user-dir DIR]

Boots QEMU (tools/run.py's command, with trace.stream=1 and demo.tty=1 on
the kernel's command line and the guest's RAM in a file) and serves one
page on 127.0.0.1: the serial console in xterm.js, where keys typed reach
the kernel as from a terminal; the RCU timeline, drawn as the kernel
streams its trace (tools/lib/trace_stream.py: the same model
tools/timeline.py draws); each CPU's running task and RCU's counts.  The
URL it prints holds a token: the page's websocket must show it and come
from the page's own origin (any web page can open a websocket to
localhost).  Several viewers may watch and type; one who reconnects gets
the console's scrollback and the timeline's last two minutes.  It ends
when QEMU does (halt, a panic, Ctrl-C here), after telling the viewers
how: exit status 0 for a clean halt, 1 otherwise.  docs/web.md.
"""
import argparse
import asyncio
import json
import os
import re
import secrets
import signal
import sys
import time
from http import HTTPStatus
from urllib.parse import parse_qs, urlparse

TOOLS = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [TOOLS, os.path.join(TOOLS, "lib")]
from debian_python import need  # noqa: E402
websockets = need("websockets", "python3-websockets", "web")
import websockets.exceptions  # noqa: E402
import npm_deps  # noqa: E402
import run  # noqa: E402
import timeline_svg  # noqa: E402
from procgroup import die_with_parent, interrupt_on_signals  # noqa: E402
from trace_stream import STREAM_RE, LiveTrace, StreamRing  # noqa: E402

PAGE_DIR = os.path.join(TOOLS, "web")
SCROLLBACK = 4 << 20		# console bytes a viewer who connects gets
POLL_S = 0.05			# the stream ring is read this often
PANIC_RE = re.compile(r"Kernel panic - not syncing: .*")
STATIC = {"/": ("index.html", "text/html"), "/web.js": ("web.js", "text/javascript"),
          "/web.css": ("web.css", "text/css")}
XTERM = {"/xterm.js": ("lib/xterm.js", "text/javascript"),
         "/xterm.css": ("css/xterm.css", "text/css")}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description="make web: the kernel's console and its live "
                                "RCU timeline in a browser.")
    p.add_argument("--arch", required=True, choices=["x86_64", "aarch64"])
    p.add_argument("--kernel", required=True, metavar="ELF")
    p.add_argument("--smp", type=int, default=4)
    p.add_argument("--mem", default="128M")
    p.add_argument("--cpu", metavar="MODEL")
    p.add_argument("--cmdline", default="")
    p.add_argument("--port", type=int, default=8047,
                   help="the port on 127.0.0.1 (0: any free one)")
    p.add_argument("--out", default="build/web", help="the page's npm packages, the console log")
    p.add_argument("--module", action="append", default=[])
    p.add_argument("--user-dir")
    p.add_argument("--linger", type=float, default=1,
                   help="seconds the page stays served once QEMU has ended (the page's "
                        "test: a viewer who connects late still sees how it ended)")
    return p.parse_args(argv)


class Web:
    """QEMU, the viewers, and what they are all shown."""

    def __init__(self, args):
        self.args = args
        self.token = secrets.token_urlsafe(18)
        self.viewers = set()
        self.console = bytearray()		# the scrollback
        self.text_tail = ""			# the console's last partial line
        self.live = LiveTrace()
        self.ring = None
        self.ram = None				# (path, arch) of the guest's RAM file
        self.ram_file = None			# it, open (take_ram())
        self.stream_at = None
        self.end = None				# the end message, once QEMU has ended
        self.panic = None
        self.proc = None
        self.port = None
        self.log = open(os.path.join(args.out, "console.log"), "wb")

    # ---------------------------------------------------------------- QEMU

    def qemu_command(self):
        a = self.args
        words = " ".join([a.cmdline, "trace.stream=1 demo.tty=1"]).strip()
        # run.py's own parser, so an option it gains later has its default here too.
        argv = ["--arch", a.arch, "--kernel", a.kernel, "--smp", str(a.smp), "--mem", a.mem,
                "--cmdline", words, "--log", os.path.join(a.out, "run.log")]
        if a.cpu:
            argv += ["--cpu", a.cpu]
        for m in a.module:
            argv += ["--module", m]
        ns = run.parse_args(argv)
        if a.arch == "x86_64":
            boot = run.iso_path(ns)
            why = run.build_iso(a.kernel, boot, words.split(), a.module)
            if why:
                sys.exit(f"web: could not build the GRUB ISO: {why}")
        else:
            try:
                boot = run.build_arm64_boot(ns)
            except run.arm64_image.BootFileError as e:
                sys.exit(f"web: could not make the boot files: {e}")
        ram = f"/dev/shm/quiescent-web-{os.getpid()}.ram"
        self.ram = ram
        # The guest's RAM in a file this process maps too: the stream's ring is in it.
        return run.qemu_command(ns, False, boot) + [
            "-object", f"memory-backend-file,id=ram,size={a.mem},mem-path={ram},share=on",
            "-machine", "memory-backend=ram"]

    async def start_qemu(self):
        cmd = self.qemu_command()
        self.proc = await asyncio.create_subprocess_exec(
            *cmd, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT, start_new_session=True,
            preexec_fn=die_with_parent)

    def take_ram(self):
        """Maps the guest's RAM file once QEMU has made it, and unlinks it:
        nothing is left in /dev/shm however this ends."""
        if not os.path.exists(self.ram) or os.path.getsize(self.ram) == 0:
            return False
        self.ram_file = open(self.ram, "rb")
        os.unlink(self.ram)
        return True

    async def read_console(self):
        while True:
            data = await self.proc.stdout.read(65536)
            if not data:
                return
            self.log.write(data)
            self.log.flush()
            self.console += data
            if len(self.console) > SCROLLBACK:
                del self.console[:len(self.console) - SCROLLBACK]
            self.broadcast(bytes(data))
            self.watch_lines(data.decode("utf-8", "replace"))

    def watch_lines(self, text):
        """The boot line that says where the stream is; a panic."""
        *lines, self.text_tail = (self.text_tail + text).split("\n")
        self.text_tail = self.text_tail[-4096:]
        for line in lines:
            m = STREAM_RE.search(line)
            if m and self.stream_at is None:	# the kernel's own line comes first
                self.stream_at = int(m.group(1), 16)
            m = PANIC_RE.search(line)
            if m and not self.panic:
                self.panic = m.group(0).strip()
                self.broadcast_json({"t": "panic", "line": self.panic})

    def read_stream(self):
        """Maps the stream's ring once the boot line said where it is; feeds
        what it got since the last read."""
        if self.ring is None and self.stream_at not in (None, -1) and self.ram_file:
            try:
                self.ring = StreamRing(self.ram_file, self.stream_at, self.args.arch)
            except (ValueError, OSError) as e:
                print(f"web: {e}: no live timeline", flush=True)
                self.stream_at = -1
        if self.ring:
            self.feed(self.ring.lines())

    async def poll_stream(self):
        while self.end is None:
            await asyncio.sleep(POLL_S)
            self.read_stream()

    def feed(self, lines):
        for line in lines:
            self.live.feed_line(line)
        for msg in self.live.updates():
            self.broadcast_json(msg)

    async def wait_qemu(self, console):
        status = await self.proc.wait()
        # The console to its end first (the boot line, the panic's), then the
        # ring once more: our map of the RAM file outlives QEMU, and a panic
        # writes the rings' last events just before QEMU ends.
        try:
            await asyncio.wait_for(asyncio.shield(console), 10)
        except asyncio.TimeoutError:
            pass
        self.read_stream()
        self.live.finish()
        self.feed([])
        end, verdict = run.classify(self.args.arch, status, False)
        if end == "clean":
            verdict = "the kernel halted cleanly: QEMU has ended"
        elif self.panic:
            verdict = f"KERNEL PANIC: {self.panic} (QEMU exit {status})"
        self.end = {"t": "end", "end": end, "status": status, "verdict": verdict}
        self.broadcast_json(self.end)
        print(f"web: {verdict}", flush=True)
        return end

    # ---------------------------------------------------------------- viewers

    def broadcast(self, data):
        websockets.broadcast(self.viewers, data)

    def broadcast_json(self, msg):
        self.broadcast(json.dumps(msg))

    def hello(self):
        legend = timeline_svg.LEGEND + [timeline_svg.LEGEND_UPDATER, timeline_svg.LEGEND_DIRECT]
        return {"t": "hello", "arch": self.args.arch, "smp": self.args.smp,
                "colours": timeline_svg.COLOURS, "legend": [list(e) for e in legend]}

    async def viewer(self, ws, path=None):
        await ws.send(json.dumps(self.hello()))
        if self.console:
            await ws.send(bytes(self.console))
        for msg in self.live.state():
            await ws.send(json.dumps(msg))
        if self.panic:
            await ws.send(json.dumps({"t": "panic", "line": self.panic}))
        if self.end:
            await ws.send(json.dumps(self.end))
        self.viewers.add(ws)
        try:
            async for msg in ws:
                self.typed(msg)
        except websockets.exceptions.ConnectionClosed:
            pass
        finally:
            self.viewers.discard(ws)

    def typed(self, msg):
        """Keys from a viewer's terminal, to the kernel's serial input as they are."""
        data = msg.encode("utf-8") if isinstance(msg, str) else msg
        if self.end is None and self.proc.stdin and data:
            self.proc.stdin.write(data)

    # ---------------------------------------------------------------- HTTP

    def allowed(self, query, headers):
        """The token of the printed URL, and a request from our own page."""
        token = parse_qs(query).get("token", [""])[0]
        origin = headers.get("Origin")
        ours = (f"http://127.0.0.1:{self.port}", f"http://localhost:{self.port}")
        return secrets.compare_digest(token, self.token) and (origin is None or origin in ours)

    async def http(self, path, headers):
        url = urlparse(path)
        if url.path == "/ws":
            if headers.get("Origin") is None or not self.allowed(url.query, headers):
                return forbidden("web: this websocket needs the page's token and origin")
            return None		# the websocket handshake goes on
        if url.path in STATIC:
            name, mime = STATIC[url.path]
            return file_response(os.path.join(PAGE_DIR, name), mime)
        if url.path in XTERM:
            name, mime = XTERM[url.path]
            return file_response(os.path.join(self.xterm, name), mime)
        if url.path == "/timeline.svg":
            if not self.allowed(url.query, headers):
                return forbidden("web: the timeline needs the page's token")
            return self.svg(parse_qs(url.query))
        return (HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"not found\n")

    def svg(self, q):
        """The live model drawn by make trace's drawer, over the viewer's window."""
        model = self.live.builder.model()
        if not model.nevents:
            return (HTTPStatus.CONFLICT, [("Content-Type", "text/plain")], b"no event yet\n")
        try:
            t0 = max(int(q["t0"][0]), model.first_ns)
            t1 = min(int(q["t1"][0]), model.last_ns)
        except (KeyError, ValueError):
            t0, t1 = model.first_ns, model.last_ns
        if t1 <= t0:
            t0, t1 = model.first_ns, max(model.last_ns, model.first_ns + 1)
        canvas = timeline_svg.draw(model, "make web (live)", (t0, t1))
        name = f"timeline-{t0 // 10**6}-{t1 // 10**6}ms.svg"
        return (HTTPStatus.OK, [("Content-Type", "image/svg+xml"),
                      ("Content-Disposition", f'attachment; filename="{name}"')],
                canvas.svg().encode())

    # ---------------------------------------------------------------- the run

    async def main(self):
        self.xterm = npm_deps.install(PAGE_DIR, self.args.out, "@xterm/xterm",
                                      say=lambda m: print("web: " + m, flush=True))
        try:
            server = await websockets.serve(self.viewer, "127.0.0.1", self.args.port,
                                            process_request=self.http, max_size=1 << 16)
        except OSError as e:
            print(f"web: cannot listen on 127.0.0.1:{self.args.port}: {e.strerror} "
                  f"(make web WEB_PORT=another)", flush=True)
            return 1
        self.port = server.sockets[0].getsockname()[1]
        await self.start_qemu()
        deadline = time.monotonic() + 30
        while not self.take_ram():
            if self.proc.returncode is not None or time.monotonic() > deadline:
                break
            await asyncio.sleep(0.05)
        print(f"web: open http://127.0.0.1:{self.port}/?token={self.token}\n"
              f"web: the kernel's console and its RCU timeline, live; QEMU ends with "
              f"'halt' at the monitor, or Ctrl-C here", flush=True)
        tasks = [asyncio.create_task(self.read_console()), asyncio.create_task(self.poll_stream())]
        end = await self.wait_qemu(tasks[0])
        await asyncio.gather(*tasks, return_exceptions=True)
        await asyncio.sleep(self.args.linger)	# the viewers get the end message
        server.close()
        await server.wait_closed()
        return 0 if end == "clean" else 1

    def stop(self):
        """QEMU and all it started end with us, and its RAM file goes."""
        if self.proc and self.proc.returncode is None:
            for sig in (signal.SIGTERM, signal.SIGKILL):
                try:
                    os.killpg(self.proc.pid, sig)
                except ProcessLookupError:
                    break
                time.sleep(1)
        if self.ram and os.path.exists(self.ram):
            os.unlink(self.ram)


def forbidden(why):
    return (HTTPStatus.FORBIDDEN, [("Content-Type", "text/plain")], why.encode() + b"\n")


def file_response(path, mime):
    try:
        with open(path, "rb") as f:
            body = f.read()
    except OSError:
        return (HTTPStatus.NOT_FOUND, [("Content-Type", "text/plain")], b"not found\n")
    return (HTTPStatus.OK, [("Content-Type", mime + "; charset=utf-8"), ("Cache-Control", "no-store")],
            body)


def main(argv=None):
    args = parse_args(argv)
    if not os.path.isfile(args.kernel):
        print(f"web: kernel {args.kernel} not found (build it first)")
        return 1
    os.makedirs(args.out, exist_ok=True)
    web = Web(args)
    try:
        return asyncio.run(web.main())
    except npm_deps.NpmError as e:
        print(f"web: {e}")
        return 1
    except KeyboardInterrupt:
        print("web: interrupted: QEMU stopped", flush=True)
        return 1
    finally:
        web.stop()


if __name__ == "__main__":
    interrupt_on_signals()
    sys.exit(main())
