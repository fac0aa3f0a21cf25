"""What every command shares: the global options, opening the corpus, printing data."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import typer

INTERRUPTED = "the change in progress was rolled back (nothing of it is stored); what was saved before stays"
"""What a Ctrl-C keeps, for a command that says nothing more precise (an :class:`Interrupted`)."""


class Interrupted(KeyboardInterrupt):
    """A Ctrl-C that a long command caught to say precisely what it kept (``note``: one line, printed
    by ``corpusdb.cli.main`` as ``corpusdb: interrupted: NOTE``, exit 130)."""

    def __init__(self, note: str) -> None:
        super().__init__(note)
        self.note = note


class Format(StrEnum):
    text = "text"
    json = "json"


@dataclass
class State:
    """Global options, set once by the main callback and read by every command."""

    db: str | None = None
    project: str | None = None
    user: str | None = None
    format: Format = Format.text
    _corpus: Any = field(default=None, repr=False)

    @property
    def url(self) -> str:
        from corpusdb.store import db

        return db.default_url(self.db)

    def corpus(self) -> Any:
        """The project, opened once per command as the ``--as`` user (or the owner)."""
        if self._corpus is None:
            from corpusdb.cli import loading

            with loading():  # the API and the domain load here, not with the command line
                from corpusdb.api import Corpus

            self._corpus = Corpus.open(self.project, url=self.url, user=self.user)
        return self._corpus


TYPES_MODES = ("required", "ignored", "merged")
TYPES_HELP = (
    "How span types count when spans are compared: required (the default: a span of another type does "
    "not match), ignored, or merged (into the classes --merge gives; the default when it is given)."
)
TYPES = typer.Option("--types", "-t", help=TYPES_HELP, show_default=False)
"""``-t/--types``: one option, one rule, on every command that compares spans (docs/cli/index.md)."""


def types_mode(types: str | None, *, merged: bool = False) -> str:
    """The one rule for ``--types`` (issue #26): what the user gave, else ``required``, or ``merged``
    when the command was given classes to merge. ``agree``, ``evaluate ner``, ``conflicts`` and
    ``adjudicate`` all count a span of another type as another span unless told otherwise."""
    if types is None:
        return "merged" if merged else "required"
    if types not in TYPES_MODES:
        from corpusdb.basics.errors import UsageError

        raise UsageError(f"--types must be one of {', '.join(TYPES_MODES)} (not {types!r})")
    return types


class LazyConsole:
    """A ``corpusdb.basics.terminal.SafeConsole`` made when something is first printed: rich's console
    (and the terminal probing it does) loads with the first output, not with the command line's
    modules (start-up, issue #26: ``corpusdb --help`` prints through click and never needs it)."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._console: Any = None

    @property
    def console(self) -> Any:
        """The real console (for rich objects that want one, e.g. ``Progress(console=...)``)."""
        if self._console is None:
            from corpusdb.basics.terminal import SafeConsole

            self._console = SafeConsole(**self._kwargs)
        return self._console

    def __getattr__(self, name: str) -> Any:
        return getattr(self.console, name)


out: Any = LazyConsole(soft_wrap=True)
err: Any = LazyConsole(stderr=True)


def state(ctx: typer.Context) -> State:
    st = ctx.find_root().obj
    if not isinstance(st, State):  # a command invoked without the main callback (tests)
        st = State()
        ctx.find_root().obj = st
    return st


def emit(st: State, data: Any, render: Callable[[], None]) -> None:
    """Data to stdout: JSON with ``--format json``, else the human rendering."""
    if st.format == Format.json:
        sys.stdout.write(json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")
    else:
        render()


PROGRESS_ENV = "CORPUSDB_PROGRESS"
"""``always``: draw progress bars on a terminal's stderr also when stdout is piped or redirected;
``never``: never draw them; unset (``auto``): only when stdout and stderr are both terminals."""


def _stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def progress_shown() -> bool:
    """Whether a long command draws its progress bar: on stderr, only when it is a terminal, and only
    when stdout is one too unless asked (``CORPUSDB_PROGRESS=always``): piped output gets no bar."""
    import os

    want = os.environ.get(PROGRESS_ENV, "auto").strip().lower()
    if want == "never" or not err.is_terminal:
        return False
    return want == "always" or _stdout_is_terminal()


class _NoBar:
    """The progress bar not drawn (``progress_shown()`` false): what commands call on a bar, doing
    nothing, so that a piped or scripted run never loads rich's progress module (start-up, issue #26)."""

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *_exc: object) -> None:
        return None

    def add_task(self, *_args: Any, **_kwargs: Any) -> int:
        return 0

    def update(self, *_args: Any, **_kwargs: Any) -> None:
        return None


def progress(description: str, total: int | None = None) -> Any:
    """A progress bar on stderr (drawn when ``progress_shown()``, else silent)."""
    if not progress_shown():
        return _NoBar()
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=getattr(err, "console", err), transient=True,  # a LazyConsole, or a Console (tests)
    )  # fmt: skip


@contextmanager
def progress_callback(description: str) -> Iterator[Callable[[int, int | None, str], None]]:
    """A bar (as ``progress``) and the ``(done, total, what)`` callback the Python API takes."""
    with progress(description) as bar:
        task = bar.add_task(description, total=None)

        def step(done: int, total: int | None, what: str) -> None:
            bar.update(task, completed=done, total=total, description=what or description)

        yield step
