"""The annotator's home: my assigned documents with status and progress; Enter opens one."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import DataTable, Footer, Header, Static

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.facade import DocRow
from tui.screens.base import ReloadingScreen
from tui.widgets.tables import fill_table

STATUS_MARK = {"assigned": "·", "in_progress": "…", "submitted": "✓"}


class DocumentsScreen(ReloadingScreen):
    """My documents. The list is re-read whenever the screen comes back (after annotating one)."""

    HELP = (
        "Your assigned documents. Enter opens one; ctrl+p finds a document by name; / searches the corpus. "
        "#N: your queue's order (the lead's assign --order); from a system: a system's items copied into "
        "your set (pre-annotated) or suggestions waiting for you to accept or reject them."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("documents")

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[DocRow] = []
        self._warmed = False

    @work(thread=True, exclusive=True, group="warm")
    def _warm(self) -> None:
        with contextlib.suppress(CorpusError):  # a model that cannot be read is said when a document opens
            self.facade.warm_recommenders()

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading…", id="summary", markup=False)
        yield DataTable(id="docs", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "My documents"
        self.sub_title = f"{self.facade.user} · {self.facade.project.name}"
        self.query_one(DataTable).focus()

    LOADING = "list documents"

    def fetch(self) -> Any:
        return self.facade.my_documents()

    def show(self, rows: list[DocRow]) -> None:
        self.rows = rows
        if not self._warmed:  # the recommenders' models, built while the list is read
            self._warmed = True
            self._warm()
        table = self.query_one(DataTable)
        keep = table.cursor_row
        fill_table(
            table,
            ("document", "status", "spans", "rels", "links", "labels", "version", "from a system"),
            [
                (
                    (f"#{r.rank} " if r.rank is not None else "") + r.document,
                    f"{STATUS_MARK.get(r.status, '?')} {r.status}" + (" · skipped" if r.skipped else ""),
                    str(r.spans),
                    str(r.relations),
                    str(r.links),
                    str(r.labels),
                    f"v{r.version}",
                    _from_system(r),
                )
                for r in rows
            ],
            keys=[r.document for r in rows],
        )
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
        done = sum(1 for r in rows if r.status == "submitted")
        started = sum(1 for r in rows if r.status == "in_progress")
        self.query_one("#summary", Static).update(
            f"{len(rows)} document(s): {done} submitted, {started} in progress, "
            f"{len(rows) - done - started} not started"
            if rows
            else "No document is assigned to you yet."
        )

    @on(DataTable.RowSelected, "#docs")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.corpus_app.open_document(str(event.row_key.value))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if self.rows and 0 <= table.cursor_row < len(self.rows):
            self.corpus_app.open_document(self.rows[table.cursor_row].document)


def _from_system(r: DocRow) -> str:
    """Which a document has: a system's items copied in (pre-annotated), suggestions, both, or none."""
    parts = (["pre-annotated"] if r.seeded else []) + (
        [f"{r.suggestions} suggestions"] if r.suggestions else []
    )
    return ", ".join(parts)
