"""Three shortcuts in how Textual draws our screens, for the CPU a keystroke costs in a served session.

Why: a served session is a Textual process per person on the server's cores, and what a keystroke
costs there is mostly Textual drawing the screen again (``bench/bench_serve.py`` prints it). The
type picker after ``a`` is a dialog over the annotation screen, which Textual draws dimmed behind
it; opening it laid the annotation screen out again and drew that dimmed copy three times. These
mixins keep what is drawn the same and skip the repeats:

* ``SteadyLayout``: a screen is laid out again on a new size only (Textual also did it at the same
  size on every screen under a dialog that opens, and twice on the dialog);
* ``CountsChanges``: a screen counts the repaints and layouts its widgets ask for, so a dialog over
  it knows whether it changed;
* ``CachedBackdrop``: a dialog draws the dimmed screen under it once, and again only when that
  screen changed (counted) or the size, colours or stack did.

They override private Textual methods (``_screen_resized``, ``_render_content``) and handle its
``Update``/``Layout`` messages: Textual is pinned exactly in pyproject.toml, so an upgrade re-checks
them (the TUI and snapshot tests draw these screens and dialogs).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from textual.geometry import Size
    from textual.screen import Screen


class SteadyLayout:
    """Lay the screen out again on a new size only. A layout a widget asked for meanwhile still
    happens (``_layout_required``); a new terminal size always lays out."""

    def _screen_resized(self, size: Size) -> None:
        screen = cast("Screen[Any]", self)
        if screen._compositor.size == size and not screen._layout_required:
            return
        super()._screen_resized(size)  # type: ignore[misc]


class CountsChanges:
    """``changes`` grows at every repaint, scroll or layout one of the screen's widgets asks for
    (Textual's messages to the screen; its own handlers run after these, as before)."""

    changes = 0

    def _on_update(self, _message: object) -> None:
        self.changes += 1

    def _on_update_scroll(self, _message: object) -> None:
        self.changes += 1

    def _on_layout(self, _message: object) -> None:
        self.changes += 1


class CachedBackdrop:
    """A dialog's own content is the dimmed copy of the screens under it (Textual's
    ``BackgroundScreen``): kept while none of them changed, drawn again when one did."""

    _backdrop: tuple[object, Any] | None = None

    def _backdrop_key(self) -> object | None:
        screen = cast("Screen[Any]", self)
        under = screen.app._background_screens
        if not under or any(not isinstance(s, CountsChanges) for s in under):
            return None  # under another dialog, or a screen that counts nothing: draw as Textual does
        return (
            screen.size,
            screen.styles.background,
            screen.visual_style,
            tuple((id(s), s.changes, s.size, s._repaint_required, s._layout_required) for s in under),  # type: ignore[attr-defined]
        )

    def _render_content(self) -> None:
        screen = cast("Screen[Any]", self)
        key = self._backdrop_key()
        if key is not None and self._backdrop is not None and self._backdrop[0] == key:
            screen._render_cache = self._backdrop[1]
            screen._dirty_regions.clear()
            return
        super()._render_content()  # type: ignore[misc]
        self._backdrop = None if key is None else (key, screen._render_cache)
