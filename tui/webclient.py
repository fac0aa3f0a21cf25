"""A client of ``corpusdb serve``'s websocket protocol: what a browser tab sends and receives, minus
the browser. The tests and ``bench/bench_serve.py`` drive sessions with it.

Why: a browser is heavy (hundreds of MB); driving 40 sessions for the bench, or killing the server
under a session in a robustness test, needs only the protocol. textual-serve speaks JSON text
frames to the server (``["stdin", keys]``, ``["resize", {...}]``, ``["ping", x]``) and sends the
terminal's output back as binary frames; ``pyte`` (a VT100 emulator) turns those bytes into the
screen a person would read, as the page's xterm.js does.

``lazy=True`` (the bench): pyte is a VT100 emulator in pure Python, about 15 ms of CPU a key for the
screens Textual sends, which a browser spends on the annotator's own machine and a bench driving 20
sessions would spend on the server's. A lazy session keeps the bytes and reads them into the screen
only when ``text()`` is asked; ``wait_for_output`` finds a key's effect in the bytes themselves.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import aiohttp
import pyte

KEYS = {
    "enter": "\r",
    "tab": "\t",
    "escape": "\x1b",
    "backspace": "\x7f",
    "up": "\x1b[A",
    "down": "\x1b[B",
    "right": "\x1b[C",
    "left": "\x1b[D",
    "shift+right": "\x1b[1;2C",
    "shift+left": "\x1b[1;2D",
    "ctrl+q": "\x11",
    "ctrl+p": "\x10",
    "f1": "\x1bOP",
}


class ServedSession:
    """One session: connect, type, read the screen, wait for text to appear."""

    def __init__(self, base_url: str, *, width: int = 100, height: int = 30, lazy: bool = False) -> None:
        self.base_url = base_url.rstrip("/")
        self.width, self.height = width, height
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.lazy = lazy
        self.output = bytearray()
        """Lazy sessions: every byte received (``received`` counts them in either mode)."""
        self.received = 0
        self._fed = 0
        self.frames = 0
        self.last_frame = 0.0
        self.closed = False
        self._http: aiohttp.ClientSession | None = None
        self._ws: Any = None
        self._reader: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()

    async def connect(self) -> None:
        self._http = aiohttp.ClientSession()
        ws_url = self.base_url.replace("http", "ws", 1) + f"/ws?width={self.width}&height={self.height}"
        self._ws = await self._http.ws_connect(ws_url, max_msg_size=0)
        await self._ws.send_json(["resize", {"width": self.width, "height": self.height}])
        self._reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for msg in self._ws:
            if msg.type == aiohttp.WSMsgType.BINARY:
                if self.lazy:
                    self.output += msg.data
                else:
                    self.stream.feed(msg.data)
                self.received += len(msg.data)
                self.frames += 1
                self.last_frame = time.perf_counter()
                self._changed.set()
            elif msg.type in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.ERROR):
                break
        self.closed = True
        self._changed.set()

    def text(self) -> str:
        """The screen as plain text, one line per row."""
        if self.lazy and self._fed < len(self.output):
            self.stream.feed(bytes(self.output[self._fed :]))
            self._fed = len(self.output)
        return "\n".join(self.screen.display)

    async def wait_for_output(self, needle: str, since: int, *, timeout: float = 30.0) -> float:
        """Lazy sessions: wait until the bytes received after the ``since``-th hold ``needle``
        (text Textual draws in one style arrives in one piece); the time it took (seconds)."""
        if not self.lazy:
            raise ValueError("wait_for_output reads the bytes a lazy session keeps: ServedSession(lazy=True)")
        want = needle.encode()
        return await self.wait_until(lambda: self.output.find(want, since) >= 0, needle, timeout=timeout)

    async def send(self, *keys: str) -> None:
        """Type keys: a name from ``KEYS`` or literal text."""
        for key in keys:
            await self._ws.send_json(["stdin", KEYS.get(key, key)])

    async def type(self, text: str, *, interval: float = 0.05) -> None:
        """Type ``text`` a character at a time, as a person does (a key that opens a field moves the
        focus a moment after it is read: keys sent in the same instant would land before it)."""
        for ch in text:
            await self.send(ch)
            await asyncio.sleep(interval)

    async def wait_for(self, needle: str, *, timeout: float = 30.0) -> float:
        """Wait until ``needle`` is on the screen; returns the time it took (seconds)."""
        return await self.wait_until(lambda: needle in self.text(), needle, timeout=timeout)

    async def wait_until(self, ready: Any, what: str, *, timeout: float = 30.0) -> float:
        start = time.perf_counter()
        deadline = start + timeout
        while not ready():
            if self.closed:
                raise ConnectionError(f"session closed while waiting for {what!r}:\n{self.text()}")
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError(f"not on screen after {timeout}s: {what!r}; screen:\n{self.text()}")
            self._changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
        return time.perf_counter() - start

    async def wait_closed(self, *, timeout: float = 30.0) -> None:
        await self.wait_until(lambda: self.closed, "the session's end", timeout=timeout)

    async def log_in(
        self, name: str, password: str, *, expect: str | None = None, timeout: float = 60.0
    ) -> None:
        """Type a name and a password into the login screen (and wait for ``expect`` when given)."""
        await self.wait_for("log in", timeout=timeout)
        await self.send(name, "enter", password, "enter")
        if expect is not None:
            await self.wait_for(expect, timeout=timeout)

    async def close(self) -> None:
        if self._ws is not None:
            await self._ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)
        if self._http is not None:
            await self._http.close()
