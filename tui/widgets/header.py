"""The app's header: Textual's, whose title changes without a layout pass.

Why: ``Header`` writes a new title with ``Static.update``, which asks the whole screen to be laid
out again; the annotation screen's sub-title follows every save ("saving…", "saved v12"), so each
edit of a full-text article paid two layouts of the screen (every widget's lines drawn again) for
a title whose box never changes size (the title takes the header's width, one line).
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.visual import VisualType
from textual.widgets import Header
from textual.widgets._header import HeaderClock, HeaderClockSpace, HeaderIcon, HeaderTitle


class _Title(HeaderTitle):
    """The title line: redrawn in place (its size is the header's, whatever it says)."""

    def update(self, content: VisualType = "", *, layout: bool = True) -> None:
        super().update(content, layout=False)


class TitleBar(Header):
    """``Header`` with a title that is redrawn without laying out the screen."""

    def compose(self) -> ComposeResult:
        yield HeaderIcon().data_bind(Header.icon)
        yield _Title()
        yield HeaderClock().data_bind(Header.time_format) if self._show_clock else HeaderClockSpace()
