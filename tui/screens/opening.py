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
from textual.widgets import Header, Static

from tui.screens.base import ReloadingScreen
from tui.widgets.footer import Footer

if TYPE_CHECKING:
    from tui.facade import TuiFacade


class OpeningScreen(ReloadingScreen):
    """ "Opening the project…" until the facade is there."""

    LOADING = "open the project"

    def __init__(self, opener: Callable[[], TuiFacade]) -> None:
        super().__init__()
        self.opener = opener

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Opening the project…", id="summary", markup=False)
        yield Footer()

    def on_screen_resume(self) -> None:
        # After the first frame: the worker's imports would hold the interpreter lock while the
        # screen is painted (measured: the first frame came ~1.6x later).
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
