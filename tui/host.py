"""What screens and commands ask of the running app, as a Protocol (``CorpusApp`` is one).

Why a Protocol here rather than ``CorpusApp`` itself: ``tui.app`` imports the screens and the
command palette's providers, so their importing ``tui.app`` back, even for type hints only, made a
circle; against this small interface the package reads top-down (app -> screens -> host).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from tui.facade import TuiFacade


@runtime_checkable
class AppHost(Protocol):
    """The app's navigation and its facade: all a screen or a command needs beyond Textual's ``App``."""

    facade: TuiFacade
    open_error: BaseException | None
    """Why the project could not be opened (``tui.screens.opening``); the app then ends."""

    def waits_on(self, screen: Any) -> None:
        """The running dialog action waits on this screen (keys pass to it)."""
        ...

    def opened(self, facade: TuiFacade) -> None:
        """The project is open: show the user's first screen (keys typed meanwhile wait for it)."""

    def open_document(
        self, document: str, *, at: tuple[int, int] | None = None, query: str = "", annotate: bool = False
    ) -> None:
        """Annotate my set on ``document`` (at a search hit ``at``; a relevance unit: judge it, unless
        ``annotate``)."""

    def open_adjudication(self, document: str, *, at: tuple[int, int] | None = None, query: str = "") -> None:
        """Adjudicate ``document`` (at a search hit ``at``: the conflict there selected)."""

    def show_queue(self) -> None:
        """The adjudication queue."""

    def show_progress(self) -> None:
        """The lead's progress view."""

    def show_my_documents(self) -> None:
        """My assigned documents."""

    def show_judging(self, start: str | None = None) -> None:
        """My relevance units on the judging screen."""
