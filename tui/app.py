"""The corpusdb TUI: one App over one facade; the first screen depends on the user's role.

Annotators land on their documents, adjudicators on the adjudication queue, leads (and the
database owner) on the progress view. Every screen is reachable from the command palette.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, ClassVar

from textual import events, work
from textual.app import App, SystemCommand
from textual.binding import BindingType
from textual.screen import ModalScreen, Screen
from textual.worker import NoActiveWorker, WorkerState, get_current_worker

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.commands import DocumentCommands
from tui.screens.base import BaseScreen

if TYPE_CHECKING:
    from tui.facade import TuiFacade

# The annotation, help and guideline screens (and markdown-it behind the last) are imported when
# first shown: the first screen paints sooner without them (issue #14, launch <= 1 s); so are the
# document list, the lead view and the facade (its records and schema classes), which
# ``corpusdb tui``'s opening screen does not need before its first frame (issue #25.11).


class CorpusApp(App[None]):
    """Annotate, adjudicate and follow a corpusdb project from the keyboard."""

    CSS_PATH = "corpusdb.tcss"
    TITLE = "corpusdb"
    COMMANDS = App.COMMANDS | {DocumentCommands}
    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("app")

    def __init__(
        self,
        facade: TuiFacade | None,
        *,
        start: str | None = None,
        gate: Any = None,
        opener: Callable[[], TuiFacade] | None = None,
        glance: Callable[[], list[tuple[str, str]] | None] | None = None,
    ) -> None:
        """``facade``: the project as one user; or None with a ``gate`` (``corpusdb.serving.gate.LoginGate``):
        the login screen comes first and the facade is the logged-in person's (served sessions and
        ``corpusdb tui --login``). Before a login the app holds nothing of the project. Or None with
        an ``opener``: the app paints first and opens the project with it in a worker
        (``tui.screens.opening``; ``corpusdb tui``), showing meanwhile the user's documents as
        ``glance`` reads them without the API (``corpusdb.store.glance``; None: none to show)."""
        super().__init__()
        self.facade: TuiFacade = facade  # type: ignore[assignment]  # set by the login when None
        self.start = start
        self.gate = gate
        self.opener = opener
        self.glance = glance
        self.open_error: BaseException | None = None
        """Why the ``opener`` failed (the app then ended): ``corpusdb tui`` raises it after ``run``."""
        self.login_session: Any = None
        """The person's ``corpusdb.store.login_session.LoginSession`` once logged in through ``gate``."""
        self._keys: deque[events.Key] = deque()
        self._key_in_flight: events.Key | None = None
        self._key_since = 0.0
        self._worker_screens: weakref.WeakKeyDictionary[Any, Screen[Any]] = weakref.WeakKeyDictionary()
        self.before_exit: dict[object, Callable[[], None]] = {}
        """What saves an open screen's queued actions when the app ends (a browser tab closed),
        by what it saves for: an annotation screen's document session, an adjudication's queue."""

    def on_unmount(self) -> None:
        stop = getattr(self, "_stop_listening", None)
        if stop is not None:  # first: a save waiting behind an import must not call back into the loop
            stop()
        for save in list(self.before_exit.values()):  # the tab closed: the last actions, saved
            save()
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
        markup, control characters replaced), whatever the caller asked for (issue #10.9).

        A toast never covers a dialog (issue #25.8): toasts are hidden on dialogs (corpusdb.tcss), a
        message raised while one is open is written on the dialog's own message line, and its toast
        shows on the screen below once the dialog closes (for the rest of its time)."""
        from corpusdb.basics.terminal import clean

        text = clean(message)
        super().notify(text, markup=False, **kwargs)
        if threading.get_ident() == self._thread_id:
            self._tell_dialog(text, kwargs.get("severity", "information"))
        elif self._dialog_open():
            self.call_from_thread(self._tell_dialog, text, kwargs.get("severity", "information"))

    def _dialog_open(self) -> bool:
        stack = self._screen_stack
        return bool(stack) and isinstance(stack[-1], ModalScreen)

    def _tell_dialog(self, message: str, severity: str) -> None:
        """The message on the open dialog's last line (its frame: ``.dialog``), if a dialog is open."""
        if not self._dialog_open():
            return
        from textual.widgets import Static

        screen = self._screen_stack[-1]
        frame = next(iter(screen.query(".dialog")), None)
        if frame is None:
            return
        found = list(frame.query("#dialog-message"))
        line = found[0] if found else Static("", id="dialog-message", markup=False)
        if not found:
            frame.mount(line)
        line.set_class(severity != "information", "-warning")
        line.update(message)

    async def on_event(self, event: events.Event) -> None:
        """A key or a click keeps a logged-in session alive (idle timeout); keys go through
        ``_pump_keys``, one at a time and in order (issue #25.1)."""
        if self.login_session is not None and isinstance(event, (events.Key, events.MouseDown)):
            self.login_session.touch()
        if isinstance(event, events.Key) and not event.is_forwarded and self._screen_stack:
            if self._keys or self._key_in_flight is not None or self.keys_wait():
                if not await self._app_priority(event):  # quit acts at once
                    self._keys.append(event)
                    self._key_timer.resume()
                return
            await self._send_key(event)
            return
        await super().on_event(event)

    # -- keys, in order, to the screen they were typed for (issue #25.1) ---------------------------
    # Why: Textual forwards a key to the focused widget's queue and resolves its binding only when
    # it has bubbled up to the app, several queues later; an action that opens a dialog starts a
    # worker that pushes the dialog later still, and the dialog focuses its input on mount. Keys
    # typed in one burst (``a h``; a paste into a browser terminal) were forwarded meanwhile to the
    # old screen's widget: lost (``h``) or taken as that screen's keys (``f``: add fragment). So the
    # app sends one key at a time: the next one leaves only when the previous one has been handled
    # all the way up (every queue on its path drained), and not while a screen is on its way:
    # pushed but not yet mounted, still reading its first data, or a dialog action (a worker of
    # group "dialog" or "open") running without a dialog on screen, between two of its dialogs.
    # Then the keys reach the new screen, in order.

    KEY_GROUPS = frozenset({"dialog", "open"})
    """Worker groups whose workers push screens: keys wait while one runs with no screen of its own up."""

    def keys_wait(self) -> bool:
        """Whether a key typed now must wait for a screen on its way (see above)."""
        if not self._screen_stack:
            return False
        screen = self.screen
        if not screen.is_mounted or getattr(screen, "keys_wait", False):
            return True
        stack = self.screen_stack
        for w in self.workers:
            if w.group in self.KEY_GROUPS and w.state in (WorkerState.PENDING, WorkerState.RUNNING):
                shown = self._worker_screens.get(w)
                if shown is None or shown not in stack:
                    return True
        return False

    @property
    def held_keys(self) -> list[str]:
        """The keys waiting (tests and the bench read it)."""
        return [k.key for k in self._keys]

    async def _app_priority(self, event: events.Key) -> bool:
        """The app's own priority bindings (quit) act at once, even while keys wait."""
        for binding in self._bindings.key_to_bindings.get(event.key, ()):
            if binding.priority and await self.run_action(binding.action, self):
                return True
        return False

    async def _send_key(self, event: events.Key) -> None:
        """Dispatch as Textual does (priority bindings, then the focused widget), and follow the key
        up to the app: the next key leaves once it got there."""
        target: Any = self.focused or self.screen
        self._key_in_flight, self._key_since = event, time.monotonic()
        await super().on_event(event)
        self._follow(event, target, 0, dirty=True)

    def _follow(
        self, event: events.Key, node: Any, turns: int, *, passes: int = 0, dirty: bool = False
    ) -> None:
        """Run after ``node`` has processed what it has queued (the key, and what handling it
        posted to itself), then at its parent, up to the app; then again from the focused widget
        while a pass found work queued (an action's messages: an input's Submitted, which closes
        a dialog), so the next key finds the screen the previous one left."""

        def step() -> None:
            queue = getattr(node, "_message_queue", None)
            if queue is not None and not queue.empty() and turns < 20:
                self._follow(event, node, turns + 1, passes=passes, dirty=True)  # what the key caused, first
                return
            parent = None if node is self else node._parent
            if parent is not None and node.is_attached:
                self._follow(event, parent, 0, passes=passes, dirty=dirty)
            elif dirty and passes < 8 and self._screen_stack:
                self._follow(event, self.focused or self.screen, 0, passes=passes + 1)
            else:
                self.call_later(self._key_done, event)

        if not node.call_later(step):  # closed meanwhile: nothing more comes of the key
            self.call_later(self._key_done, event)

    async def _key_done(self, event: events.Key) -> None:
        if self._key_in_flight is event:
            self._key_in_flight = None
            await self._pump_keys()

    async def _pump_keys(self) -> None:
        """Send the waiting keys, one at a time, while nothing makes them wait."""
        if self._key_in_flight is not None and time.monotonic() - self._key_since > 2.0:
            self._key_in_flight = None  # a key whose path was cut (its widget went away)
        if not self._keys:
            self._key_timer.pause()
            return
        if self._key_in_flight is not None or self.keys_wait():
            return
        await self._send_key(self._keys.popleft())

    def push_screen(  # type: ignore[override]
        self, screen: Any, callback: Any = None, wait_for_dismiss: bool = False, *, mode: str | None = None
    ) -> Any:
        """Remember which screen a worker waits on (``push_screen_wait``): keys pass to it."""
        result = super().push_screen(screen, callback, wait_for_dismiss, mode=mode)  # type: ignore[call-overload]
        if wait_for_dismiss:
            with contextlib.suppress(NoActiveWorker):
                shown = screen if isinstance(screen, Screen) else self.get_screen(screen)
                self._worker_screens[get_current_worker()] = shown
        return result

    def waits_on(self, screen: Screen[Any]) -> None:
        """The dialog action running now waits on ``screen`` itself, not on a dialog (picking a
        relation's argument in the text): keys pass to it as to a dialog it pushed."""
        with contextlib.suppress(NoActiveWorker):
            self._worker_screens[get_current_worker()] = screen

    def on_mount(self) -> None:
        from corpusdb.store import writers

        self._key_timer = self.set_interval(0.02, self._pump_keys, pause=True)

        # A save queued behind a long import (SQLite) waits in its worker; say why on the screen.
        self._stop_listening = writers.on_wait(self._writer_waits)
        if self.facade is None and self.opener is not None:
            from tui.screens.opening import OpeningScreen

            self.push_screen(OpeningScreen(self.opener, self.glance))
            return
        if self.facade is None:
            from tui.screens.login import LoginScreen

            self.push_screen(LoginScreen())
            return
        self.title = f"corpusdb · {self.facade.project.name}"
        home = self._home()
        if self.start and type(home).__name__ == "JudgeScreen" and "+" in self.start:
            home.start = self.start  # type: ignore[attr-defined]  # the judge's home opens at that unit
            self.push_screen(home)
            return
        self.push_screen(home)
        if self.start:
            self.open_document(self.start)

    def opened(self, facade: TuiFacade) -> None:
        """The project is open (``OpeningScreen``): the user's first screen takes its place; keys
        typed meanwhile wait in the app until that screen's data is shown (``keys_wait``)."""
        self.facade = facade
        self.title = f"corpusdb · {facade.project.name}"
        home = self._home()
        self.switch_screen(home)
        if self.start:
            self.open_document(self.start)

    # -- login ------------------------------------------------------------------------------------
    def log_in(self, name: str, password: str) -> None:
        """Log in through the gate (blocking: the login screen calls it from a worker), then show the
        person's first screen and resume at the document of their last session. Raises the gate's
        ``LoginRefused`` (one line for the form)."""
        session = self.gate.login(name, password)
        from tui.facade import TuiFacade

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
        if role == "annotator" and self.facade.judging:  # a judge: their units, the topic beside each
            from tui.screens.judge import JudgeScreen

            return JudgeScreen()
        if role in ("annotator", "system"):
            from tui.screens.documents import DocumentsScreen

            return DocumentsScreen()
        if role == "adjudicator" and self.facade.has("adjudication_queue"):
            from tui.screens.adjudicate import QueueScreen

            return QueueScreen()
        from tui.screens.lead import LeadScreen

        return LeadScreen()

    # -- navigation -------------------------------------------------------------------------------
    def open_document(
        self, document: str, *, at: tuple[int, int] | None = None, query: str = "", annotate: bool = False
    ) -> None:
        """Annotate my set on ``document``: read it in a worker, then show it in one paint (at a
        search hit ``at``, with that search's hits marked, when given). A relevance unit of a judging
        project opens on the judging screen (``annotate``: on the annotation screen, for passages)."""
        if not annotate and at is None and self.facade.judging and "+" in document:
            self._remember_in_worker(document)
            self.show_judging(document)
            return
        self._read_and_open(document, at, query)

    def show_judging(self, start: str | None = None) -> None:
        """My relevance units (``start``: that unit first); on the judging screen already: go there."""
        from tui.screens.judge import JudgeScreen

        screen = self.screen
        if isinstance(screen, JudgeScreen):
            if start is not None and screen.units:
                screen.go_to(start)
            elif start is not None:
                screen.start = start  # still loading: it opens there
            return
        self.push_screen(JudgeScreen(start))

    @work(thread=True, group="open")
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

    def open_adjudication(self, document: str, *, at: tuple[int, int] | None = None, query: str = "") -> None:
        """Adjudicate ``document``: at a search hit ``at`` (the conflict there selected, the texts at
        the hit, that search's hits marked), when given."""
        from tui.screens.adjudicate import AdjudicateScreen

        screen = AdjudicateScreen(document)
        screen.pending_hit = None if at is None else (at, query)
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
        from tui.screens.lead import LeadScreen

        self.push_screen(LeadScreen())

    def show_my_documents(self) -> None:
        from tui.screens.documents import DocumentsScreen

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
            return  # before a login: nothing of the project
        if self.facade.role in ("annotator", "system") or self.facade.user != "owner":
            yield SystemCommand("My documents", "Documents assigned to me", self.show_my_documents)
        if self.facade.judging and self.facade.role == "annotator":
            yield SystemCommand(
                "Judge my units", "Relevance judging: the topic beside the text", self.show_judging
            )
        if self.facade.can_adjudicate:
            yield SystemCommand("Adjudication queue", "Documents ready for adjudication", self.show_queue)
            yield SystemCommand("Project progress", "Progress and agreement per type", self.show_progress)
        yield SystemCommand("Search the corpus", "Words, phrases, regexes, annotations; act on every hit",
                            self.show_search)  # fmt: skip
        yield SystemCommand("Guidelines", "The guideline text of the current version", self.action_guideline)
        yield SystemCommand("Help", "Every key of this screen", self.action_help)


def build_app(
    facade: TuiFacade | None,
    *,
    start: str | None = None,
    opener: Callable[[], TuiFacade] | None = None,
    glance: Callable[[], list[tuple[str, str]] | None] | None = None,
) -> CorpusApp:
    """The app over a facade from ``tui.facade.open_facade`` (the CLI and the tests both use this),
    or, with ``opener`` (``corpusdb tui``), over the facade it returns once the first screen is
    painted (showing meanwhile what ``glance`` reads of the user's documents)."""
    return CorpusApp(facade, start=start, opener=opener, glance=glance)


def build_login_app(gate: Any) -> CorpusApp:
    """The app behind a login screen (``corpusdb serve``'s sessions, ``corpusdb tui --login``): the
    person who logs in through ``gate`` is the user for the app's whole life."""
    return CorpusApp(None, gate=gate)
