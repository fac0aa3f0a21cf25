"""The corpusdb TUI: one App over one facade; the first screen depends on the user's role.

Annotators land on their documents, adjudicators on the adjudication queue, leads (and the
database owner) on the progress view. Every screen is reachable from the command palette.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from corpusdb.errors import CorpusError
from tui.commands import DocumentCommands
from tui.facade import TuiFacade
from tui.screens.base import BaseScreen, ReloadingScreen
from tui.screens.documents import DocumentsScreen
from tui.screens.lead import LeadScreen

# The annotation, help and guideline screens (and markdown-it behind the last) are imported when
# first shown: the first screen paints sooner without them (issue #14, launch <= 1 s).


class CorpusApp(App[None]):
    """Annotate, adjudicate and follow a corpusdb project from the keyboard."""

    CSS_PATH = "corpusdb.tcss"
    TITLE = "corpusdb"
    COMMANDS = App.COMMANDS | {DocumentCommands}
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help"),
        Binding("G,f2", "guideline", "Guide"),
    ]

    def __init__(self, facade: TuiFacade, *, start: str | None = None) -> None:
        super().__init__()
        self.facade = facade
        self.start = start

    def on_unmount(self) -> None:
        stop = getattr(self, "_stop_listening", None)
        if stop is not None:
            stop()

    def _writer_waits(self, message: str) -> None:
        import threading

        if threading.get_ident() == self._thread_id:
            self.notify(message, severity="warning", timeout=10)
        else:
            self.call_from_thread(self.notify, message, severity="warning", timeout=10)

    def notify(self, message: str, *, markup: bool = True, **kwargs: Any) -> None:  # type: ignore[override]
        """Notifications carry names, document ids and error texts from users: shown as written (no
        markup, control characters replaced), whatever the caller asked for (issue #10.9)."""
        from corpusdb.terminal import clean

        super().notify(clean(message), markup=False, **kwargs)

    async def on_event(self, event: events.Event) -> None:
        """Keys typed while the first screen still loads its data (or before the app ran: they wait
        in the terminal) are kept by that screen and replayed once its data is shown, so typing
        ahead after launch loses nothing. Priority bindings (quit) act at once."""
        if isinstance(event, events.Key) and not event.is_forwarded and self._screen_stack:
            screen = self.screen
            if isinstance(screen, ReloadingScreen) and screen.typed_ahead is not None:
                if not await self._check_bindings(event.key, priority=True):
                    screen.typed_ahead.append(event)
                return
        await super().on_event(event)

    def on_mount(self) -> None:
        from corpusdb import writers

        # A save queued behind a long import (SQLite) waits in its worker; say why on the screen.
        self._stop_listening = writers.on_wait(self._writer_waits)
        self.title = f"corpusdb · {self.facade.project.name}"
        self.push_screen(self._home())
        if self.start:
            self.open_document(self.start)

    def _home(self) -> Screen[object]:
        role = self.facade.role
        if role in ("annotator", "system"):
            return DocumentsScreen()
        if role == "adjudicator" and self.facade.has("adjudication_queue"):
            from tui.screens.adjudicate import QueueScreen

            return QueueScreen()
        return LeadScreen()

    # -- navigation -------------------------------------------------------------------------------
    def open_document(self, document: str, *, at: tuple[int, int] | None = None, query: str = "") -> None:
        """Annotate my set on ``document``: read it in a worker, then show it in one paint (at a
        search hit ``at``, with that search's hits marked, when given)."""
        self._read_and_open(document, at, query)

    @work(thread=True, group="load")
    def _read_and_open(self, document: str, at: tuple[int, int] | None = None, query: str = "") -> None:
        from tui.screens.annotate import AnnotateScreen

        try:
            session = self.facade.open_document(document)
        except CorpusError as exc:
            self.call_from_thread(self.notify, f"cannot open {document}: {exc}", severity="error", timeout=8)
            return
        screen = AnnotateScreen(document, session)
        if at is not None:
            screen.pending_hit = (at, query)
        self.call_from_thread(self.push_screen, screen)

    def open_adjudication(self, document: str, *, at: tuple[int, int] | None = None) -> None:
        from tui.screens.adjudicate import AdjudicateScreen

        screen = AdjudicateScreen(document)
        screen.pending_hit = at
        self.push_screen(screen)

    def show_search(self, query: str = "") -> None:
        """The corpus search screen (``/`` from the lists, "Search the corpus" in the palette)."""
        from tui.screens.search import SearchScreen

        self.push_screen(SearchScreen(query))

    def action_search_corpus(self) -> None:
        self.show_search()

    def show_queue(self) -> None:
        if not (self.facade.can_adjudicate and self.facade.has("adjudication_queue")):
            self.notify(
                "adjudication needs an adjudicator or a lead, and the workflow module", severity="warning"
            )
            return
        from tui.screens.adjudicate import QueueScreen

        self.push_screen(QueueScreen())

    def show_progress(self) -> None:
        self.push_screen(LeadScreen())

    def show_my_documents(self) -> None:
        self.push_screen(DocumentsScreen())

    async def action_quit(self) -> None:
        """Quit, after saving any action still queued (normally none: saves take milliseconds)."""
        from tui.screens.annotate import AnnotateScreen

        for screen in self.screen_stack:
            if isinstance(screen, AnnotateScreen) and screen.session is not None and screen.session.dirty:
                await asyncio.to_thread(screen.session.save_pending)
        self.exit()

    # -- help -------------------------------------------------------------------------------------
    def action_help(self) -> None:
        from tui.screens.info import HelpScreen

        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        if isinstance(screen, BaseScreen):
            title = f"Keys — {screen.title or type(screen).__name__}"
            self.push_screen(HelpScreen(title, screen.HELP, screen.help_sections()))
        else:
            self.action_show_help_panel()

    def action_guideline(self) -> None:
        from tui.screens.info import GuidelineScreen

        if not isinstance(self.screen, GuidelineScreen):
            self.push_screen(GuidelineScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self.facade.role in ("annotator", "system") or self.facade.user != "owner":
            yield SystemCommand("My documents", "Documents assigned to me", self.show_my_documents)
        if self.facade.can_adjudicate:
            yield SystemCommand("Adjudication queue", "Documents ready for adjudication", self.show_queue)
            yield SystemCommand("Project progress", "Progress and agreement per type", self.show_progress)
        yield SystemCommand("Search the corpus", "Words, phrases, regexes, annotations; act on every hit",
                            self.show_search)  # fmt: skip
        yield SystemCommand("Guidelines", "The guideline text of the current version", self.action_guideline)
        yield SystemCommand("Help", "Every key of this screen", self.action_help)


def build_app(facade: TuiFacade, *, start: str | None = None) -> CorpusApp:
    """The app over a facade from ``tui.facade.open_facade`` (the CLI and the tests both use this)."""
    return CorpusApp(facade, start=start)
