"""A real headless Chromium driven over the DevTools protocol (CDP), for the HTML report tests.

One browser per test session (a fresh profile in a temporary folder), one tab per page. A tab records every console
message and uncaught exception (Runtime.consoleAPICalled, Runtime.exceptionThrown, Log.entryAdded: CSP violations
and failed loads arrive there), and every request the page makes (Network.requestWillBeSent). Protocol reference:
https://chromedevtools.github.io/devtools-protocol/ (Target, Page, Runtime, Log, Network, Emulation domains).
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import websocket  # websocket-client

INSTALL_HINT = "run scripts/ensure_browser.sh (scripts/test.sh does) to install Debian's chromium"


def find_chromium() -> str | None:
    """$CHROMIUM, else chromium on PATH."""
    given = os.environ.get("CHROMIUM")
    return given if given else shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """A headless Chromium with a DevTools websocket of its own (port chosen by the browser: no clash)."""

    def __init__(self, executable: str, timeout_s: float = 30.0) -> None:
        self.profile = tempfile.mkdtemp(prefix="xladoctor-chromium-")
        self.process = subprocess.Popen(
            [
                executable,
                "--headless",
                "--no-sandbox",  # the tests run as root in a container
                "--disable-gpu",
                "--no-first-run",
                "--no-default-browser-check",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--hide-scrollbars",
                "--remote-debugging-port=0",
                f"--user-data-dir={self.profile}",
                "about:blank",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        port_file = Path(self.profile) / "DevToolsActivePort"
        deadline = time.monotonic() + timeout_s
        while not (port_file.exists() and len(port_file.read_text().splitlines()) >= 2):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                raise RuntimeError(f"chromium did not open its DevTools port ({executable})")
            time.sleep(0.05)
        port, path = port_file.read_text().splitlines()[:2]
        # no Origin header: Chromium refuses a websocket from an origin it was not told to allow
        self.socket = websocket.create_connection(
            f"ws://127.0.0.1:{port}{path}", timeout=timeout_s, suppress_origin=True
        )
        self._id = 0
        self.version = self.call("Browser.getVersion")["product"]

    def call(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> Any:
        """Send one command and wait for its answer; events that arrive meanwhile go to their tab."""
        self._id += 1
        message: dict[str, Any] = {"id": self._id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        self.socket.send(json.dumps(message))
        while True:
            reply = json.loads(self.socket.recv())
            if reply.get("id") == self._id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self._dispatch(reply)

    def _dispatch(self, event: dict[str, Any]) -> None:
        tab = Tab.open_tabs.get(event.get("sessionId", ""))
        if tab is not None:
            tab.events.append(event)

    def pump(self, seconds: float) -> None:
        """Read events for a while (messages the page logs after load)."""
        deadline = time.monotonic() + seconds
        self.socket.settimeout(0.05)
        try:
            while time.monotonic() < deadline:
                try:
                    self._dispatch(json.loads(self.socket.recv()))
                except websocket.WebSocketTimeoutException:
                    continue
        finally:
            self.socket.settimeout(30)

    def open(self, url: str, width: int = 1280, height: int = 900, mobile: bool = False) -> Tab:
        """A new tab at `url`, loaded (the load event fired), with every event recorded from before navigation."""
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        tab = Tab(self, target, session)
        for domain in ("Page", "Runtime", "Log", "Network"):
            tab.call(f"{domain}.enable")
        tab.call(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )
        started = time.monotonic()
        tab.call("Page.navigate", {"url": url})
        tab.wait_for("Page.loadEventFired")
        tab.load_s = time.monotonic() - started
        return tab

    def close(self) -> None:
        sock = getattr(self, "socket", None)
        if sock is not None:
            try:
                sock.close()
            except OSError:
                pass
        # the whole process group: Debian's /usr/bin/chromium is a shell script that starts the browser as its child
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(self.process.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                self.process.poll()  # reap the script: a zombie still counts in its group
                try:
                    os.killpg(self.process.pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
            else:
                continue
            break
        shutil.rmtree(self.profile, ignore_errors=True)


@dataclass
class Tab:
    browser: Browser
    target: str
    session: str
    events: list[dict[str, Any]] = field(default_factory=list)
    load_s: float = 0.0
    open_tabs = {}  # type: dict[str, Tab]  # session id -> tab (a class attribute, not a field)

    def __post_init__(self) -> None:
        Tab.open_tabs[self.session] = self

    def call(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self.browser.call(method, params, self.session)

    def wait_for(self, method: str, timeout_s: float = 30.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == method:
                    return event
            self.browser.pump(0.05)
        raise TimeoutError(f"no {method} within {timeout_s} s")

    def evaluate(self, expression: str) -> Any:
        """The value of a JavaScript expression in the page (returned by value)."""
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression[:80]}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def console_problems(self) -> list[str]:
        """Console errors and warnings, uncaught exceptions and browser log entries of level warning or error."""
        problems = []
        for event in self.events:
            method, params = event.get("method"), event.get("params", {})
            if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
                problems.append(f"console.{params['type']}: {params.get('args')}")
            elif method == "Runtime.exceptionThrown":
                problems.append(f"exception: {params.get('exceptionDetails')}")
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
                problems.append(f"log: {params['entry'].get('text')} ({params['entry'].get('url')})")
        return problems

    def console_messages(self) -> list[dict[str, Any]]:
        return [e["params"] for e in self.events if e.get("method") == "Runtime.consoleAPICalled"]

    def requests(self) -> list[str]:
        """The URL of every request the page made (the page itself included)."""
        return [e["params"]["request"]["url"] for e in self.events if e.get("method") == "Network.requestWillBeSent"]

    def screenshot(self, path: Path, full_page: bool = True) -> Path:
        params: dict[str, Any] = {"format": "png", "captureBeyondViewport": full_page}
        if full_page:
            width, height = self.evaluate(
                "[document.documentElement.scrollWidth, Math.min(document.documentElement.scrollHeight, 12000)]"
            )
            params["clip"] = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot", params)["data"]))
        return path

    def pdf(self, path: Path) -> Path:
        """The page printed (print media, A4) to a PDF."""
        data = self.call("Page.printToPDF", {"paperWidth": 8.27, "paperHeight": 11.69, "printBackground": True})
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data["data"]))
        return path

    def emulate_print(self, on: bool = True) -> None:
        self.call("Emulation.setEmulatedMedia", {"media": "print" if on else ""})

    def close(self) -> None:
        Tab.open_tabs.pop(self.session, None)
        self.browser.call("Target.closeTarget", {"targetId": self.target})
