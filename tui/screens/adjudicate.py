"""Adjudication: the queue of ready documents, and one document's conflicts resolved key by key.

Why this shape: opening a document runs the workflow's auto-merge (agreed items go into gold as
unanimous decisions), then every remaining conflict is one line; one key resolves it through
``Corpus.resolve`` (gold item and Decision in one transaction), and the list is re-read from the
workflow so the stable keys, counts and blocked relations are always the store's, never guessed.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from corpusdb.errors import CorpusError
from corpusdb.records import Annotations, DocLabel, Link, Relation, Span
from corpusdb.terminal import clean
from tui import adjudication as adj
from tui.facade import Adjudication
from tui.screens.base import BaseScreen, ReloadingScreen
from tui.screens.pickers import ChecklistScreen, Choice, MessageScreen, PickScreen, PromptScreen
from tui.widgets.docview import DocumentView
from tui.widgets.tables import fill_table


class QueueScreen(ReloadingScreen):
    """Documents whose annotation sets are all submitted, with their conflict counts."""

    HELP = "Documents ready for adjudication. Enter opens one (agreed items are merged into gold first)."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", show=False),
        Binding("R", "reload", "Reload"),
        Binding("P", "progress", "Progress"),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.docs: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("Loading…", id="summary", markup=False)
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = "Adjudication queue"
        self.sub_title = f"{self.facade.user} ({self.facade.role}) · {self.facade.project.name}"
        self.query_one(DataTable).focus()

    LOADING = "read the queue"

    def fetch(self) -> Any:
        return self.facade.queue()

    def show(self, entries: list[Any]) -> None:
        table = self.query_one(DataTable)
        keep = table.cursor_row
        self.docs = [e.document for e in entries]
        fill_table(
            table,
            ("document", "sets", "conflicts", "open", "gold"),
            [
                (
                    e.document,
                    str(e.sets),
                    str(e.conflicts),
                    str(e.open),
                    e.gold_status or ("none" if not e.has_gold else "?"),
                )
                for e in entries
            ],
            keys=self.docs,
        )
        if entries:
            table.move_cursor(row=min(keep, len(entries) - 1))
        open_ = sum(e.open for e in entries)
        self.query_one("#summary", Static).update(
            f"{len(entries)} document(s) ready · {open_} open conflict(s)"
            if entries
            else "No document is ready: every annotation set of a document must be submitted first."
        )

    @on(DataTable.RowSelected, "#queue")
    def _row_selected(self, event: DataTable.RowSelected) -> None:
        if event.row_key.value is not None:
            self.corpus_app.open_adjudication(str(event.row_key.value))

    def action_open(self) -> None:
        row = self.query_one(DataTable).cursor_row
        if 0 <= row < len(self.docs):
            self.corpus_app.open_adjudication(self.docs[row])

    def action_progress(self) -> None:
        self.corpus_app.show_progress()


class AdjudicateScreen(BaseScreen):
    """One document's conflicts: see the versions, resolve each with one key."""

    HELP = (
        "Each line is an item the annotators disagree on. a/b (or 1-9) take that annotator's version, "
        "x takes none, e edits one; the capital letter asks for a reason first. Gold and the decision "
        "are saved at once. A decided line can be decided again, or undone with u, until F finishes "
        "the document's gold (checked first: no open conflict). s shows the versions side by side."
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "take(0)", "Take A"),
        Binding("b", "take(1)", "Take B"),
        Binding("x", "reject", "Neither"),
        Binding("e", "edit", "Edit"),
        Binding("s", "toggle_sides", "Sides"),
        Binding("A", "take(0, True)", "Take A, with a reason", show=False),
        Binding("B", "take(1, True)", "Take B, with a reason", show=False),
        Binding("X", "reject(True)", "Neither, with a reason", show=False),
        Binding("E", "edit(True)", "Edit, with a reason", show=False),
        *[
            Binding(str(n), f"take({n - 1})", "Take that annotator's version", show=False)
            for n in range(1, 10)
        ],
        Binding("right_square_bracket,n", "next_open(1)", "Next open conflict", show=False),
        Binding("left_square_bracket,p", "next_open(-1)", "Previous open conflict", show=False),
        Binding("h", "toggle_agreed", "Show agreed items", show=False),
        Binding("u", "undo_decision", "Undo decision", show=False),
        Binding("F", "finish_gold", "Finish gold", show=False),
        Binding("R", "reload", "Reload", show=False),
        Binding("q", "close", "Close", show=False),
    ]

    def __init__(self, document: str) -> None:
        super().__init__()
        self.document = document
        self.adj: Adjudication | None = None
        self.shown: list[Any] = []
        self.show_agreed = False
        self.sides = False
        self._want_key: str | None = None

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="texts"):
                yield DocumentView(id="text")
                yield DocumentView(id="text-b")
            yield OptionList(id="conflicts", markup=False)
        yield Static("Merging agreed items…", id="variants", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"Adjudicate {self.document}"
        self.sub_title = f"{self.facade.user} · opening…"
        self.query_one("#text-b", DocumentView).display = False
        self.query_one("#conflicts", OptionList).focus()
        self._open(merge=True)

    @work(thread=True, exclusive=True, group="load")
    def _open(self, merge: bool = False) -> None:
        try:
            a = (self.facade.open_adjudication if merge else self.facade.reload_adjudication)(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"cannot adjudicate {self.document}")
            return
        self.app.call_from_thread(self._show, a)

    # -- showing ----------------------------------------------------------------------------------
    def _show(self, a: Adjudication) -> None:
        first = self.adj is None
        self.adj = a
        colors = self.facade.schema.colors()
        main, other = self.query_one("#text", DocumentView), self.query_one("#text-b", DocumentView)
        if first:
            main.load(a.text, (), colors)
            other.load(a.text, (), colors)
        self._paint_views()
        conflicts = list(a.conflicts.conflicts) if a.conflicts else []
        self.shown = [c for c in conflicts if self.show_agreed or not adj.is_agreed(c)]
        ol = self.query_one("#conflicts", OptionList)
        keep = ol.highlighted
        ol.set_options([Option(adj.conflict_label(c)) for c in self.shown])
        if self.shown:
            if self._want_key is not None:
                idx = next((i for i, c in enumerate(self.shown) if c.key == self._want_key), None)
                self._want_key = None
                if idx is None:
                    idx = self._next_open_from(keep or 0, 1)
            elif first:
                idx = self._next_open_from(-1, 1)
            else:
                idx = min(keep or 0, len(self.shown) - 1)
            ol.highlighted = idx if idx is not None else 0
        self._update_detail()
        dc = a.conflicts
        open_ = dc.open if dc else 0
        agreed = dc.agreed if dc else 0
        self.sub_title = f"{self.facade.user} · {open_} open · {agreed} agreed · gold {a.gold.info.status if a.gold else 'none'}"

    def _paint_views(self) -> None:
        a = self.adj
        if a is None:
            return
        main, other = self.query_one("#text", DocumentView), self.query_one("#text-b", DocumentView)
        if self.sides and len(a.sources) >= 2:
            for i, view in enumerate((main, other)):
                src = a.sources[i]
                view.set_spans(a.source_sets.get(src.set_id, _EMPTY).spans)
                # Content, not a str: a str border title is parsed as markup (annotator names are not)
                view.border_title = Content(clean(f"{adj.source_letter(i)} · {src.annotator or src.set_id}"))
        else:
            main.set_spans(a.gold.annotations.spans if a.gold else ())
            main.border_title = "gold so far (s: side by side)"

    def _current(self) -> Any | None:
        ol = self.query_one("#conflicts", OptionList)
        if ol.highlighted is None or not self.shown:
            return None
        return self.shown[ol.highlighted]

    def _update_detail(self) -> None:
        a = self.adj
        c = self._current()
        detail = self.query_one("#variants", Static)
        main, other = self.query_one("#text", DocumentView), self.query_one("#text-b", DocumentView)
        if a is None or c is None:
            detail.update("No conflict left on this document." if a else "")
            main.set_marks([])
            other.set_marks([])
            return
        detail.update(adj.describe(c, a.sources))
        ranges = adj.conflict_ranges(c, a.source_sets)
        for view in (main, other):
            view.set_marks(ranges)
            if ranges:
                view.move_to(ranges[0][0])

    @on(OptionList.OptionHighlighted, "#conflicts")
    def _highlighted(self) -> None:
        self._update_detail()

    def _next_open_from(self, start: int, step: int) -> int | None:
        n = len(self.shown)
        for k in range(1, n + 1):
            i = (start + step * k) % n
            c = self.shown[i]
            if c.decision is None:
                return i
        return None

    def action_next_open(self, step: int) -> None:
        ol = self.query_one("#conflicts", OptionList)
        i = self._next_open_from(ol.highlighted if ol.highlighted is not None else -1, step)
        if i is None:
            self.notify("no open conflict left on this document")
            return
        ol.highlighted = i

    def action_toggle_agreed(self) -> None:
        self.show_agreed = not self.show_agreed
        if self.adj is not None:
            c = self._current()
            self._want_key = c.key if c else None
            self._show(self.adj)

    def action_toggle_sides(self) -> None:
        a = self.adj
        if a is None or len(a.sources) < 2:
            return
        self.sides = not self.sides
        self.query_one("#text-b", DocumentView).display = self.sides
        self._paint_views()
        self._update_detail()
        names = " | ".join(f"{adj.source_letter(i)}={s.annotator}" for i, s in enumerate(a.sources[:2]))
        self.notify(f"side by side: {names} (top | bottom)" if self.sides else "merged: gold so far")

    def action_reload(self) -> None:
        self._open()

    def action_close(self) -> None:
        self.dismiss(None)

    # -- resolving --------------------------------------------------------------------------------
    def _open_conflict(self) -> Any | None:
        c = self._current()
        if c is None:
            return None
        if self._finished():
            return None
        return c  # a decided conflict is decided again: a revision, kept in the history

    def _finished(self) -> bool:
        """Finished gold is frozen: say so instead of trying (a lead reopens it, or `corpusdb correct`)."""
        a = self.adj
        if a is not None and a.gold is not None and a.gold.info.status == "submitted":
            self.notify(
                "gold is finished: a lead reopens it, or corrects it (`corpusdb correct`)", severity="warning"
            )
            return True
        return False

    async def _reason(self, wanted: bool) -> str | bool | None:
        """The reason typed (None: none wanted; False: the user cancelled)."""
        if not wanted:
            return None
        text = await self.app.push_screen_wait(
            PromptScreen("Reason for this decision", placeholder="optional")
        )
        return False if text is None else (text or None)

    @work(exclusive=True, group="dialog")
    async def action_take(self, index: int, with_reason: bool = False) -> None:
        a = self.adj
        c = self._open_conflict()
        if a is None or c is None:
            return
        if index >= len(a.sources):
            self.notify(f"this document has {len(a.sources)} source(s)", severity="warning")
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        src = a.sources[index]
        self._resolve(
            c.key, dict(take=src.annotator or src.set_id), reason, f"took {adj.source_letter(index)}"
        )

    @work(exclusive=True, group="dialog")
    async def action_reject(self, with_reason: bool = False) -> None:
        c = self._open_conflict()
        if c is None:
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        self._resolve(c.key, dict(reject=True), reason, "took neither")

    @work(exclusive=True, group="dialog")
    async def action_edit(self, with_reason: bool = False) -> None:
        """Start from one version and change its type (span, link), label and tags (relation) or value."""
        a = self.adj
        c = self._open_conflict()
        if a is None or c is None:
            return
        present = [v for v in c.variants if not v.absent]
        if not present:
            return
        if len(present) == 1:
            base = present[0]
        else:
            rows = dict(zip([id(v) for v in c.variants], adj.variant_rows(c, a.sources), strict=True))
            picked = await self.app.push_screen_wait(
                PickScreen(
                    "Start from which version?",
                    [Choice(i, f"{rows[id(v)][0]}: {rows[id(v)][1]}") for i, v in enumerate(present)],
                    filterable=False,
                )
            )
            if picked is None:
                return
            base = present[int(picked)]
        item = await self._edited(base, a)
        if item is None:
            return
        if isinstance(item, str):
            self.notify(item, severity="warning")
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        src = base.sources[0]  # provenance: edited from this version
        self._resolve(
            c.key, dict(item=item, take=f"{src.annotator or src.set_id}:{src.local_id}"), reason, "edited"
        )

    async def _edited(self, variant: Any, a: Adjudication) -> Any | None:
        schema = self.facade.schema
        item = variant.item
        if isinstance(item, Span):
            t = await self.app.push_screen_wait(
                PickScreen(
                    f"Type for «{item.text}»",
                    [Choice(e.name, e.name) for e in schema.entities],
                    initial=item.type,
                )
            )
            return None if t is None else replace(item, type=str(t), extra={})
        if isinstance(item, DocLabel):
            d = schema.document_label(item.name)
            values = [str(v.value) for v in d.values] if d else [item.value]
            v = await self.app.push_screen_wait(
                PickScreen(f"{item.name} =", [Choice(x, x) for x in values], initial=item.value)
            )
            return None if v is None else DocLabel(item.name, str(v))
        source = a.source_sets.get(variant.sources[0].set_id)
        gold = a.gold.annotations if a.gold else None
        if source is None or gold is None:
            return "the sources or the gold set are not loaded: reload (R)"
        if isinstance(item, Relation):
            rtype = schema.relation(item.type)
            label, tags = item.label, item.tags
            ls = schema.label_set(rtype.labels) if rtype and rtype.labels else None
            if ls is not None:
                picked = await self.app.push_screen_wait(
                    PickScreen(
                        "Label",
                        [
                            Choice(v.value, f"{v.name} ({v.value})", key=v.key or str(v.value))
                            for v in ls.values
                        ],
                        filterable=False,
                        initial=label,
                    )
                )
                if picked is None:
                    return None
                label = int(picked)
            if rtype and rtype.tags:
                chosen = await self.app.push_screen_wait(ChecklistScreen("Tags", rtype.tags, tags))
                if chosen is None:
                    return None
                tags = chosen
            return adj.to_gold_refs(replace(item, label=label, tags=tuple(tags)), source, gold)
        if isinstance(item, Link):
            t = await self.app.push_screen_wait(
                PickScreen("Link type", [Choice(lt.name, lt.name) for lt in schema.links], initial=item.type)
            )
            return None if t is None else adj.to_gold_refs(replace(item, type=str(t)), source, gold)
        return None

    @work(thread=True, exclusive=True, group="resolve")
    def _resolve(self, key: str, how: dict[str, Any], reason: str | None, what: str) -> None:
        try:
            res = self.facade.resolve(self.document, key, reason=reason, expected_version=self._seen(), **how)
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"{key} not resolved")
            return
        self.app.call_from_thread(self._resolved, res, fresh, what)

    def _resolved(self, res: Any, fresh: Adjudication, what: str) -> None:
        ol = self.query_one("#conflicts", OptionList)
        here = ol.highlighted or 0
        nxt = self._next_open_from(here, 1)
        self._want_key = self.shown[nxt].key if nxt is not None and self.shown[nxt].key != res.key else None
        self.notify(f"{res.key}: {what} · {res.open} open conflict(s) left")
        self._show(fresh)

    # -- revising and finishing (issue #15) --------------------------------------------------------------
    def _seen(self) -> int | None:
        """The gold version on screen: a decision made on it loses to one another person made since."""
        a = self.adj
        return a.gold.info.version if a is not None and a.gold is not None else None

    @work(exclusive=True, group="dialog")
    async def action_undo_decision(self) -> None:
        """Undo the highlighted conflict's decision: open again; relations resting on it leave gold."""
        c = self._current()
        if c is None or self._finished():
            return
        if c.decision is None:
            self.notify(f"{c.key} is not decided: nothing to undo", severity="warning")
            return
        self._undo(c.key)

    @work(thread=True, exclusive=True, group="resolve")
    def _undo(self, key: str) -> None:
        try:
            res = self.facade.undo_decision(self.document, key, expected_version=self._seen())
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"{key} not undone")
            return
        self._want_key = key
        also = f" · also out of gold: {', '.join(res.undone)}" if res.undone else ""
        self.app.call_from_thread(self.notify, f"{key}: decision undone{also} · {res.open} open conflict(s)")
        self.app.call_from_thread(self._show, fresh)

    @work(exclusive=True, group="dialog")
    async def action_finish_gold(self) -> None:
        """Check the document's gold, show the result, and finish it on confirmation."""
        if self.adj is None or self._finished():
            return
        try:
            check = self.facade.check_gold(self.document)
        except CorpusError as exc:
            self.fail(exc, "cannot check gold")
            return
        errors = [v for v in check.violations if v.severity == "error"]
        lines = [f"open: {k}" + (f" (blocked: {dict(check.blocked)[k]})" if k in dict(check.blocked) else "")
                 for k in check.open] + [str(v) for v in check.violations]  # fmt: skip
        body = "\n".join(lines) or "No open conflict, no schema problem."
        if check.open:
            answers = {"enter": ("close", "close")}
        elif errors:
            answers = {"f": ("force", "finish anyway")}
        else:
            answers = {"enter": ("finish", "finish")}
        title = f"Finish the gold of {self.document}? {check.summary()}"
        answer = await self.app.push_screen_wait(MessageScreen(title, body, answers))
        if answer in ("finish", "force"):
            self._finish(answer == "force")

    @work(thread=True, exclusive=True, group="resolve")
    def _finish(self, force: bool) -> None:
        try:
            self.facade.finish_gold(self.document, force=force)
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "gold not finished")
            return
        self.app.call_from_thread(self.notify, f"{self.document}: gold finished; decisions are frozen")
        self.app.call_from_thread(self._show, fresh)


_EMPTY = Annotations()
