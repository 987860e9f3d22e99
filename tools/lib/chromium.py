"""Headless Chromium, driven over its DevTools pipe (make slides, the
web page's test): Browser(who).send(method, **params) sends one DevTools
command and returns its result; evaluate() runs JavaScript in the page;
wait_for() polls an expression until the page reaches a state."""
import json
import os
import shutil
import subprocess
import tempfile
import time

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                  "--no-first-run", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


class ChromiumError(Exception):
    pass


class Browser:
    """Headless Chromium driven over its DevTools pipe (--remote-debugging-pipe:
    JSON messages ended by a NUL, commands on its fd 3, answers on its fd 4),
    so that a tool waits for the page to say it is ready (reveal.js's
    pages laid out, the console's banner shown) instead of for a fixed time."""

    def __init__(self, who):
        self.who = who
        exe = shutil.which("chromium") or shutil.which("chromium-browser")
        if not exe:
            raise ChromiumError(f"{self.who}: chromium is missing "
                                f"(bash tools/deps.sh slides installs it)")
        self.profile = tempfile.mkdtemp(prefix=f"{who}-chromium-")
        to_child, self.tx = os.pipe()
        self.rx, from_child = os.pipe()

        def fds():	# in the child: copies first, as either pipe may be fd 3 or 4
            a, b = os.dup(to_child), os.dup(from_child)
            os.dup2(a, 3)
            os.dup2(b, 4)
        self.proc = subprocess.Popen(
            [exe, *CHROMIUM_FLAGS, f"--user-data-dir={self.profile}",
             "--remote-debugging-pipe", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=fds)
        os.close(to_child)
        os.close(from_child)
        self.buf, self.next_id, self.session = b"", 0, None
        target = self.send("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target,
                                 flatten=True)["sessionId"]

    def send(self, method, **params):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.tx, json.dumps(msg).encode() + b"\0")
        while True:
            while b"\0" not in self.buf:
                chunk = os.read(self.rx, 1 << 20)
                if not chunk:
                    raise ChromiumError(f"{self.who}: Chromium exited during {method}")
                self.buf += chunk
            raw, self.buf = self.buf.split(b"\0", 1)
            answer = json.loads(raw)
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise ChromiumError(f"{self.who}: Chromium: {method}: {answer['error']}")
                return answer["result"]

    def evaluate(self, expr, await_promise=False):
        return self.send("Runtime.evaluate", expression=expr, returnByValue=True,
                         awaitPromise=await_promise)["result"].get("value")

    def wait_for(self, expr, what, timeout=120):
        """Polls expr until it is true: a state the page reaches, not a guess of time."""
        deadline = time.monotonic() + timeout
        while not self.evaluate(expr):
            if time.monotonic() > deadline:
                raise ChromiumError(f"{self.who}: {what}: not after {timeout} s")
            time.sleep(0.2)

    def close(self):
        self.proc.kill()
        self.proc.wait()
        os.close(self.tx)
        os.close(self.rx)
        shutil.rmtree(self.profile, ignore_errors=True)
