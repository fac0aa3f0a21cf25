"""The corpusdb TUI: one App over one facade; the first screen depends on the user's role.

Annotators land on their documents, adjudicators on the adjudication queue, leads (and the
database owner) on the progress view. Every screen is reachable from the command palette.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import Binding, BindingType
from textual.screen import Screen

from corpusdb.basics.errors import CorpusError
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

    def __init__(
        self,
        facade: TuiFacade | None,
        *,
        start: str | None = None,
        gate: Any = None,
        opener: Callable[[], TuiFacade] | None = None,
    ) -> None:
        """``facade``: the project as one user; or None with a ``gate`` (``corpusdb.serving.gate.LoginGate``):
        the login screen comes first and the facade is the logged-in person's (served sessions and
        ``corpusdb tui --login``). Before a login the app holds nothing of the project. Or None with
        an ``opener``: the app paints first and opens the project with it in a worker
        (``tui.screens.opening``; ``corpusdb tui``)."""
        super().__init__()
        self.facade: TuiFacade = facade  # type: ignore[assignment]  # set by the login when None
        self.start = start
        self.gate = gate
        self.opener = opener
        self.open_error: BaseException | None = None
        """Why the ``opener`` failed (the app then ended): ``corpusdb tui`` raises it after ``run``."""
        self.login_session: Any = None
        """The person's ``corpusdb.store.login_session.LoginSession`` once logged in through ``gate``."""

    def on_unmount(self) -> None:
        stop = getattr(self, "_stop_listening", None)
        if stop is not None:
            stop()
        if self.login_session is not None and self.login_session.ended is None:
            self.login_session.logout("closed")  # the browser tab closed, or the terminal went away

    def _writer_waits(self, message: str) -> None:
        import threading

        if threading.get_ident() == self._thread_id:
            self.notify(message, severity="warning", timeout=10)
        else:
            self.call_from_thread(self.notify, message, severity="warning", timeout=10)

    def notify(self, message: str, *, markup: bool = True, **kwargs: Any) -> None:  # type: ignore[override]
        """Notifications carry names, document ids and error texts from users: shown as written (no
        markup, control characters replaced), whatever the caller asked for (issue #10.9)."""
        from corpusdb.basics.terminal import clean

        super().notify(clean(message), markup=False, **kwargs)

    async def on_event(self, event: events.Event) -> None:
        """A key or a click keeps a logged-in session alive (idle timeout).

        Keys typed while the first screen still loads its data (or before the app ran: they wait
        in the terminal) are kept by that screen and replayed once its data is shown, so typing
        ahead after launch loses nothing. Priority bindings (quit) act at once."""
        if self.login_session is not None and isinstance(event, (events.Key, events.MouseDown)):
            self.login_session.touch()
        if isinstance(event, events.Key) and not event.is_forwarded and self._screen_stack:
            screen = self.screen
            if isinstance(screen, ReloadingScreen) and screen.typed_ahead is not None:
                if not await self._check_bindings(event.key, priority=True):
                    screen.typed_ahead.append(event)
                return
        await super().on_event(event)

    def on_mount(self) -> None:
        from corpusdb.store import writers

        # A save queued behind a long import (SQLite) waits in its worker; say why on the screen.
        self._stop_listening = writers.on_wait(self._writer_waits)
        if self.facade is None and self.opener is not None:
            from tui.screens.opening import OpeningScreen

            self.push_screen(OpeningScreen(self.opener))
            return
        if self.facade is None:
            from tui.screens.login import LoginScreen

            self.push_screen(LoginScreen())
            return
        self.title = f"corpusdb · {self.facade.project.name}"
        self.push_screen(self._home())
        if self.start:
            self.open_document(self.start)

    def opened(self, facade: TuiFacade, typed: list[events.Key]) -> None:
        """The project is open (``OpeningScreen``): the user's first screen takes its place, with
        the keys typed so far to replay once its data is shown."""
        self.facade = facade
        self.title = f"corpusdb · {facade.project.name}"
        home = self._home()
        if isinstance(home, ReloadingScreen) and home.typed_ahead is not None:
            home.typed_ahead[:0] = typed
        else:  # a screen without data to wait for: the keys act on it at once
            self.call_after_refresh(lambda: [(self.focused or self.screen)._forward_event(k) for k in typed])
        self.switch_screen(home)
        if self.start:
            self.open_document(self.start)

    # -- login ------------------------------------------------------------------------------------
    def log_in(self, name: str, password: str) -> None:
        """Log in through the gate (blocking: the login screen calls it from a worker), then show the
        person's first screen and resume at the document of their last session. Raises the gate's
        ``LoginRefused`` (one line for the form)."""
        session = self.gate.login(name, password)
        facade = TuiFacade(session.corpus)
        _ = facade.project, facade.schema
        resume = session.last_document()
        self.call_from_thread(self._logged_in, session, facade, resume)

    async def _logged_in(self, session: Any, facade: TuiFacade, resume: str | None) -> None:
        self.facade, self.login_session = facade, session
        session.on_end(self._session_ended)
        await self.switch_screen(self._home())
        self.title = f"corpusdb · {facade.project.name}"
        timeout = session.idle_timeout
        tick = 15.0 if timeout is None else max(0.2, min(15.0, timeout.total_seconds() / 4))
        self.set_interval(tick, self._session_tick)
        if resume:
            if self.facade.role in ("annotator", "system"):
                self.open_document(resume)
            elif self.facade.can_adjudicate and self.facade.has("adjudication_queue"):
                self.open_adjudication(resume)

    def _session_tick(self) -> None:
        """Idle time (no database), then whether the login still holds (in a worker). A served session
        whose server went away (its input closed: ``corpusdb serve`` was killed) ends too."""
        if self.login_session is None:
            return
        reader = getattr(self._driver, "_key_thread", None)
        if reader is not None and self._driver.is_web and not reader.is_alive():
            self.login_session.logout("server gone")
            return
        if not self.login_session.expired():
            self._check_login()

    @work(thread=True, exclusive=True, group="login-check")
    def _check_login(self) -> None:
        with contextlib.suppress(CorpusError):  # the session's end listener exits the app
            self.login_session.check()

    def _session_ended(self, why: str) -> None:
        if threading.get_ident() != self._thread_id:
            self.call_from_thread(self._session_ended, why)
            return
        self.exit(message=f"corpusdb: session ended: {why}")

    def _remember(self, document: str) -> None:
        """Where a new session of this person resumes (called from workers; a failure is harmless)."""
        if self.login_session is not None:
            with contextlib.suppress(CorpusError):
                self.login_session.remember_document(document)

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
        self._remember(document)
        screen = AnnotateScreen(document, session)
        if at is not None:
            screen.pending_hit = (at, query)
        self.call_from_thread(self.push_screen, screen)

    def open_adjudication(self, document: str, *, at: tuple[int, int] | None = None) -> None:
        from tui.screens.adjudicate import AdjudicateScreen

        screen = AdjudicateScreen(document)
        screen.pending_hit = at
        self.push_screen(screen)
        if self.login_session is not None:
            self._remember_in_worker(document)

    @work(thread=True, group="remember")
    def _remember_in_worker(self, document: str) -> None:
        self._remember(document)

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
        if self.login_session is not None and self.login_session.ended is None:
            await asyncio.to_thread(self.login_session.logout)  # recorded; its listener exits
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

        if self.facade is None:
            return  # nothing of the project before a login
        if not isinstance(self.screen, GuidelineScreen):
            self.push_screen(GuidelineScreen())

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if self.facade is None:
            return  # before a login: nothing of the project        if self.facade.role in ("annotator", "system") or self.facade.user != "owner":
            yield SystemCommand("My documents", "Documents assigned to me", self.show_my_documents)
        if self.facade.can_adjudicate:
            yield SystemCommand("Adjudication queue", "Documents ready for adjudication", self.show_queue)
            yield SystemCommand("Project progress", "Progress and agreement per type", self.show_progress)
        yield SystemCommand("Search the corpus", "Words, phrases, regexes, annotations; act on every hit",
                            self.show_search)  # fmt: skip
        yield SystemCommand("Guidelines", "The guideline text of the current version", self.action_guideline)
        yield SystemCommand("Help", "Every key of this screen", self.action_help)


def build_app(
    facade: TuiFacade | None, *, start: str | None = None, opener: Callable[[], TuiFacade] | None = None
) -> CorpusApp:
    """The app over a facade from ``tui.facade.open_facade`` (the CLI and the tests both use this),
    or, with ``opener`` (``corpusdb tui``), over the facade it returns once the first screen is
    painted."""
    return CorpusApp(facade, start=start, opener=opener)


def build_login_app(gate: Any) -> CorpusApp:
    """The app behind a login screen (``corpusdb serve``'s sessions, ``corpusdb tui --login``): the
    person who logs in through ``gate`` is the user for the app's whole life."""
    return CorpusApp(None, gate=gate)
