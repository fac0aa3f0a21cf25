"""Running `corpusdb serve` for a test, and a real headless Chromium tab on it (Playwright).

The browser is the distribution's Chromium at /usr/bin/chromium (`.ci/run` installs it); Playwright
drives it with ``executable_path`` and never downloads one. What the tab shows is read from the
bytes its own websocket received, through a VT100 emulator (pyte), the same bytes its xterm.js
paints (the page draws on a canvas: there is no text in the DOM to read).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = os.environ.get("CORPUSDB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
KEYS = {"enter": "Enter", "escape": "Escape", "tab": "Tab", "down": "ArrowDown", "up": "ArrowUp"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def served(
    url: str, *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """`corpusdb --db URL serve --port P ARGS` in its own process group; yields (base URL, process).
    Afterwards the whole group goes (the server and every session process it started)."""
    port = free_port()
    cmd = [sys.executable, "-m", "corpusdb", "--db", url, "serve", "--port", str(port), *args]
    log = open(Path(cwd or ".") / f"serve-{port}.log", "wb") if cwd else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                            env={**os.environ, **(env or {})}, cwd=cwd)  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            if proc.poll() is not None:
                raise RuntimeError(f"corpusdb serve exited with {proc.returncode}")
            try:
                with urllib.request.urlopen(base + "/", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.2)
        yield base, proc
    finally:
        with _suppress():
            os.killpg(proc.pid, signal.SIGTERM)
        with suppress(subprocess.TimeoutExpired):
            proc.wait(10)
        with _suppress():
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(10)


@contextmanager
def _suppress() -> Iterator[None]:
    with suppress(ProcessLookupError):
        yield


def browser_or_skip() -> Any:
    """A Playwright Chromium browser on the system's Chromium, or skip with the reason."""
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip(f"no Chromium at {CHROMIUM}: install the distribution's `chromium` (.ci/run does)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:
        pytest.skip(f"Playwright is not installed ({exc}): pip install -e '.[test]'")
    return sync_playwright, (CHROMIUM if Path(CHROMIUM).exists() else shutil.which("chromium"))


class Tab:
    """One browser tab on the served app: keys typed into its terminal, its screen as text."""

    def __init__(self, browser: Any, base: str, *, width: int = 1200, height: int = 700) -> None:
        import pyte

        self.page = browser.new_page(viewport={"width": width, "height": height})
        self.base = base
        self.http: list[str] = []
        self.page.on("request", lambda r: self.http.append(r.url))
        self.page.on("websocket", self._socket)
        self._pyte = pyte
        self._new_screen()

    def _new_screen(self) -> None:
        self.screen = self._pyte.Screen(200, 60)
        self.stream = self._pyte.ByteStream(self.screen)

    def _socket(self, ws: Any) -> None:
        self._new_screen()
        ws.on("framereceived", self._frame)

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, bytes):
            self.stream.feed(payload)
        elif '"resize"' in payload:
            pass

    def open(self) -> None:
        self.page.goto(self.base + "/")
        self.page.wait_for_function("document.body.classList.contains('-first-byte')", timeout=60_000)
        # the size the page's xterm.js chose: our emulator reads the same grid
        self.page.click(".xterm-screen")

    def reload(self) -> None:
        self.page.reload()
        self.page.wait_for_function("document.body.classList.contains('-first-byte')", timeout=60_000)
        self.page.click(".xterm-screen")

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def wait_for(self, needle: str, timeout: float = 45.0) -> None:
        deadline = time.monotonic() + timeout
        while needle not in self.text():
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never appeared in the browser; the screen:\n{self.text()}")
            self.page.wait_for_timeout(50)

    def type(self, *keys: str) -> None:
        for k in keys:
            if k in KEYS:
                self.page.keyboard.press(KEYS[k])
            else:
                self.page.keyboard.type(k)

    def log_in(self, name: str, password: str) -> None:
        """Clear the form (after a refusal it keeps the name and waits for the password), then log in."""
        self.wait_for("log in")
        if "› name      ▏" not in self.text():
            self.type("escape")
            self.wait_for("› name      ▏")  # a key right behind Escape would read as alt+key: wait
        self.type(name, "enter", password, "enter")

    def closed(self) -> bool:
        return bool(self.page.evaluate("document.body.classList.contains('-closed')"))
