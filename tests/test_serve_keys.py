"""No action of the TUI needs a key that browsers keep for themselves (issue 23).

In a browser tab the page never sees ctrl+w, ctrl+n, ctrl+t, ctrl+tab (and their shift forms,
ctrl+page up/down, ctrl+shift+q): the browser closes, opens or switches tabs/windows first. So every
action of every screen, the app and the text view must have at least one key outside that set. Read
from the single key map (tui/keymap.py) and from the BINDINGS every screen class actually carries
(a screen that declared its own key would show there too). No browser needed.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
from collections import defaultdict

from textual.binding import Binding

import tui
from tui import keymap

RESERVED = frozenset({
    "ctrl+w", "ctrl+n", "ctrl+t", "ctrl+tab", "ctrl+shift+tab", "ctrl+shift+w", "ctrl+shift+n",
    "ctrl+shift+t", "ctrl+pageup", "ctrl+pagedown", "ctrl+shift+q", "ctrl+f4", "alt+f4",
})  # fmt: skip
"""Keys Chromium (and Firefox) handle before the page: a served session never receives them."""


def _unreachable(bindings: list) -> dict[str, list[str]]:
    """action -> its keys, for actions whose every key is reserved."""
    keys_of: dict[str, list[str]] = defaultdict(list)
    for b in Binding.make_bindings(bindings):
        keys_of[b.action].append(b.key)
    return {a: ks for a, ks in keys_of.items() if all(k in RESERVED for k in ks)}


def test_every_place_of_the_key_map_has_a_browser_key_for_each_action() -> None:
    bad = {}
    for place in keymap.PLACES:
        if place in keymap.MODES:
            continue
        if lost := _unreachable(keymap.bindings(place)):
            bad[place] = lost
    assert not bad, f"actions reachable only by keys a browser keeps: {bad}"


def test_every_class_with_bindings_has_a_browser_key_for_each_action() -> None:
    seen = 0
    bad = {}
    for mod in pkgutil.walk_packages(tui.__path__, "tui."):
        if mod.name.startswith("tui.__") or mod.name.endswith("__main__"):
            continue
        module = importlib.import_module(mod.name)
        for name, cls in inspect.getmembers(module, inspect.isclass):
            if cls.__module__ != module.__name__ or "BINDINGS" not in vars(cls):
                continue
            seen += 1
            if lost := _unreachable(list(cls.BINDINGS)):
                bad[f"{module.__name__}.{name}"] = lost
    assert seen >= 15, f"only {seen} classes with BINDINGS found under tui/"
    assert not bad, f"actions reachable only by keys a browser keeps: {bad}"


def test_the_command_palette_key_reaches_a_browser_session() -> None:
    from tui.app import CorpusApp

    assert CorpusApp.COMMAND_PALETTE_BINDING not in RESERVED
    assert not _unreachable(list(CorpusApp.BINDINGS))
