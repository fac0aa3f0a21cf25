"""Reading screens: the help (built from the live bindings, so it never drifts) and the guidelines."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Markdown, Static

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.screens.base import HelpRows
from tui.widgets.footer import Footer


class HelpScreen(ModalScreen[None]):
    """Every key of the screen below, by section, with what it is for."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("help")

    def __init__(self, title: str, intro: str, sections: list[tuple[str, HelpRows]]) -> None:
        super().__init__()
        self.title_text = title
        self.intro = intro
        self.sections = sections

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog full", id="help"):
            yield Static(Text(self.title_text, style="bold"))
            if self.intro:
                yield Static(Text(self.intro))
            for name, rows in self.sections:
                if not rows:
                    continue
                table = Table(title=name, title_justify="left", show_header=False, box=None, expand=True)
                table.add_column("keys", style="bold", no_wrap=True, max_width=26)
                table.add_column("does")
                for keys, desc in rows:
                    table.add_row(keys, desc)
                yield Static(table)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#help", VerticalScroll).focus()  # arrows and page keys scroll it

    def action_close(self) -> None:
        self.dismiss(None)


class GuidelineScreen(ModalScreen[None]):
    """The guideline text of the project's current version (Markdown), one key from anywhere."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("guideline")

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog full", id="guideline"):
            yield Static("Loading the guidelines…", id="guideline-head", markup=False)
            yield Markdown("", id="guideline-text")
        yield Footer()

    def on_mount(self) -> None:
        self._load()

    @work(thread=True, exclusive=True)
    def _load(self) -> None:
        try:
            g = self.app.facade.guideline()  # type: ignore[attr-defined]
        except CorpusError as exc:
            self.app.call_from_thread(self.notify, str(exc), severity="error")
            return
        head = f"Guidelines v{g.version} ({g.schema_name}) — {g.note}"
        self.app.call_from_thread(self._show, head, g.text or "_This project has no guideline text._")

    async def _show(self, head: str, text: str) -> None:
        # Why await: ``Markdown.update`` parses and mounts its blocks later; awaiting it keeps the
        # loading worker running until the text is on the screen, so "loaded" means "shown" (the
        # guideline test read the screen between the two and failed now and then).
        self.query_one("#guideline-head", Static).update(head)
        await self.query_one("#guideline-text", Markdown).update(text)
        self.query_one("#guideline", VerticalScroll).focus()

    def action_close(self) -> None:
        self.dismiss(None)
