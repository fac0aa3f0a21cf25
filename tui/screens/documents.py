"""The annotator's home: my assigned documents with status and progress; Enter opens one."""

from __future__ import annotations

import contextlib
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.events import Key
from textual.widgets import DataTable, Header, Input, Static

from corpusdb.basics.errors import CorpusError
from tui import keymap
from tui.colours import type_colours
from tui.facade import DocRow
from tui.screens.base import ReloadingScreen
from tui.widgets.footer import Footer
from tui.widgets.tables import fill_table

STATUS_MARK = {"assigned": "·", "in_progress": "…", "submitted": "✓"}


class DocumentsScreen(ReloadingScreen):
    """My documents. The list is re-read whenever the screen comes back (after annotating one)."""

    HELP = (
        "Your assigned documents, ids in natural order (dev.2 before dev.10). Enter opens one; typing "
        "filters the list at once (words of an id, a title, a status or what is left to do; Enter opens "
        "the first, Esc clears); ctrl+p finds a document by name; / searches the corpus. #N: your "
        "queue's order (the lead's assign --order); to do: what is left for you on it; from a system: a "
        "system's items copied into your set (pre-annotated) or suggestions waiting for you to accept "
        "or reject them; title: the document's title, else its text's beginning."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("documents")

    DEFAULT_CSS = """
    DocumentsScreen #filter { height: 1; border: none; padding: 0 1; margin: 0; }
    DocumentsScreen #filter:focus { background: $boost; }
    """

    def __init__(self) -> None:
        super().__init__()
        self.all_rows: list[DocRow] = []
        """Every document of mine, in list order."""
        self.rows: list[DocRow] = []
        """The rows shown (those the filter keeps)."""
        self._warmed = False

    @work(thread=True, exclusive=True, group="warm")
    def _warm(self) -> None:
        with contextlib.suppress(CorpusError):  # a model that cannot be read is said when a document opens
            self.facade.warm_recommenders()
        type_colours(self.facade.schema)  # the schema's colours, placed once (memoised) off the UI thread

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading…", id="summary", markup=False)
        yield Input(placeholder="type to filter: words of an id, a title, a status or a to do", id="filter")
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
        self.all_rows = rows
        if not self._warmed:  # the recommenders' models, built while the list is read
            self._warmed = True
            self._warm()
        self._fill()

    def _fill(self) -> None:
        """Show the rows the filter keeps (every word typed must be in the row's text)."""
        all_rows = self.all_rows
        words = self.query_one("#filter", Input).value.casefold().split()
        rows = [r for r in all_rows if all(w in _haystack(r) for w in words)] if words else list(all_rows)
        self.rows = rows
        table = self.query_one(DataTable)
        keep = table.cursor_row
        seeded = any(r.seeded or r.suggestions for r in rows)
        columns = ["document", "status", "to do", "items"] + (["from a system"] if seeded else []) + ["title"]
        cells = [
            [
                (f"#{r.rank} " if r.rank is not None else "") + r.document,
                f"{STATUS_MARK.get(r.status, '?')} {r.status}" + (" · skipped" if r.skipped else ""),
                r.todo,
                _items(r),
                *([_from_system(r)] if seeded else []),
                r.title,
            ]
            for r in rows
        ]
        # the title takes the room the other columns leave (each column has 2 cells of padding)
        used = sum(max([len(c), *(len(row[i]) for row in cells)]) + 2 for i, c in enumerate(columns[:-1]))
        room = max(12, (table.size.width or self.size.width or 80) - used - 3)
        from tui.items import short  # lazily: tui.items loads the store (the first frame comes first)

        for row in cells:
            row[-1] = short(row[-1], room)
        fill_table(table, columns, cells, keys=[r.document for r in rows])
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
        done = sum(1 for r in all_rows if r.status == "submitted")
        started = sum(1 for r in all_rows if r.status == "in_progress")
        shown = f" · {len(rows)} shown" if words else ""
        self.query_one("#summary", Static).update(
            f"{len(all_rows)} document(s): {done} submitted, {started} in progress, "
            f"{len(all_rows) - done - started} not started{shown}"
            if all_rows
            else "No document is assigned to you yet."
        )

    def on_resize(self, _event: object) -> None:
        """A new width: the title column takes what the others leave."""
        if self.all_rows:
            self.call_after_refresh(self._fill)

    @on(Input.Changed, "#filter")
    def _filtered(self, _event: Input.Changed) -> None:
        self._fill()

    @on(Input.Submitted, "#filter")
    def _filter_submitted(self) -> None:
        """Enter in the filter opens the highlighted (first) document shown."""
        self.action_open()

    def on_key(self, event: Key) -> None:
        """Filter as you type: a character no key of this screen takes, typed in the list, starts
        the filter with it. In the filter: down/up move in the list, Esc clears it and goes back."""
        box = self.query_one("#filter", Input)
        table = self.query_one(DataTable)
        if self.focused is table:
            char = event.character
            if char and char.isprintable() and not char.isspace() and event.key not in self.active_bindings:
                event.stop()
                event.prevent_default()
                box.focus()
                box.insert_text_at_cursor(char)
            return
        if self.focused is not box:
            return
        if event.key in ("down", "up"):
            event.stop()
            event.prevent_default()
            table.move_cursor(row=table.cursor_row + (1 if event.key == "down" else -1))
        elif event.key == "escape":
            event.stop()
            event.prevent_default()
            box.value = ""
            table.focus()

    @on(DataTable.RowSelected, "#docs")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.corpus_app.open_document(str(event.row_key.value))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if self.rows and 0 <= table.cursor_row < len(self.rows):
            self.corpus_app.open_document(self.rows[table.cursor_row].document)


def _haystack(r: DocRow) -> str:
    """What the filter matches a row against."""
    return f"{r.document} {r.status} {r.todo} {r.title}".casefold() + (" skipped" if r.skipped else "")


def _items(r: DocRow) -> str:
    """``3 spans 1 rel``: the non-zero counts of what my set holds."""
    parts = [(r.spans, "span"), (r.relations, "rel"), (r.links, "link"), (r.labels, "label")]
    return " ".join(f"{n} {w}{'s' if n > 1 else ''}" for n, w in parts if n) or "empty"


def _from_system(r: DocRow) -> str:
    """Which a document has: a system's items copied in (pre-annotated), suggestions, both, or none."""
    parts = (["pre-annotated"] if r.seeded else []) + (
        [f"{r.suggestions} suggestions"] if r.suggestions else []
    )
    return ", ".join(parts)
