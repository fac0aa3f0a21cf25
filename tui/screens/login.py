"""The login screen: the first screen of every served session and of ``corpusdb tui --login``.

A thin form over ``corpusdb.serving.gate.LoginGate``: a name, a password, one line for the answer.
It shows nothing of the project (not even its name) and offers nothing but logging in and quitting;
the check, the delay after a failure and the lockout run in a worker, never on the UI thread.

Why one widget for both fields rather than two ``Input``s: keys reach a widget through its own
message queue, so with two inputs the keys typed right behind Enter (a fast typist, a password
manager, a browser sending a burst) were still queued at the name when the focus moved, and landed
there. One widget takes every key in the order typed.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Static

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.screens.base import BaseScreen

MAX_NAME, MAX_PASSWORD = 64, 1024


class LoginForm(Widget, can_focus=True):
    """Two fields, name and password (shown as dots); Enter moves on, then logs in."""

    DEFAULT_CSS = "LoginForm { height: 2; }"
    KEYS = ("enter", "tab", "down", "shift+tab", "up", "backtab", "backspace", "escape")

    def __init__(self) -> None:
        super().__init__(id="login-form")
        self.name_value = ""
        self.password_value = ""
        self.field = 0
        """0: the name is being typed, 1: the password."""
        self.busy = False

    def render(self) -> Text:
        out = Text()
        for i, (label, shown) in enumerate(
            (("name", self.name_value), ("password", "•" * len(self.password_value)))
        ):
            active = i == self.field and not self.busy
            out.append(f"{'›' if active else ' '} {label:<9} ", style="bold" if active else "")
            out.append(shown[-40:], style="underline" if active else "")
            if active:
                out.append("▏", style="reverse")
            if i == 0:
                out.append("\n")
        return out

    def _edit(self, value: str) -> None:
        if self.field == 0:
            self.name_value = value[:MAX_NAME]
        else:
            self.password_value = value[:MAX_PASSWORD]
        self.refresh()

    def _current(self) -> str:
        return self.name_value if self.field == 0 else self.password_value

    def on_key(self, event: events.Key) -> None:
        if self.busy or not (event.is_printable or event.key in self.KEYS):
            return  # the app's keys (ctrl+q, ctrl+p, f1) stay the app's
        event.stop()
        event.prevent_default()
        if event.key == "enter":
            if self.field == 0:
                self.field = 1
                self.refresh()
            else:
                self.screen.submit()  # type: ignore[attr-defined]
        elif event.key in ("tab", "down", "shift+tab", "up", "backtab"):
            self.field = 1 - self.field
            self.refresh()
        elif event.key == "backspace":
            self._edit(self._current()[:-1])
        elif event.key == "escape":
            self.name_value = self.password_value = ""
            self.field = 0
            self.refresh()
        elif event.is_printable and event.character:
            self._edit(self._current() + event.character)

    def on_paste(self, event: events.Paste) -> None:
        event.stop()
        if not self.busy:
            self._edit(self._current() + event.text.splitlines()[0] if event.text else self._current())

    def on_click(self, event: events.Click) -> None:
        if not self.busy:
            self.field = 0 if event.y <= 0 else 1
            self.refresh()


class LoginScreen(BaseScreen):
    """Name and password; Enter after the password logs in."""

    HELP = (
        "Log in with your name and your password (your lead gives you both): type the name, Enter, the "
        "password, Enter. Tab moves between them, Escape clears both. ctrl+q quits."
    )
    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("login")
    DEFAULT_CSS = """
    LoginScreen { align: center middle; }
    LoginScreen > Vertical { width: 64; height: auto; border: round $accent; padding: 1 2; }
    LoginScreen #login-title { margin-bottom: 1; }
    LoginScreen #login-message { height: 2; margin-top: 1; color: $error; }
    """

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("corpusdb · log in", id="login-title", markup=False)
            yield LoginForm()
            yield Static("", id="login-message", markup=False)

    def on_mount(self) -> None:
        self.title = "Log in"
        self.set_focus(self.form)

    def on_key(self, event: events.Key) -> None:
        """A key that reached the screen itself is the form's: one typed before the form took the
        focus is handled here even when the form has the focus by now (a browser's first key, sent
        as the screen mounts, was lost that way). A key the form let bubble (ctrl+q, or any key
        while it checks) it lets pass again, so nothing is handled twice."""
        if not self.form.has_focus:
            self.set_focus(self.form)
        self.form.on_key(event)

    @property
    def form(self) -> LoginForm:
        return self.query_one(LoginForm)

    def submit(self) -> None:
        form = self.form
        if not form.name_value.strip():
            form.field = 0
            form.refresh()
            self.say("type your name first")
            return
        form.busy = True
        form.refresh()
        self.say("checking…")
        self._login(form.name_value, form.password_value)

    def say(self, line: str) -> None:
        self.query_one("#login-message", Static).update(line)

    @work(thread=True, exclusive=True, group="login")
    def _login(self, name: str, password: str) -> None:
        try:
            self.corpus_app.log_in(name, password)
        except CorpusError as exc:
            self.app.call_from_thread(self._refused, str(exc))
        except Exception as exc:  # a bug or a broken database: one line, never a traceback on the form
            self.app.call_from_thread(self._refused, f"cannot log in now: {type(exc).__name__}")

    def _refused(self, line: str) -> None:
        form = self.form
        form.busy = False
        form.password_value = ""
        form.field = 1
        form.refresh()
        self.say(line)
