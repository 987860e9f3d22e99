#!/usr/bin/env python3
"""make web's page, tested in headless Chromium (docs/web.md).

    tools/test_web.py --arch ARCH [--smp 2] [--out build/web-test/ARCH]
                      [--screenshot PNG]

Two boots of build/ARCH/kernel.elf under tools/web.py:

  1. demo=none, to the monitor at once.  The page must show the boot
     banner in its terminal; `help` typed into the terminal must bring the
     monitor's command list; `test trace_scenario*` typed there must make
     the timeline draw grace periods that ended with a pre-existing reader
     drawn beside them; a second viewer (the page opened again) must get
     the console's scrollback and the timeline; the saved SVG must be
     make trace's drawing; a websocket from another origin, or without the
     token, must be refused; `halt` must end QEMU, the page saying so
     plainly and the server exiting 0.
  2. An in-kernel test that panics on purpose just after recording marks
     no tick sent (tests/trace.c): the page must say KERNEL PANIC, and its
     timeline must have the last mark, which only the panic sent.

Prints one "ok N ..." or "not ok N ..." line per check and ends with
"N passed, N failed"; exit status 1 if any failed.  --screenshot keeps a
picture of the page after the grace periods were drawn (docs/img/web.png
is one).
"""
import argparse
import base64
import json
import os
import re
import subprocess
import sys
import time

TOOLS = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(TOOLS)
sys.path.insert(0, os.path.join(TOOLS, "lib"))
from debian_python import need  # noqa: E402
websockets = need("websockets", "python3-websockets", "web")
import websockets.exceptions  # noqa: E402
from chromium import Browser, ChromiumError  # noqa: E402
from procgroup import kill_group, start_owned  # noqa: E402

URL_RE = re.compile(r"web: open (http://127\.0\.0\.1:(\d+)/\?token=(\S+))")
BANNER = "a classic-RCU teaching kernel"
HELP_LAST = "end QEMU cleanly"	# the monitor's help: its last command's line
PANIC_TEST = "trace_stream_panic_sends_the_last_events"
PANIC_MARK = "the last event before the panic"	# that test's last mark


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what, why=""):
        n = self.passed + self.failed + 1
        print(f"{'ok' if ok else 'not ok'} {n} {what}{'' if ok else ' # ' + why}", flush=True)
        self.passed += bool(ok)
        self.failed += not ok
        return ok


class Server:
    """tools/web.py on any free port; its printed URL."""

    def __init__(self, args, cmdline, log):
        cmd = [sys.executable, os.path.join(TOOLS, "web.py"), "--arch", args.arch,
               "--kernel", os.path.join(ROOT, "build", args.arch, "kernel.elf"),
               "--smp", str(args.smp), "--port", "0", "--out", args.out, "--linger", "120",
               "--cmdline", cmdline]
        self.out = open(log, "w+")
        self.proc = start_owned(cmd, stdout=self.out, stderr=subprocess.STDOUT, cwd=ROOT)
        self.url = self.port = self.token = None
        deadline = time.monotonic() + 300	# npm ci the first time, the ISO
        while time.monotonic() < deadline and self.proc.poll() is None:
            m = URL_RE.search(self.said())
            if m:
                self.url, self.port, self.token = m.group(1), int(m.group(2)), m.group(3)
                return
            time.sleep(0.2)
        raise ChromiumError(f"test_web: tools/web.py printed no URL:\n{self.said()[-2000:]}")

    def said(self):
        self.out.flush()
        with open(self.out.name) as f:
            return f.read()

    def wait(self, timeout):
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            return None

    def stop(self):
        kill_group(self.proc)


def type_keys(b, text):
    """Keys into the terminal as a person types them: Enter is a carriage return."""
    b.evaluate("qweb.term.focus()")
    for ch in text:
        if ch == "\r":
            b.send("Input.dispatchKeyEvent", type="keyDown", key="Enter", code="Enter",
                   windowsVirtualKeyCode=13, text="\r")
            b.send("Input.dispatchKeyEvent", type="keyUp", key="Enter", code="Enter",
                   windowsVirtualKeyCode=13)
        else:
            b.send("Input.insertText", text=ch)


def seen(b, expr, timeout):
    """True once the page's expr holds, within timeout seconds."""
    try:
        b.wait_for(expr, expr, timeout)
        return True
    except ChromiumError:
        return False


def refused(port, token, origin):
    """Does the server refuse a websocket with this token from this origin?"""
    import asyncio

    async def attempt():
        try:
            async with websockets.connect(f"ws://127.0.0.1:{port}/ws?token={token}",
                                          origin=origin, open_timeout=10):
                return False
        except (websockets.exceptions.InvalidStatusCode, websockets.exceptions.InvalidHandshake):
            return True
    return asyncio.run(attempt())


