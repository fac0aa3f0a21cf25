"""Textual's key footer, rebuilt only when the keys it shows change.

Why: Textual's ``Footer`` recomposes (removes and mounts a styled widget per key) whenever its
screen says its bindings may have changed: every focus move, every dialog opened over the screen
and closed again, every ``refresh_bindings``. On the annotation screen that was two or three
rebuilds a keystroke, nearly always to show the same keys: about a sixth of a served session's CPU
per key (``bench/bench_serve.py``). This one compares what it would show with what it shows and
rebuilds only on a difference. What is drawn is unchanged.

``bindings_changed`` is Textual's (8.2.8, pinned exactly in pyproject.toml) but for that check.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widgets import Footer as TextualFooter

if TYPE_CHECKING:
    from textual.screen import Screen


class Footer(TextualFooter):
    """The keys of the screen's bindings, as Textual's footer shows them."""

    _shown: tuple[Any, ...] | None = None

    def bindings_changed(self, screen: Screen[Any]) -> None:
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._recompose_if_changed)

    def _keys(self) -> tuple[Any, ...]:
        """What ``compose`` draws from: every shown binding with its state, in order."""
        active = self.screen.active_bindings
        rows = tuple((b, enabled, tooltip) for (_node, b, enabled, tooltip) in active.values() if b.show)
        palette = active.get(self.app.COMMAND_PALETTE_BINDING)
        return (
            rows,
            palette[1:] if palette else None,
            self.show_command_palette,
            self.app.ENABLE_COMMAND_PALETTE,
        )

    async def _recompose_if_changed(self) -> None:
        if not self.is_attached:
            return
        keys = self._keys()
        if keys == self._shown:
            return
        self._shown = keys
        await self.recompose()
