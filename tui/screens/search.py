"""The corpus search screen (``/`` from the document list, the queue or the lead view; the palette's
"Search the corpus"): type a query, see its hits as KWIC lines, Enter opens a document at a hit.

What the hits are and who sees what is the API's (``Corpus.search``: an annotator's search sees
every text and her own sets only). On the list of hits: ``a`` annotates every hit as a type in my
own sets (one step: ``u`` undoes it), ``C`` corrects gold at every hit (leads and adjudicators:
another type, delete, or new gold spans at places in the text; one correction per hit, with a
reason).
"""

from __future__ import annotations

from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.widgets import DataTable, Header, Input, Static

from corpusdb.basics.errors import CorpusError
from corpusdb.search import kwic
from tui import keymap
from tui.screens.base import BaseScreen
from tui.screens.pickers import Choice, MessageScreen, PickScreen, PromptScreen
from tui.widgets.footer import Footer
from tui.widgets.tables import fill_table

LIMIT = 500


class SearchScreen(BaseScreen):
    """Search the corpus; each hit a row; Enter opens its document there."""

    HELP = (
        'Search the corpus: words, "a phrase", kin* (prefix), /regex/, and fields type:T text:W attr:A=V '
        "grounding:ID label:W rel:TYPE annotator:NAME status:S doc:ID agree:|disagree:|disagree-type:A,B; "
        "-TERM negates. Enter opens a document at a hit; a annotates every hit (u undoes it), C corrects gold at every hit."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("search")

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.query_text = query
        self.hits: list[Any] = []
        self.last_bulk: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(
            value=self.query_text, placeholder='words, "a phrase", /regex/, type:T ... (Enter)', id="query"
        )
        yield Static("Type a query, Enter searches.", id="search-summary", markup=False)
        yield DataTable(id="hits", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Search"
        self.sub_title = f"{self.facade.user} · {self.facade.project.name}"
        self.query_one(Input).focus()
        if self.query_text:
            self._search(self.query_text)

    def action_focus_query(self) -> None:
        self.query_one(Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)

    @on(Input.Submitted, "#query")
    def _submitted(self, event: Input.Submitted) -> None:
        if event.value.strip():
            self.query_text = event.value.strip()
            self._search(self.query_text)

    @work(thread=True, exclusive=True, group="search")
    def _search(self, query: str) -> None:
        try:
            res = self.facade.search(query, limit=LIMIT)
        except CorpusError as exc:
            self.app.call_from_thread(self._refused, exc)
            return
        self.app.call_from_thread(self._show, res)

    def _refused(self, exc: CorpusError) -> None:
        """A refused or malformed query: no hits shown (not the last query's), and why."""
        self.hits = []
        fill_table(self.query_one(DataTable), ("document", "at", "what", "in context"), [], keys=[])
        self.query_one("#search-summary", Static).update(f"Not searched: {exc}")
        self.fail(exc, "search")

    def _show(self, res: Any) -> None:
        self.hits = list(res.hits)
        table = self.query_one(DataTable)
        fill_table(
            table,
            ("document", "at", "what", "in context"),
            [(h.document, kwic.where(h), kwic.what(h), _context(h)) for h in self.hits],
            keys=[str(i) for i in range(len(self.hits))],
        )
        more = f" (the first {LIMIT}; `corpusdb search --count` counts them all)" if res.more else ""
        what = "place(s) in the texts" if res.finds == "text" else "span(s)"
        self.query_one("#search-summary", Static).update(
            f"{len(self.hits)} {what}{more} · {res.scope} · Enter opens one"
            if self.hits
            else f"No hit for {res.query} ({res.scope})."
        )
        if self.hits:
            table.focus()

    # -- opening a document at a hit ----------------------------------------------------------------
    @on(DataTable.RowSelected, "#hits")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.open_hit(int(event.row_key.value))

    def open_hit(self, index: int) -> None:
        h = self.hits[index]
        at = (h.start, h.stop)
        if self.facade.role in ("annotator", "system"):
            self.corpus_app.open_document(h.document, at=at, query=self.query_text)
        else:
            self.corpus_app.open_adjudication(h.document, at=at)

    # -- bulk actions on every hit ------------------------------------------------------------------
    def _need_hits(self) -> bool:
        if not self.hits:
            self.notify("search first: the action applies to every hit", severity="warning")
            return False
        return True

    async def _pick_type(self, title: str) -> str | None:
        choices = [Choice(e.name, e.name, e.name, key=e.key) for e in self.facade.schema.entities]
        return await self.app.push_screen_wait(PickScreen(title, choices, hotkeys=True))  # type: ignore[no-any-return]

    @work(exclusive=True, group="dialog")
    async def action_annotate_hits(self) -> None:
        if not self._need_hits():
            return
        if self.facade.role not in ("annotator", "system"):
            self.notify("annotating hits writes your own sets: annotators only", severity="warning")
            return
        typ = await self._pick_type(f"Annotate every hit of {self.query_text} as")
        if typ is not None:
            self._annotate(typ)

    @work(thread=True, exclusive=True, group="bulk")
    def _annotate(self, typ: str) -> None:
        try:
            got = self.facade.search_annotate(self.query_text, typ)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "not annotated")
            return
        self.app.call_from_thread(self._annotated, got)

    def _annotated(self, got: Any) -> None:
        self.last_bulk = got.bulk_id if not got.undone else None
        verb = "removed" if got.undone else "added"
        skipped = f"; {len(got.skipped)} document(s) skipped ({got.skipped[0][1]})" if got.skipped else ""
        undo = " · u undoes it" if not got.undone else ""
        self.notify(
            f"{got.total} {got.type} span(s) {verb} in {len(got.added)} set(s){skipped}{undo}", timeout=8
        )
        self._search(self.query_text)

    def action_undo_bulk(self) -> None:
        if self.last_bulk is None:
            self.notify("no bulk annotation of this screen to undo", severity="warning")
            return
        self._undo(self.last_bulk)

    @work(thread=True, exclusive=True, group="bulk")
    def _undo(self, bulk_id: str) -> None:
        try:
            got = self.facade.search_undo(bulk_id)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "not undone")
            return
        self.app.call_from_thread(self._annotated, got)

    @work(exclusive=True, group="dialog")
    async def action_correct_hits(self) -> None:
        if not self._need_hits():
            return
        if not self.facade.can_adjudicate:
            self.notify("correcting gold is for adjudicators and leads", severity="warning")
            return
        spans = self.hits[0].item is not None
        answers = (
            {"t": ("type", "another type"), "d": ("delete", "delete them")}
            if spans
            else {"a": ("add", "a new gold span at each")}
        )
        what = "the gold spans among the hits" if spans else "every place in the text"
        action = await self.app.push_screen_wait(
            MessageScreen(
                f"Correct gold: {self.query_text}", f"Applies to {what}; each is one correction.", answers
            )
        )
        if action is None:
            return
        typ = None
        if action in ("type", "add"):
            typ = await self._pick_type("New type" if action == "type" else "Type of the new gold spans")
            if typ is None:
                return
        reason = await self.app.push_screen_wait(
            PromptScreen(
                "Why? (the next release's change log lists every correction with it)",
                placeholder="e.g. guideline 3.2: strains are Bacteria",
                check=lambda v: None if v.strip() else "a correction needs a reason",
            )
        )
        if reason:
            self._correct(action, typ, reason)

    @work(thread=True, exclusive=True, group="bulk")
    def _correct(self, action: str, typ: str | None, reason: str) -> None:
        try:
            fixed = self.facade.search_correct(
                self.query_text, reason=reason, set_type=typ if action == "type" else None,
                delete=action == "delete", add_type=typ if action == "add" else None,
            )  # fmt: skip
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "not corrected")
            return
        self.app.call_from_thread(self._corrected, fixed)

    def _corrected(self, fixed: list[Any]) -> None:
        docs = len({c.document for c in fixed})
        self.notify(f"{len(fixed)} correction(s) in {docs} document(s), each with the reason", timeout=8)
        self._search(self.query_text)


def _context(h: Any, width: int = 30) -> str:
    left = kwic.flat(h.left)[-width:]
    return f"{left.rjust(width)}[{kwic.flat(h.text)}]{kwic.flat(h.right)[:width]}"