def text_has(s):
    return f"qweb.text().includes({json.dumps(s)})"


def live_boot(args, res, b):
    srv = Server(args, "demo=none", os.path.join(args.out, "web-live.log"))
    try:
        b.send("Page.navigate", url=srv.url)
        res.check(seen(b, text_has(BANNER), 180), "the terminal shows the boot banner",
                  "no banner in the terminal")
        res.check(seen(b, text_has("quiescent> "), 180), "the monitor's prompt",
                  "no prompt")
        type_keys(b, "help\r")
        res.check(seen(b, text_has(HELP_LAST), 60),
                  "help typed in the page brings the monitor's command list",
                  f"no '{HELP_LAST}' after help")
        type_keys(b, "test trace_scenario*\r")
        ok = seen(b, "qweb.drawn.gps_with_pre >= 1 && qweb.drawn.pre_readers >= 1", 300)
        drawn = b.evaluate("JSON.stringify(qweb.drawn)")
        res.check(ok, f"the timeline drew a grace period with its pre-existing readers ({drawn})",
                  "none drawn")
        seen(b, text_has("test: 1 passed, 0 failed"), 120)
        if args.screenshot:
            b.send("Emulation.setDeviceMetricsOverride", width=1500, height=1150,
                   deviceScaleFactor=1, mobile=False)
            b.evaluate("qweb.showGps()")
            time.sleep(1)
            png = b.send("Page.captureScreenshot", format="png")["data"]
            with open(args.screenshot, "wb") as f:
                f.write(base64.b64decode(png))
        svg = b.evaluate("(async () => { document.getElementById('save').click(); "
                         "const r = await fetch(document.getElementById('save').href); "
                         "return r.status + ' ' + await r.text(); })()", await_promise=True)
        res.check(svg and svg.startswith("200 <svg") and "RCU waits for pre-existing" in svg,
                  "save as SVG gives make trace's drawing of the live model",
                  f"got {str(svg)[:80]!r}")
        b.send("Page.navigate", url=srv.url)		# a viewer who comes back
        res.check(seen(b, text_has(BANNER) + " && qweb.items() > 0", 60),
                  "a viewer who reconnects gets the scrollback and the timeline",
                  "no banner or no item after reconnecting")
        res.check(refused(srv.port, srv.token, "http://evil.example"),
                  "a websocket from another origin is refused", "it was accepted")
        res.check(refused(srv.port, "wrong", f"http://127.0.0.1:{srv.port}"),
                  "a websocket without the token is refused", "it was accepted")
        type_keys(b, "halt\r")
        ok = seen(b, "qweb.ended() && qweb.ended().end === 'clean' && "
                     "!document.getElementById('banner').hidden", 60)
        res.check(ok, "halt: the page says QEMU ended cleanly", "no clean end shown")
        srv.stop()
        res.check("web: the kernel halted cleanly" in srv.said(),
                  "the server saw the clean end", srv.said()[-300:])
    finally:
        srv.stop()


def panic_boot(args, res, b):
    srv = Server(args, f"ktest.isolated={PANIC_TEST}", os.path.join(args.out, "web-panic.log"))
    try:
        b.send("Page.navigate", url=srv.url)
        ok = seen(b, "!document.getElementById('banner').hidden && document.getElementById"
                     "('banner').textContent.startsWith('KERNEL PANIC')", 180)
        res.check(ok, "a panic: the page says KERNEL PANIC", "no panic banner")
        res.check(seen(b, text_has("Kernel panic - not syncing"), 30),
                  "the panic's report is in the terminal", "no report")
        res.check(seen(b, f"qweb.hasMark({json.dumps(PANIC_MARK)})", 30),
                  "the timeline has the last event before the panic",
                  f"no mark '{PANIC_MARK}' on the timeline")
    finally:
        srv.stop()


def main(argv=None):
    p = argparse.ArgumentParser(description="make web's page in headless Chromium.")
    p.add_argument("--arch", default="x86_64", choices=["x86_64", "aarch64"])
    p.add_argument("--smp", type=int, default=2)
    p.add_argument("--out")
    p.add_argument("--screenshot")
    args = p.parse_args(argv)
    args.out = os.path.abspath(args.out or os.path.join(ROOT, "build", "web-test", args.arch))
    os.makedirs(args.out, exist_ok=True)
    res = Results()
    b = None
    try:
        b = Browser("test_web")
        b.send("Emulation.setDeviceMetricsOverride", width=1500, height=1150,
               deviceScaleFactor=1, mobile=False)
        live_boot(args, res, b)
        panic_boot(args, res, b)
    except ChromiumError as e:
        res.check(False, "the page's test ran to its end", str(e))
    finally:
        if b:
            b.close()
    print(f"{res.passed} passed, {res.failed} failed")
    return 1 if res.failed else 0


if __name__ == "__main__":
    sys.exit(main())
