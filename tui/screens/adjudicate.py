"""Adjudication: the queue of ready documents, and one document's conflicts resolved key by key.

Why this shape: opening a document runs the workflow's auto-merge (agreed items go into gold as
unanimous decisions), then every remaining conflict is one line; one key resolves it through
``Corpus.resolve`` (gold item and Decision in one transaction), and the list is re-read from the
workflow so the stable keys, counts and blocked relations are always the store's, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, Footer, Header, OptionList, Static
from textual.widgets.option_list import Option

from corpusdb.basics.errors import CorpusError, DecidedMeanwhile
from corpusdb.basics.records import Annotations, Argument, DocLabel, Link, Relation, Span
from corpusdb.basics.terminal import clean
from corpusdb.workflow.types import open_summary
from tui import adjudication as adj
from tui import clusters as cl
from tui.facade import Adjudication
from tui.items import short, span_label, spans_near
from tui.relations import undirected_types
from tui.screens.base import BaseScreen, HelpRows, ReloadingScreen, app_rows, binding_rows
from tui.screens.gold_edit import GoldEditScreen, editor_rows
from tui.screens.pickers import ChecklistScreen, Choice, MessageScreen, PickScreen, PromptScreen
from tui.textmodel import trim
from tui.widgets.docview import DocumentView
from tui.widgets.tables import fill_table


class QueueScreen(ReloadingScreen):
    """Documents whose annotation sets are all submitted, with their conflict counts."""

    HELP = "Documents ready for adjudication. Enter opens one (agreed items are merged into gold first)."

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "open", "Open", show=False),
        Binding("R", "reload", "Reload"),
        Binding("P", "progress", "Progress"),
        Binding("slash", "app.search_corpus", "Search the corpus", show=False),
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
        "x takes none, e changes one's type or label, m edits it fully (boundaries, type, attributes, "
        "groundings; a relation's type, label, tags, arguments); the capital letter asks for a reason "
        "first; on a decided conflict, or in the gold text (tab), m edits that gold item in place. + puts "
        "a gold span on the selected text, r a relation between gold spans. Gold and the decision are "
        "saved at once. s shows the annotators' versions side by side (columns beside the gold from "
        "140 columns). A decided line can be decided again, or undone with u, until F finishes the "
        "document's gold (checked first: no open conflict). The item's relation partners are pink in "
        "each text (in a text with the focus: those of the span under the cursor)."
    )

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "take(0)", "Take A"),
        Binding("b", "take(1)", "Take B"),
        Binding("x", "reject", "Neither"),
        Binding("e", "edit", "Quick edit: type or label", show=False),
        Binding("m", "modify", "Edit"),
        Binding("s", "toggle_sides", "Sides"),
        Binding("plus", "new_span", "New gold span (on the selection)", show=False),
        Binding("r", "new_relation", "New gold relation", show=False),
        Binding("delete", "remove_gold", "Remove the gold span under the gold text's cursor", show=False),
        Binding("A", "take(0, True)", "Take A, with a reason", show=False),
        Binding("B", "take(1, True)", "Take B, with a reason", show=False),
        Binding("X", "reject(True)", "Neither, with a reason", show=False),
        Binding("E", "edit(True)", "Quick edit, with a reason", show=False),
        Binding("M", "modify(True)", "Edit, with a reason", show=False),
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
        self.sides: bool | None = None
        """Sources shown beside the gold: None follows the width (side by side from WIDE columns)."""
        self._want_key: str | None = None
        self.pending_hit: tuple[int, int] | None = None
        """A search hit to show when the document opens (the corpus search screen sets it)."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="main"):
            with Vertical(id="texts"):
                yield DocumentView(id="text")
            yield OptionList(id="conflicts", markup=False)
        yield Static("Merging agreed items…", id="variants", markup=False)
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"Adjudicate {self.document}"
        self.sub_title = f"{self.facade.user} · opening…"
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
        main = self.query_one("#text", DocumentView)
        if first:
            main.undirected = undirected_types(self.facade.schema)
            main.load(a.text, (), colors)
            views = [DocumentView(id=f"src-{i}", classes="source") for i in range(len(a.sources))]
            main.cursor_listener = partial(self._cursor_moved, main)
            for view in views:
                view.cursor_listener = partial(self._cursor_moved, view)
                view.undirected = main.undirected
                view.load(a.text, (), colors)
                view.display = False
            if views:
                self.query_one("#texts", Vertical).mount_all(views, before=main)
        self._apply_layout()
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
        if first and self.pending_hit is not None:  # opened from a search: the hit, marked, in view
            hit, self.pending_hit = self.pending_hit, None
            main.set_hits([hit])
            self.call_after_refresh(main.reveal, *hit)
        dc = a.conflicts
        open_ = open_summary(dc.open, dc.waiting) if dc else "0 open"
        agreed = dc.agreed if dc else 0
        self.sub_title = f"{self.facade.user} · {open_} · {agreed} agreed · gold {a.gold.info.status if a.gold else 'none'}"

    # -- layout: side by side on wide terminals, stacked or merged on narrow ones --------------------
    @property
    def wide(self) -> bool:
        """Room for every source as a column beside the gold (and at least two sources)."""
        return self.size.width >= WIDE and self.adj is not None and len(self.adj.sources) >= 2

    @property
    def showing_sides(self) -> bool:
        return self.sides if self.sides is not None else self.wide

    def on_resize(self) -> None:
        self._apply_layout()
        self._update_detail()

    def _source_views(self) -> list[DocumentView]:
        return list(self.query(".source").results(DocumentView))

    def _apply_layout(self) -> None:
        """Show the views the width and the s key ask for, each painted with its own set's spans."""
        a = self.adj
        if a is None:
            return
        wide, sides = self.wide, self.showing_sides and len(a.sources) >= 2
        self.set_class(wide, "-wide")
        main = self.query_one("#text", DocumentView)
        main.display = wide or not sides
        gold = a.gold.annotations if a.gold else _EMPTY
        main.set_spans(gold.spans, gold.relations, gold.entities)  # relation markers too
        main.border_title = "gold so far" if wide and sides else "gold so far (s: side by side)"
        for i, view in enumerate(self._source_views()):
            view.display = sides
            if i < len(a.sources):
                src = a.sources[i]
                shown = a.source_sets.get(src.set_id, _EMPTY)
                view.set_spans(shown.spans, shown.relations, shown.entities)
                # Content, not a str: a str border title is parsed as markup (annotator names are not)
                view.border_title = Content(clean(f"{adj.source_letter(i)} · {src.annotator or src.set_id}"))

    def _current(self) -> Any | None:
        ol = self.query_one("#conflicts", OptionList)
        if ol.highlighted is None or not self.shown:
            return None
        return self.shown[ol.highlighted]

    def _update_detail(self) -> None:
        a = self.adj
        c = self._current()
        detail = self.query_one("#variants", Static)
        main, sources = self.query_one("#text", DocumentView), self._source_views()
        if a is None or c is None:
            detail.update("No conflict left on this document." if a else "")
            for view in (main, *sources):
                view.set_marks([])
                view.set_partners([])
            return
        detail.update(adj.describe(c, a.sources))
        ranges = adj.conflict_ranges(c, a.source_sets)
        main.set_marks(ranges)
        for i, view in enumerate(sources):  # each source's own boundaries: alternatives side by side
            view.set_marks(adj.source_ranges(c, i, a.sources, a.source_sets) if i < len(a.sources) else [])
        self._item_partners()
        if ranges:  # every view at the same place: the columns scroll together to the conflict
            for view in (main, *sources):
                view.move_to(ranges[0][0])

    def _item_partners(self) -> None:
        """Each view highlights the relation partners of the conflict's item it marks, as the
        annotate screen does for the active span."""
        for view in (self.query_one("#text", DocumentView), *self._source_views()):
            view.set_partners(*(view.relations.item_partners(view.marks) if view.relations else ([], [])))

    @on(events.DescendantFocus, "#conflicts")
    def _back_to_conflicts(self) -> None:
        """Back in the conflict list: the partners are the conflict's again, not a text cursor's."""
        self._item_partners()

    def _cursor_moved(self, view: DocumentView, offset: int) -> None:
        """In a text view with the focus (tab), the span under the cursor shows its relation
        partners, as the active span does in the annotate screen (the conflict stays marked)."""
        if self.focused is not view:
            return
        idx = view.relations
        here = view.paint.covering(offset)
        if idx is None or not here:
            view.set_partners([])
            return
        view.set_partners(idx.partners(here[0].id), idx.hot_ends(here[0].id))

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
        self.sides = not self.showing_sides
        self._apply_layout()
        self._update_detail()
        names = " | ".join(f"{adj.source_letter(i)}={s.annotator}" for i, s in enumerate(a.sources))
        where = "columns beside the gold" if self.wide else "top | bottom"
        self.notify(f"side by side: {names} ({where})" if self.sides else "merged: gold so far")

    def action_reload(self) -> None:
        self._open()

    def help_sections(self) -> list[tuple[str, HelpRows]]:
        return [
            (str(self.title or "Adjudicate"), binding_rows(self)),
            ("Editing a gold item (m): nothing is saved before Enter", editor_rows(self)),
            ("Everywhere", app_rows(self)),
        ]

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
        v = adj.variant_of(c, index, a.sources)
        src_ann = a.source_sets.get(a.sources[index].set_id)
        clash = adj.overlapping_gold(a.gold.annotations, v.item, src_ann) if a.gold and v is not None else []
        if clash:
            g = clash[0]
            where = ";".join(f"{x}-{y}" for x, y in g.fragments)
            answer = await self.app.push_screen_wait(
                MessageScreen(
                    f"Gold already has {g.id} {g.type} {where} «{g.text}»",
                    f"{adj.source_letter(index)}'s version overlaps it with other boundaries: taking it "
                    "puts both into gold. Usually one alternative is right: Esc, then x (neither) here.",
                    {"enter": ("take", "take it anyway")},
                )
            )
            if answer is None:
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

    async def _base_variant(self, c: Any, a: Adjudication) -> Any | None:
        """The version an edit starts from (asked when there are several)."""
        present = [v for v in c.variants if not v.absent]
        if len(present) <= 1:
            return present[0] if present else None
        rows = dict(zip([id(v) for v in c.variants], adj.variant_rows(c, a.sources), strict=True))
        picked = await self.app.push_screen_wait(
            PickScreen(
                "Start from which version?",
                [Choice(i, f"{rows[id(v)][0]}: {rows[id(v)][1]}") for i, v in enumerate(present)],
                filterable=False,
            )
        )
        return None if picked is None else present[int(picked)]

    @work(exclusive=True, group="dialog")
    async def action_edit(self, with_reason: bool = False) -> None:
        """Start from one version and change its type (span, link), label and tags (relation) or value."""
        a = self.adj
        c = self._open_conflict()
        if a is None or c is None:
            return
        base = await self._base_variant(c, a)
        if base is None:
            return
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

    async def _editor(self, title: str, item: Span | Relation, a: Adjudication) -> Any | None:
        """The draft after the full editor (None: the user dropped it)."""
        gold = a.gold.annotations if a.gold else _EMPTY
        return await self.app.push_screen_wait(
            GoldEditScreen(title, item, text=a.text, schema=self.facade.schema, gold=gold)
        )

    def _text_view(self) -> DocumentView | None:
        """The text view with the focus (the gold's or a source's), if any."""
        return self.focused if isinstance(self.focused, DocumentView) else None

    @work(exclusive=True, group="dialog")
    async def action_modify(self, with_reason: bool = False) -> None:
        """The full editor: a span's boundaries, type, attributes, groundings; a relation's type,
        label, tags and arguments (other kinds: as e). On an open conflict it starts from a version
        and decides the conflict; on a decided one, or on the gold span under the gold text's
        cursor, it edits that gold item in place."""
        a = self.adj
        if a is None:
            return
        gold = a.gold.annotations if a.gold else _EMPTY
        view = self._text_view()
        if view is not None and view.id == "text":  # the gold text has the focus: its span here
            here = view.paint.covering(view.cursor)
            if not here:
                self.notify("no gold span under the cursor (+ makes one)", severity="warning")
                return
            await self._edit_in_place(here[0], a, with_reason)
            return
        c = self._current()
        if c is None:
            return
        d = c.decision
        if d is not None and d.item_id and self.facade.has("edit_gold"):
            current = next((x for x in (*gold.spans, *gold.relations) if x.id == d.item_id), None)
            if current is not None and d.item_kind in ("span", "relation"):
                await self._edit_in_place(current, a, with_reason)
                return
        if d is not None and not self.facade.has("edit_gold"):
            self._open_conflict()  # says why (decided; this build cannot revise)
            return
        base = await self._base_variant(c, a)
        if base is None:
            return
        item = base.item
        if isinstance(item, Relation):
            source = a.source_sets.get(base.sources[0].set_id)
            if source is None or a.gold is None:
                self.notify("the sources or the gold set are not loaded: reload (R)", severity="warning")
                return
            item = adj.to_gold_refs(item, source, gold)
            if isinstance(item, str):
                self.notify(item, severity="warning")
                return
        elif isinstance(item, Span):
            item = replace(item, extra={})
        letters = adj.variant_rows(c, a.sources)[list(c.variants).index(base)][0]
        if isinstance(item, Span | Relation):
            edited = await self._editor(f"Gold for {c.key} (from {letters})", item, a)
        else:
            edited = await self._edited(base, a)
        if edited is None:
            return
        if isinstance(edited, str):
            self.notify(edited, severity="warning")
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        how: dict[str, Any] = dict(item=edited)
        if self.facade.has("edit_gold"):  # this build records which version the edit started from
            src = base.sources[0]
            how["take"] = f"{src.annotator}:{src.local_id}" if src.annotator else src.set_id
        self._resolve(c.key, how, reason, f"edited from {letters}")

    async def _edit_in_place(self, current: Span | Relation, a: Adjudication, with_reason: bool) -> None:
        """A gold item already there, through the editor, stored under its own id."""
        edited = await self._editor(f"Gold {current.id} (already in gold: edited in place)", current, a)
        if edited is None or edited == current:
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        version = a.gold.info.version if a.gold else None
        self._change_gold(
            f"{current.id} edited",
            lambda: self.facade.edit_gold(
                self.document, current.id, edited, reason=reason, expected_version=version
            ),
        )

    @work(exclusive=True, group="dialog")
    async def action_remove_gold(self) -> None:
        """Take the gold span under the gold text's cursor out, with what rests on it (asked first)."""
        a = self.adj
        view = self._text_view()
        if a is None or a.gold is None or view is None or view.id != "text":
            self.notify(
                "delete works in the gold text (tab to it): on the span to remove", severity="warning"
            )
            return
        here = view.paint.covering(view.cursor)
        if not here:
            self.notify("no gold span under the cursor", severity="warning")
            return
        sp = here[0]
        resting = [r.id for r in a.gold.annotations.relations if any(x.ref == sp.id for x in r.args)]
        resting += [lk.id for lk in a.gold.annotations.links if sp.id in (lk.source, lk.target)]
        also = f" and {', '.join(resting)} resting on it" if resting else ""
        answer = await self.app.push_screen_wait(
            MessageScreen(
                f"Remove {sp.id} {sp.type} «{short(sp.text, 30)}» from gold{also}?",
                "Recorded as an edit of gold (before, no after); the conflict it settled stays decided.",
                {"enter": ("remove", "remove")},
            )
        )
        if answer is None:
            return
        version = a.gold.info.version
        self._change_gold(
            f"{sp.id} removed",
            lambda: self.facade.remove_gold(self.document, sp.id, kind="span", expected_version=version),
        )

    @work(exclusive=True, group="dialog")
    async def action_new_span(self, with_reason: bool = False) -> None:
        """A gold span no annotator made: on the selection of the focused text (else the word at its
        cursor), type picked, then the editor."""
        a = self.adj
        if a is None:
            return
        view = self._text_view() or self.query_one("#text", DocumentView)
        rng = view.selection or view.bounds.word_at(view.cursor)
        start, end = trim(a.text, *rng) if rng else (0, 0)
        if start >= end:
            self.notify(
                "select the text first (tab to the text; shift+arrows, v or the mouse)", severity="warning"
            )
            return
        schema = self.facade.schema
        t = await self.app.push_screen_wait(
            PickScreen(
                f"New gold span «{short(a.text[start:end], 40)}»",
                [Choice(e.name, e.name, f"{e.name} {e.parent or ''}") for e in schema.entities],
            )
        )
        if t is None:
            return
        draft = Span("new", str(t), ((start, end),), a.text[start:end])
        await self._add(draft, a, with_reason)
        view.clear_selection()

    @work(exclusive=True, group="dialog")
    async def action_new_relation(self, with_reason: bool = False) -> None:
        """A gold relation no annotator made: its type, then a gold span for each role, label and
        tags, then the editor."""
        a = self.adj
        if a is None:
            return
        schema = self.facade.schema
        gold = a.gold.annotations if a.gold else _EMPTY
        rtypes = [r for r in schema.relations if r.kind == "relation" and len(r.roles) >= 2]
        if not rtypes or not gold.spans:
            self.notify("a relation needs a relation type and gold spans first", severity="warning")
            return
        rtype = rtypes[0]
        if len(rtypes) > 1:
            picked = await self.app.push_screen_wait(
                PickScreen(
                    "New gold relation",
                    [
                        Choice(r.name, f"{r.name} ({', '.join(o.name for o in r.roles)})", r.name)
                        for r in rtypes
                    ],
                )
            )
            if picked is None:
                return
            rtype = next(r for r in rtypes if r.name == picked)
        near = (self._text_view() or self.query_one("#text", DocumentView)).cursor
        colors = schema.colors()
        args: list[Argument] = []
        chosen: set[str] = set()
        for role in rtype.roles:
            choices = [
                Choice(sp.id, span_label(sp, colors, width=40), f"{sp.id} {sp.type} {sp.text}")
                for sp in spans_near(gold, near)
                if sp.id not in chosen
                and (not role.types or any(schema.is_a(sp.type, t) for t in role.types))
            ]
            if not choices:
                self.notify(f"no gold span fits {role.name}", severity="warning")
                return
            target = await self.app.push_screen_wait(
                PickScreen(f"{rtype.name}: {role.name}?", cl.mark_entities(gold, schema, choices))
            )
            if target is None:
                return
            chosen.add(str(target))
            # on a schema whose relations join entities (BioRelEx), a member gives its gold entity
            args.append(Argument(role.name, cl.relation_ref(gold, schema, str(target))))
        label = None
        ls = schema.label_set(rtype.labels) if rtype.labels else None
        if ls is not None:
            picked = await self.app.push_screen_wait(
                PickScreen(
                    f"{rtype.name}: label",
                    [Choice(v.value, f"{v.name} ({v.value})", key=v.key or str(v.value)) for v in ls.values],
                    filterable=False,
                )
            )
            if picked is None:
                return
            label = int(picked)
        await self._add(Relation("new", rtype.name, tuple(args), label), a, with_reason)

    async def _add(self, draft: Span | Relation, a: Adjudication, with_reason: bool) -> None:
        if not self.facade.has("add_gold"):
            self.notify("this corpusdb cannot add gold items outside a conflict", severity="warning")
            return
        edited = await self._editor(f"New gold {_kind_name(draft)}", draft, a)
        if edited is None:
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        version = a.gold.info.version if a.gold else None
        self._change_gold(
            f"new gold {_kind_name(draft)}",
            lambda: self.facade.add_gold(self.document, edited, reason=reason, expected_version=version),
        )

    @work(thread=True, exclusive=True, group="resolve")
    def _change_gold(self, what: str, call: Callable[[], Any]) -> None:
        """Write one gold change through the facade, then show the store's picture again."""
        try:
            res = call()
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"{what}: not saved")
            return
        self.app.call_from_thread(self._gold_changed, res, fresh, what)

    def _gold_changed(self, res: Any, fresh: Adjudication, what: str) -> None:
        c = self._current()
        self._want_key = c.key if c else None
        item = f" ({res.gold_item_id})" if getattr(res, "gold_item_id", None) else ""
        self.notify(f"{what}{item} · {res.open} open conflict(s) left")
        self._show(fresh)

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
        # deciding a conflict the screen shows decided is a revision; one shown open that someone
        # decided since is refused, their decision kept, and the screen shows it
        revise = any(c.key == key and c.decision is not None for c in self.shown)
        try:
            res = self.facade.resolve(self.document, key, reason=reason, expected_version=self._seen(),
                                      revise=revise, **how)  # fmt: skip
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, f"{key} not resolved")
            if isinstance(exc, DecidedMeanwhile):
                self._want_key = key
                self.app.call_from_thread(self._show, self.facade.reload_adjudication(self.document))
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
                 for k in check.open] + [f"waiting: {k} (on {on})" for k, on in check.waiting] + [
                 str(v) + (f" (decided on {', '.join(ks)})" if (ks := check.decide[i] if i < len(check.decide) else ()) else "")
                 for i, v in enumerate(check.violations)]  # fmt: skip
        body = "\n".join(lines) or "No open conflict, no schema problem."
        if check.open or check.waiting:
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


def _kind_name(item: Span | Relation) -> str:
    return "span" if isinstance(item, Span) else "relation"


WIDE = 140
"""From this many columns the sources are shown side by side (as columns) with the gold."""
