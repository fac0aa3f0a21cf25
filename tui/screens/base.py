"""What every corpusdb screen shares: the facade, error reporting, help text from the bindings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual import work
from textual.binding import Binding
from textual.dom import DOMNode
from textual.events import ScreenResume
from textual.reactive import Reactive
from textual.screen import Screen

from corpusdb.basics.errors import CorpusError
from tui.screens.rendering import CountsChanges, SteadyLayout

if TYPE_CHECKING:
    from tui.facade import TuiFacade
    from tui.host import AppHost

HelpRows = list[tuple[str, str]]
"""(keys, what they do) rows for the help screen."""


class BaseScreen(CountsChanges, SteadyLayout, Screen[Any]):
    """A task screen. ``HELP`` says in a few lines what the screen is for."""

    HELP = ""

    title: Reactive[str | None] = Reactive(None, compute=False, repaint=False)
    sub_title: Reactive[str | None] = Reactive(None, compute=False, repaint=False)
    """Textual's, without the repaint of the whole screen on each change: only the header shows
    them, and it redraws its title itself (``tui.widgets.header``). The annotation screen's
    sub-title follows every save: each edit redrew every line of the screen twice."""

    _theme_at_suspend: str | None = None

    def _on_screen_suspend(self) -> None:
        self._theme_at_suspend = self.app.theme

    def _on_screen_resume(self, event: ScreenResume) -> None:
        """Back from a dialog: the styles are not computed again for every widget when nothing they
        depend on changed meanwhile (the theme; the screen's own classes and focus restyle what they
        touch by themselves). Textual restyles the whole screen on every resume, which, with the
        full repaint that follows, made closing the type dialog on a full-text article the slowest
        step of adding a span. (Textual then runs ``Screen``'s own handler, which reads the flag.)"""
        if self._theme_at_suspend is not None and self._theme_at_suspend == self.app.theme:
            event.refresh_styles = False

    @property
    def corpus_app(self) -> AppHost:
        """The running app, seen through what screens use of it (``tui.host.AppHost``)."""
        return cast("AppHost", self.app)

    @property
    def facade(self) -> TuiFacade:
        return self.corpus_app.facade

    def fail(self, exc: BaseException, doing: str = "") -> None:
        """Tell the user why an action was refused (a CorpusError's message is written for people)."""
        msg = str(exc) if isinstance(exc, CorpusError) else f"{type(exc).__name__}: {exc}"
        self.notify(f"{doing}: {msg}" if doing else msg, severity="error", timeout=8)

    def help_sections(self) -> list[tuple[str, HelpRows]]:
        """Keys to list on the help screen, by section: this screen's, then the app's."""
        return [(str(self.title or type(self).__name__), binding_rows(self)), ("Everywhere", app_rows(self))]


def app_rows(screen: Screen[Any]) -> HelpRows:
    """The app's own keys plus Textual's palette and quit, which every screen has."""
    return binding_rows(
        screen.app,
        [
            ("ctrl+p", "Command palette: open a document, go to a screen"),
            ("ctrl+q", "Quit (everything is already saved)"),
        ],
    )


def binding_rows(node: DOMNode, extra: HelpRows = ()) -> HelpRows:  # type: ignore[assignment]
    """The bindings a node's class declares (not inherited noise), keys with one description together."""
    grouped: dict[str, list[str]] = {}
    for b in Binding.make_bindings(getattr(type(node), "BINDINGS", [])):
        if not b.description:
            continue
        display = b.key_display or node.app.get_key_display(b)
        grouped.setdefault(b.description, []).append(display or b.key)
    return [(" ".join(keys), desc) for desc, keys in grouped.items()] + list(extra)


class ReloadingScreen(BaseScreen):
    """A screen of data read from the store: read in a worker (the UI never blocks on the database),
    shown on the UI thread, and read again whenever the screen comes back or the user reloads."""

    LOADING = "load"
    """What loading does, for the error message: "cannot <LOADING>"."""

    def __init__(self) -> None:
        super().__init__()
        self.keys_wait = True
        """Until the first data is shown, keys typed wait in the app (``CorpusApp.keys_wait``): typing
        ahead after launch, or while a list loads, acts on the list once it is there."""

    def fetch(self) -> Any:
        """Read the data (runs in a worker thread; call the facade only)."""
        raise NotImplementedError

    def show(self, data: Any) -> None:
        """Put freshly read data on screen (runs on the UI thread)."""
        raise NotImplementedError

    def on_screen_resume(self) -> None:
        self.action_reload()

    def action_reload(self) -> None:
        self._load()

    @work(thread=True, exclusive=True, group="load")
    def _load(self) -> None:
        try:
            data = self.fetch()
        except CorpusError as exc:
            self.app.call_from_thread(self._shown, None, exc)
            return
        self.app.call_from_thread(self._shown, data, None)

    def _shown(self, data: Any, exc: CorpusError | None) -> None:
        """Show the data read (or why not); the keys typed ahead go on then, in their order."""
        if exc is not None:
            self.fail(exc, f"cannot {self.LOADING}")
        else:
            self.show(data)
        self.keys_wait = False  # the app sends the keys that waited
