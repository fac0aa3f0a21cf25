"""The key bar at the bottom of every screen: Textual's ``Footer``, rebuilt only when its keys change.

Why: ``Footer`` builds its key widgets again whenever the screen's bindings are refreshed: when a
dialog closes, when the focus moves between the text and a list, when an action is allowed or not.
Each rebuild mounts a dozen widgets, styles them and lays out the screen, then the whole screen is
drawn again: on a full-text article that was most of the time from the last key of an edit to the
screen. The keys shown rarely change then; this bar compares what it would show with what it shows.
"""

from __future__ import annotations

from typing import Any

from textual.screen import Screen
from textual.widgets import Footer


class KeyBar(Footer):
    """``Footer`` that recomposes only when the keys it shows (or their state) changed."""

    _shown: tuple[Any, ...] | None = None

    def _keys(self) -> tuple[Any, ...]:
        """What ``Footer.compose`` reads: every shown binding with its state, and the palette's."""
        active = self.screen.active_bindings
        shown = tuple(
            (b.key, b.action, b.description, b.group, enabled, tooltip)
            for (_node, b, enabled, tooltip) in active.values()
            if b.show
        )
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        extra = (palette[1].key, palette[2], palette[3]) if palette is not None else None
        return (shown, extra, self.show_command_palette)

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        self._shown = keys
        await self.recompose()
