"""Terminal output that user-supplied strings cannot take over.

Why: names, document ids, reasons and file names come from users and files. Rich reads ``[...]`` in
a string as markup (an annotator named ``[/]`` broke ``status``; ``[bold red]bob`` showed as "bob"),
and an escape sequence in a name would reach the terminal as a command. Every console the CLI and the
reports print through is a ``SafeConsole``: markup is off (styles are given as ``style=``, never
inside strings) and control characters are replaced by ``?`` in every string Rich renders, table
cells and titles included.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.text import Text

from corpusdb.basics.controls import clean, has_control

__all__ = ["SafeConsole", "clean", "has_control"]


class SafeConsole(Console):
    """A Rich console with markup off and control characters cleaned from every string it renders."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("markup", False)
        kwargs.setdefault("highlight", False)
        kwargs.setdefault("emoji", False)
        super().__init__(**kwargs)

    def render_str(self, text: str, **kwargs: Any) -> Text:
        kwargs["markup"] = False
        kwargs["emoji"] = False
        return super().render_str(clean(text), **kwargs)

    def on_broken_pipe(self) -> None:
        """The reader closed the pipe (``corpusdb agree | head -1``): raise, so that the CLI ends as
        other Unix tools do (Rich's own answer is ``SystemExit(1)``, which reads as an internal error)."""
        import errno

        self.quiet = True
        raise BrokenPipeError(errno.EPIPE, "the output pipe was closed")
