"""Helpers for driving the app headless: the tests and the bench share them.

Why: tests must be deterministic without sleeping. ``settle`` waits until every worker except an
open dialog's has finished (a dialog worker waits for the user by design), then lets messages drain.
It leans on two private Textual helpers (``Pilot._wait_for_screen`` and the key-name tables of
``textual.keys``); Textual is pinned exactly in pyproject.toml, so an upgrade re-checks them.
"""

from __future__ import annotations

import asyncio
import functools
import io
import unicodedata
from collections.abc import Callable, Coroutine
from typing import Any, ParamSpec, TypeVar

from rich.console import Console
from textual import events
from textual.app import App
from textual.keys import REPLACED_KEYS, _character_to_key, _get_unicode_name_from_key
from textual.pilot import Pilot
from textual.screen import ModalScreen

DIALOG_GROUP = "dialog"
P = ParamSpec("P")
T = TypeVar("T")


async def settle(pilot: Pilot[Any], *, timeout: float = 10.0) -> None:
    """Let the app finish what the last keys started: saves, loads, screen pushes.

    Quiet means no worker running (but the worker of a dialog that is up) over two drains of every pending message
    in a row (a worker is often started by a message handled a moment after the key); then the
    screen renders once.
    """
    app = pilot.app
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    quiet = 0
    busy: list[Any] = []
    while quiet < 2:
        if loop.time() > deadline:
            raise TimeoutError(f"workers still running after {timeout}s: {busy}")
        await pilot._wait_for_screen()
        # a dialog's worker waits on the screen it showed (a dialog, or the text while picking in
        # it); once that screen is gone it is finishing its action (the save after the last
        # answer), which the test must see landed
        shown = getattr(app, "_worker_screens", {})
        stack = app.screen_stack if app._screen_stack else []
        busy = [
            w
            for w in app.workers
            if not w.is_finished
            and not (
                w.group == DIALOG_GROUP and (shown.get(w) in stack or isinstance(app.screen, ModalScreen))
            )
        ]
        if getattr(app, "held_keys", None) or getattr(app, "_key_in_flight", None) is not None:
            busy.append("keys waiting for a screen")  # CorpusApp sends them once it is there
        if busy:
            quiet = 0
            await asyncio.sleep(0.002)
        else:
            quiet += 1
            await asyncio.sleep(0)
    await pilot.pause()  # lets thread workers' callbacks land, then renders


def key_event(key: str) -> events.Key:
    """The Key event a terminal sends for ``key`` (as ``Pilot.press`` builds it)."""
    if len(key) == 1 and not key.isalnum():
        key = _character_to_key(key)
    try:
        char: str | None = unicodedata.lookup(_get_unicode_name_from_key(REPLACED_KEYS.get(key, key)))
    except KeyError:
        char = key if len(key) == 1 else None
    return events.Key(key, char)


async def press(pilot: Pilot[Any], *keys: str) -> None:
    """Press keys one by one through the driver, settling after each (a key may open a dialog
    for the next ones). Why not ``Pilot.press``: it sleeps until the CPU looks idle after every
    key (two 20 ms naps at least), which makes a keyboard-heavy suite several times slower."""
    driver = pilot.app._driver
    assert driver is not None
    for key in keys:
        event = key_event(key)
        event.set_sender(pilot.app)
        driver.send_message(event)
        await settle(pilot)


async def burst(pilot: Pilot[Any], *keys: str, direct: bool = False) -> None:
    """Send keys the way a fast typist or a paste does: all at once, no pause between them (through
    the driver, as a terminal's keys come; ``direct``: posted to the app in one go), then settle."""
    app = pilot.app
    driver = app._driver
    assert driver is not None
    for key in keys:
        event = key_event(key)
        event.set_sender(app)
        if direct:
            app.post_message(event)
        else:
            driver.send_message(event)
    await pilot.pause()  # every key is in the app
    await settle(pilot)


async def type_text(pilot: Pilot[Any], text: str) -> None:
    """Type characters into the focused input (a filter, a prompt), one key per character."""
    await press(pilot, *text)


def screen_text(app: App[Any]) -> str:
    """The screen as plain text (what a person would read), for assertions."""
    width, height = app.size
    console = Console(
        width=width,
        height=height,
        file=io.StringIO(),
        force_terminal=True,
        color_system="truecolor",
        record=True,
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


def run_async(fn: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """Run an async test function with ``asyncio.run`` (no pytest async plugin is needed)."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        return asyncio.run(fn(*args, **kwargs))

    return wrapper


async def wait_until(
    pilot: Pilot[Any], ready: Callable[[], bool], what: str, *, timeout: float = 30.0
) -> None:
    """Wait until ``ready()`` holds (polling), then settle: for a state a key starts a worker for.

    Why besides ``settle``: a key sent through the driver reaches the app a loop turn later and then
    hops through message queues (app, screen, focused widget), so ``settle`` can see no worker yet
    and return before the key's action started one."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not ready():
        if loop.time() > end:
            raise AssertionError(f"not ready after {timeout}s: {what}")
        await pilot.pause(0.02)
    await settle(pilot)
