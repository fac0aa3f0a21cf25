"""The decision history of one adjudicated item, as ``corpusdb decisions`` prints it.

Why the same rows: the adjudicator checking why an item is in gold (who took which version, what a
revision changed, what was undone) reads exactly what the lead reads in the CLI; the rows come from
``Corpus.decisions`` through ``corpusdb.workflow.revise.decision_row``, never recomputed here.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, Static

from corpusdb.workflow.revise import DECISION_COLUMNS, decision_row
from tui import keymap
from tui.widgets.tables import fill_table


class DecisionsScreen(ModalScreen[None]):
    """A read-only table of decisions (oldest first); Esc, Enter or the key that opened it closes."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("decisions")

    def __init__(self, title: str, decisions: Sequence[Any]) -> None:
        super().__init__()
        self.title_text = title
        self.decisions = list(decisions)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="decisions-dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield DataTable(id="decisions", cursor_type="row", zebra_stripes=True)
            n = len(self.decisions)
            revised = sum(1 for d in self.decisions if d.superseded_by is not None)
            total = f"total: {n} decision(s)" + (f"; {revised} revised or undone" if revised else "")
            yield Static(f"{total} · the same rows as `corpusdb decisions` · Esc: close",
                         classes="dialog-note", markup=False)  # fmt: skip

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        fill_table(table, DECISION_COLUMNS, [decision_row(d) for d in self.decisions])
        if self.decisions:
            table.move_cursor(row=len(self.decisions) - 1)  # the latest: the one in force, usually
        table.focus()

    def action_close(self) -> None:
        self.dismiss(None)
