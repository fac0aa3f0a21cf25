"""What every command shares: the global options, opening the corpus, printing data."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import typer

from corpusdb.basics.terminal import SafeConsole

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
        from corpusdb.store import db  # SQLAlchemy: not before ``corpusdb tui`` paints (issue #25.11)

        return db.default_url(self.db)

    def corpus(self) -> Any:
        """The project, opened once per command as the ``--as`` user (or the owner)."""
        if self._corpus is None:
            from corpusdb.api import Corpus

            self._corpus = Corpus.open(self.project, url=self.url, user=self.user)
        return self._corpus


out = SafeConsole(soft_wrap=True)
err = SafeConsole(stderr=True)


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


def progress(description: str, total: int | None = None) -> Any:
    """A progress bar on stderr (silent when stderr is not a terminal)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(
        TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
        console=err, transient=True, disable=not err.is_terminal,
    )  # fmt: skip
