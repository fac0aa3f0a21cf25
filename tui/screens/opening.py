"""The first screen of ``corpusdb tui``: painted at once, while the project opens in a worker.

Why (issue #25.11): opening the project loads the API, the store and SQLAlchemy, most of what the
command loads at all; done before the app ran, the terminal stayed blank for three times as long as
a bare Textual app takes to paint. Now the app paints this screen first, opens the project in a
thread, then puts the user's own first screen (documents, adjudication queue or progress) in its
place. Keys typed meanwhile wait in the app (this screen's ``keys_wait`` stays set) and go to that
screen, in order, once its data is shown. What fails while opening (no such project or user) ends the app; ``corpusdb tui``
then says it as it always did (``CorpusApp.open_error``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from textual import work
from textual.app import ComposeResult
from textual.widgets import Static

from tui.screens.base import ReloadingScreen
from tui.widgets.header import TitleBar

GLANCE_MARK = {"assigned": "·", "in_progress": "…", "submitted": "✓"}
"""As the document list marks a status (``tui.screens.documents.STATUS_MARK``)."""

if TYPE_CHECKING:
    from tui.facade import TuiFacade


class OpeningScreen(ReloadingScreen):
    """ "Opening the project…" until the facade is there."""

    LOADING = "open the project"

    def __init__(
        self,
        opener: Callable[[], TuiFacade],
        glance: Callable[[], list[tuple[str, str]] | None] | None = None,
    ) -> None:
        super().__init__()
        self.opener = opener
        self.glance = glance
        """The user's documents read without the API (``corpusdb.store.glance``): shown at once."""

    def compose(self) -> ComposeResult:
        # No key bar: no key acts here (keys wait for the user's first screen, which brings its
        # own), and its dozen widgets were a twentieth of the time to the first frame.
        yield TitleBar()
        yield Static("Opening the project…", id="summary", markup=False)

    def on_screen_resume(self) -> None:
        # After the first frame: the worker's imports would hold the interpreter lock while the
        # screen is painted (measured: the first frame came ~1.6x later).
        self.call_after_refresh(self._show_glance if self.glance is not None else self._load)

    def _show_glance(self) -> None:
        """The user's documents as the light read finds them (a few milliseconds, on this thread),
        painted before the API starts loading; the real list takes this screen's place."""
        try:
            rows = self.glance() if self.glance is not None else None
        except Exception:  # a glance only: the real list follows, and says what is wrong
            rows = None
        if rows:
            width = max(len(d) for d, _ in rows[:200])
            lines = [
                f"  {GLANCE_MARK.get(st, ' ')} {d:<{width}}  {st.replace('_', ' ')}" for d, st in rows[:200]
            ]
            more = f"\n  … and {len(rows) - 200} more" if len(rows) > 200 else ""
            text = f"Opening the project… your documents ({len(rows)}), Enter and filters in a moment:\n"
            self.query_one("#summary", Static).update(text + "\n".join(lines) + more)
        self.call_after_refresh(self._load)

    def fetch(self) -> Any:
        return self.opener()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        try:
            facade = self.opener()
        except BaseException as exc:  # said by ``corpusdb tui`` once the app has ended
            self.app.call_from_thread(self._failed, exc)
            return
        self.app.call_from_thread(self._opened, facade)

    def _failed(self, exc: BaseException) -> None:
        self.corpus_app.open_error = exc
        self.app.exit()

    def _opened(self, facade: TuiFacade) -> None:
        self.corpus_app.opened(facade)
