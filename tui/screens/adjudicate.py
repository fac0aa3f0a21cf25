"""Adjudication: the queue of ready documents, and one document's conflicts resolved key by key.

Why this shape: opening a document runs the workflow's auto-merge (agreed items go into gold as
unanimous decisions), then every remaining conflict is one line; one key resolves it through
``Corpus.resolve`` (gold item and Decision in one transaction), and the list is re-read from the
workflow so the stable keys, counts and blocked relations are always the store's, never guessed.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import Any, ClassVar

from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import DataTable, OptionList, Static
from textual.widgets.option_list import Option

from corpusdb.basics.errors import CorpusError
from corpusdb.basics.records import Annotations, Argument, DocLabel, Link, Relation, Span
from corpusdb.basics.terminal import clean
from corpusdb.workflow.types import open_summary
from tui import adjudication as adj
from tui import clusters as cl
from tui import keymap
from tui.colours import type_colours
from tui.facade import Adjudication
from tui.items import short, span_label, spans_near
from tui.relations import undirected_types
from tui.screens.base import BaseScreen, HelpRows, ReloadingScreen, app_rows, binding_rows
from tui.screens.doc_search import DocumentSearch
from tui.screens.gold_edit import GoldEditScreen, editor_rows
from tui.screens.pickers import ChecklistScreen, Choice, MessageScreen, PickScreen, PromptScreen, type_picker
from tui.session import QueueClaim
from tui.textmodel import trim
from tui.widgets.docview import DocumentView
from tui.widgets.footer import KeyBar
from tui.widgets.header import TitleBar
from tui.widgets.tables import fill_table


class QueueScreen(ReloadingScreen):
    """Documents whose annotation sets are all submitted, with their conflict counts."""

    HELP = "Documents ready for adjudication. Enter opens one (agreed items are merged into gold first)."

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("queue")

    def __init__(self) -> None:
        super().__init__()
        self.docs: list[str] = []

    def compose(self) -> ComposeResult:
        yield TitleBar()
        yield Static("Loading…", id="summary", markup=False)
        yield DataTable(id="queue", cursor_type="row", zebra_stripes=True)
        yield KeyBar()

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


class AdjudicateScreen(DocumentSearch, BaseScreen):
    """One document's conflicts: see the versions, resolve each with one key."""

    HELP = (
        "Each line is an item the annotators disagree on. 1-9 take that annotator's version (1 = A, "
        "2 = B), 0 takes none, e changes one's type or label, m edits it fully (boundaries, type, "
        "attributes, groundings; a relation's type, label, tags, arguments); # first makes the next "
        "decision ask for a reason; on a decided conflict, or in the gold text (tab), m edits that gold "
        "item in place. a (or +) puts a gold span on the selected text, r a relation between gold spans, "
        "x deletes the gold span under the gold text's cursor. Gold and the decision are saved at once. "
        "s shows the annotators' versions side by side (columns beside the gold from 140 columns); "
        "n/p go to the next/previous open conflict, }/{ to the next/previous decided one (to revise it); / "
        "searches this document (words, a phrase, a regex, or fields: the spans of every version), > / < "
        "go to the next/previous hit and select the conflict there; a "
        "decided line shows the version taken (✓A, ✓B; ✓- neither; ✓✎ edited). d shows the item's "
        "decision history as `corpusdb decisions` prints it. A decided line can be decided again, or "
        "undone with u, until S finishes the document's gold (checked first: no open conflict). The "
        "item's relation partners are pink in "
        "each text (in a text with the focus: those of the span under the cursor). Relations the "
        "schema's rules derive are listed under the details, marked with their rule: never conflicts; "
        "the release writes gold's marked derived."
    )

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("adjudicate")

    def __init__(self, document: str) -> None:
        super().__init__()
        self.document = document
        self.adj: Adjudication | None = None
        self.shown: list[Any] = []
        self.show_agreed = False
        self.sides: bool | None = None
        """Sources shown beside the gold: None follows the width (side by side from WIDE columns)."""
        self._want_key: str | None = None
        self._queue: deque[tuple[str, dict[str, Any], str | None, str, bool]] = deque()
        """Decisions typed and not saved yet, in order (one writer saves them: ``_write_decisions``)."""
        self._queue_lock = threading.Lock()
        self._writing = False
        self._claim = QueueClaim(self._queue_lock)
        """Who writes the queue: the worker, or the app ending (``save_before_exit``)."""
        self._in_writer: set[str] = set()
        """Keys a writer took off the queue and has not saved (or failed) yet."""
        self._written_version: int | None = None
        """The gold version the last writer left: a writer started before the screen has read the
        store again builds on it, not on the older version on screen (which would be refused)."""
        self._pending: dict[str, str] = {}
        """Conflict key -> what was decided, until the store's picture shows it."""
        self._reason_next = False
        """``#`` was pressed: the next decision asks for a reason."""
        self.pending_hit: tuple[tuple[int, int], str] | None = None
        """A search hit to show when the document opens, and its query (the corpus search screen)."""
        self.search_hits: list[tuple[int, int]] = []
        self._hold_key: str | None = None
        """The conflict selected at a search hit: the texts stay at the hit (not at the conflict's
        first range) until another conflict is selected."""

    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="main"):
            with Vertical(id="texts"):
                yield DocumentView(id="text")
            yield OptionList(id="conflicts", markup=False)
        yield Static("Merging agreed items…", id="variants", markup=False)
        yield Static("", id="derived", markup=False)
        yield KeyBar()

    def on_unmount(self) -> None:
        with self._queue_lock:
            if not self._queue:  # (else the app saves them as it ends)
                getattr(self.app, "before_exit", {}).pop(self, None)

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
        self.refresh_bindings()  # finished gold: the footer drops the decision keys
        colors = type_colours(self.facade.schema)
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
        ol.set_options(self._options())
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
        if first and self.pending_hit is not None:  # opened from a search: the conflict at the hit
            self.search_hits = [self.pending_hit[0]]
            self._mark_hits(self.search_hits)
            self._go_to_pending()  # (its query's other hits in this document come marked after)
        dc = a.conflicts
        derived = self.query_one("#derived", Static)
        shown = adj.derived_summary(dc.derived, a.sources) if dc else ""
        derived.update(shown)
        derived.display = bool(shown)  # the rules' relations: apart from the conflicts, marked derived
        open_ = open_summary(dc.open, dc.waiting) if dc else "0 open"
        agreed = dc.agreed if dc else 0
        self.sub_title = f"{self.facade.user} · {open_} · {agreed} agreed · gold {a.gold.info.status if a.gold else 'none'}"
        self.call_after_refresh(self._rewrap)

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
        self.call_after_refresh(self._rewrap)

    def _list_width(self) -> int:
        """Cells a conflict line has in the list (0 before the first layout)."""
        ol = self.query_one("#conflicts", OptionList)
        return max(0, ol.scrollable_content_region.width - 1)

    def _options(self) -> list[Option]:
        """One option per line shown, wrapped at word boundaries to the list's width (continuation
        lines indented under the text, never a word cut unless it is longer than a line)."""
        a = self.adj
        sources = a.sources if a is not None else ()
        width = self._list_width()
        self._wrapped_at = width
        return [Option(self._prompt(c, sources, width)) for c in self.shown]

    def _prompt(self, c: Any, sources: Any = None, width: int | None = None) -> Any:
        """A conflict's line: its label (a decision still being saved: what was decided, marked …)."""
        if sources is None:
            sources = self.adj.sources if self.adj is not None else ()
        width = self._list_width() if width is None else width
        label = adj.conflict_label(c, sources)
        if c.key in self._pending:
            label = adj.pending_label(c, self._pending[c.key])
        return adj.wrap_label(label, width)

    def _rewrap(self) -> None:
        """The list's width changed (a resize, the first layout): wrap the lines again for it."""
        if not self.shown or self._list_width() == getattr(self, "_wrapped_at", -1):
            return
        ol = self.query_one("#conflicts", OptionList)
        keep = ol.highlighted
        ol.set_options(self._options())
        if keep is not None:
            ol.highlighted = min(keep, len(self.shown) - 1)

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
        if self._hold_key is not None and self._hold_key != c.key:
            self._hold_key = None
        if ranges and self._hold_key is None:  # every view at the same place: the columns scroll together
            for view in (main, *sources):
                view.move_to(ranges[0][0])

    # -- search in this document (/, > and <: the DocumentSearch hooks) ------------------------------
    def _search_scope(self) -> tuple[str, int | None] | None:
        """This document, every set I read here (the versions and gold)."""
        return (self.document, None) if self.adj is not None else None

    def _mark_hits(self, hits: list[tuple[int, int]]) -> None:
        for view in (self.query_one("#text", DocumentView), *self._source_views()):
            view.set_hits(hits)

    def _hit_cursor(self) -> int:
        return (self._text_view() or self.query_one("#text", DocumentView)).cursor

    def _go_to_hit(self, start: int, stop: int) -> None:
        """Select the conflict whose item is at the hit (else keep the selection) and put every text
        at the hit, in sight."""
        ol = self.query_one("#conflicts", OptionList)
        idx = self.conflict_at(start, stop)
        if idx is None:
            idx = ol.highlighted
        if idx is not None and self.shown:
            self._hold_key = self.shown[idx].key
            ol.highlighted = idx
            self._update_detail()
        views = (self.query_one("#text", DocumentView), *self._source_views())
        for view in views:
            view.move_to(start)
        self.call_after_refresh(lambda: [v.reveal(start, stop) for v in views])

    def conflict_at(self, start: int, stop: int) -> int | None:
        """The line of the conflict whose item is at ``[start, stop)``: a span version with those
        offsets first, then an item with a range there (a relation's argument), then one with a range
        overlapping it; None when no conflict shown is there (an agreed item is not shown)."""
        a = self.adj
        if a is None:
            return None
        ranges = [adj.conflict_ranges(c, a.source_sets) for c in self.shown]
        for i, c in enumerate(self.shown):
            for v in c.variants:
                fr = getattr(v.item, "fragments", None)
                if isinstance(v.item, Span) and fr and (fr[0][0], fr[-1][1]) == (start, stop):
                    return i
        for i, rs in enumerate(ranges):
            if (start, stop) in rs:
                return i
        for i, rs in enumerate(ranges):
            if any(x < stop and start < y for x, y in rs):
                return i
        return None

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

    def _next_open_from(self, start: int, step: int, *, decided: bool = False) -> int | None:
        """The next line (``step`` 1) or the previous (-1) from ``start``, wrapping round: an open
        conflict, or with ``decided`` one decided by a person (to revise; agreed items are not)."""
        n = len(self.shown)
        for k in range(1, n + 1):
            i = (start + step * k) % n
            c = self.shown[i]
            done = c.decision is not None or c.key in self._pending
            if (done and not adj.is_agreed(c)) if decided else not done:
                return i
        return None

    def action_next_decided(self, step: int) -> None:
        ol = self.query_one("#conflicts", OptionList)
        i = self._next_open_from(ol.highlighted if ol.highlighted is not None else -1, step, decided=True)
        if i is None:
            self.notify("no decided conflict on this document yet")
            return
        ol.highlighted = i

    @work(exclusive=True, group="dialog")
    async def action_history(self) -> None:
        """The decision history of the highlighted item: the rows `corpusdb decisions` prints for it."""
        c = self._current()
        if c is None:
            return
        await self._drained()  # decisions typed before d are part of the history
        c = next((x for x in self.shown if x.key == c.key), c)
        try:
            every = await asyncio.to_thread(self.facade.decisions, self.document)
        except CorpusError as exc:
            self.fail(exc, "cannot read the decisions")
            return
        rows = adj.item_history(c, every)
        from tui.screens.decisions import DecisionsScreen

        title = f"Decisions on {c.key}" + ("" if rows else ": none yet (open since the merge)")
        await self.app.push_screen_wait(DecisionsScreen(title, rows))

    def action_next_open(self, step: int) -> None:
        """``n``/``p``: the next/previous item of the part with the focus: a conflict in the list,
        a span in a text view (the same meaning as in the annotate screen)."""
        view = self._text_view()
        if view is not None:
            view.action_move("span", step)
            return
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

    def action_with_reason(self) -> None:
        """``#``: the next decision asks for its reason first (one key for every decision)."""
        self._reason_next = not self._reason_next
        self.notify("the next decision asks for a reason" if self._reason_next else "no reason asked")

    async def _reason(self, wanted: bool) -> str | bool | None:
        """The reason typed (None: none wanted; False: the user cancelled)."""
        wanted, self._reason_next = wanted or self._reason_next, False
        if not wanted:
            return None
        text = await self.app.push_screen_wait(
            PromptScreen("Reason for this decision", placeholder="optional")
        )
        return False if text is None else (text or None)

    def action_take(self, index: int, with_reason: bool = False) -> None:
        """Take one source's version. At once (no dialog): decided on screen, the highlight on the
        next open conflict, the save queued in order; so `a b x` typed in a burst decides three."""
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
        if clash or with_reason or self._reason_next:  # `#` before: the reason is asked first
            self._take_asking(c, index, clash, with_reason)
            return
        src = a.sources[index]
        self._decide(c, dict(take=src.annotator or src.set_id), None, f"took {adj.source_letter(index)}")

    @work(exclusive=True, group="dialog")
    async def _take_asking(self, c: Any, index: int, clash: list[Span], with_reason: bool) -> None:
        """Take a version after the questions: a clash with gold asked about, a reason typed."""
        a = self.adj
        if a is None:
            return
        if clash:
            g = clash[0]
            where = ";".join(f"{x}-{y}" for x, y in g.fragments)
            answer = await self.app.push_screen_wait(
                MessageScreen(
                    f"Gold already has {g.id} {g.type} {where} «{g.text}»",
                    f"{adj.source_letter(index)}'s version overlaps it with other boundaries: taking it "
                    "puts both into gold. Usually one alternative is right: Esc, then 0 (neither) here.",
                    {"enter": ("take", "take it anyway")},
                )
            )
            if answer is None:
                return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        src = a.sources[index]
        self._decide(c, dict(take=src.annotator or src.set_id), reason, f"took {adj.source_letter(index)}")

    def action_reject(self, with_reason: bool = False) -> None:
        c = self._open_conflict()
        if c is None:
            return
        if with_reason or self._reason_next:  # `#` before: the reason is asked first
            self._reject_asking(c)
            return
        self._decide(c, dict(reject=True), None, "took neither")

    @work(exclusive=True, group="dialog")
    async def _reject_asking(self, c: Any) -> None:
        reason = await self._reason(True)
        if reason is False:
            return
        self._decide(c, dict(reject=True), reason, "took neither")

    async def _base_variant(self, c: Any, a: Adjudication) -> Any | None:
        """The version an edit starts from (asked when there are several)."""
        present = [v for v in c.variants if not v.absent]
        if len(present) <= 1:
            return present[0] if present else None
        rows = dict(zip([id(v) for v in c.variants], adj.variant_rows(c, a.sources), strict=True))
        picked = await self.app.push_screen_wait(
            PickScreen(
                "Start from which version?",
                [
                    Choice(i, f"{rows[id(v)][0]}: {rows[id(v)][1]}", key=_version_key(rows[id(v)][0], i))
                    for i, v in enumerate(present)
                ],
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
        self._decide(
            c, dict(item=item, take=f"{src.annotator or src.set_id}:{src.local_id}"), reason, "edited"
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
        self._decide(c, how, reason, f"edited from {letters}")

    async def _edit_in_place(self, current: Span | Relation, a: Adjudication, with_reason: bool) -> None:
        """A gold item already there, through the editor, stored under its own id."""
        edited = await self._editor(f"Gold {current.id} (already in gold: edited in place)", current, a)
        if edited is None or edited == current:
            return
        reason = await self._reason(with_reason)
        if reason is False:
            return
        await self._drained()
        a = self.adj or a
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
        await self._drained()
        a = self.adj or a
        version = a.gold.info.version if a.gold else None
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
            type_picker(f"New gold span «{short(a.text[start:end], 40)}»", schema)
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
        colors = type_colours(schema)
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
        await self._drained()
        a = self.adj or a
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
            t = await self.app.push_screen_wait(type_picker(f"Type for «{item.text}»", schema, item.type))
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

    async def _drained(self) -> None:
        """Wait until the decisions typed so far are saved and shown (a later act builds on them)."""
        while self._writing or self._pending:
            await asyncio.sleep(0.01)

    def _decide(self, c: Any, how: dict[str, Any], reason: str | None, what: str) -> None:
        """Decide ``c``: shown decided at once (pending), the highlight on the next open conflict,
        the decision queued for the one writer (saves in the order of the keys). Deciding a conflict
        the screen shows decided (or pending) is a revision; one shown open that someone decided
        since is refused, their decision kept, and the screen shows it."""
        revise = c.decision is not None or c.key in self._pending
        with self._queue_lock:
            self._queue.append((c.key, how, reason, what, revise))
            start = not self._writing
            self._writing = True
        self._pending[c.key] = what
        ol = self.query_one("#conflicts", OptionList)
        here = next((i for i, x in enumerate(self.shown) if x.key == c.key), None)
        if here is not None:
            ol.replace_option_prompt_at_index(here, self._prompt(c))
            nxt = self._next_open_from(here, 1)
            if nxt is not None and nxt != here:
                ol.highlighted = nxt
            self._update_detail()
        if start:
            before_exit = getattr(self.app, "before_exit", None)
            if before_exit is not None:  # the worker may never run if the app ends first
                before_exit[self] = self.save_before_exit
            self._write_decisions()

    @work(thread=True, group="decide")  # not "resolve": an exclusive gold edit there must not cancel it
    def _write_decisions(self) -> None:
        """Save the queued decisions one after another, each expecting the gold version the one
        before left (a change by someone else in between is refused as stale), then show the store."""
        if self._claim.by_worker():  # (else the app ended first and saved them)
            self._save_queue(tell=True)

    def save_before_exit(self) -> None:
        """Save the decisions still queued, here and now, when no writer took them: the app is
        ending (a browser tab closed). Why: Textual cancels workers as the app ends, and a writer
        not yet in its thread never saves (``CorpusApp.on_unmount`` calls this). A writer already
        running goes on in its thread and the process waits for it."""
        if self._claim.by_exit(self._queue):
            self._save_queue(tell=False)

    def _tell(self, tell: bool, fn: Any, *args: Any, **kwargs: Any) -> None:
        """Call ``fn`` on the app's thread when ``tell`` (the screen is there to show it). The app may
        have ended meanwhile (a tab closed): then nothing is shown, and the writer saves the rest."""
        if tell:
            with contextlib.suppress(
                Exception
            ):  # the app is gone (not running, or its loop cancelled the call)
                self.app.call_from_thread(fn, *args, **kwargs)

    def _save_queue(self, *, tell: bool) -> None:
        """The writer's loop (see ``_write_decisions``); ``tell``: show each outcome and the store."""
        with self._queue_lock:
            version = self._seen()
            if self._written_version is not None and (version is None or self._written_version > version):
                version = self._written_version
        saved: list[str] = []
        failed = False
        while True:
            with self._queue_lock:
                if not self._queue or failed:
                    dropped = len(self._queue)
                    self._queue.clear()
                    self._written_version = None if failed else version
                    self._writing = self._claim.taken = False
                    break
                key, how, reason, what, revise = self._queue.popleft()
                self._in_writer.add(key)
            try:
                res = self.facade.resolve(self.document, key, reason=reason, expected_version=version,
                                          revise=revise, **how)  # fmt: skip
                version = self.facade.gold_version(self.document)
            except CorpusError as exc:
                self._tell(tell, self.fail, exc, f"{key} not resolved")
                failed = True
                self._want_key = key
                continue
            finally:
                with self._queue_lock:
                    self._in_writer.discard(key)
            saved.append(key)
            self._tell(tell, self.notify, f"{res.key}: {what} · {res.open} open conflict(s) left")
        if not tell:
            return
        if dropped:
            self.app.call_from_thread(
                self.notify,
                f"{dropped} decision(s) typed after it not saved: decide them again",
                severity="warning",
            )
        try:
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "cannot read the document again")
            return
        self.app.call_from_thread(self._written, fresh, saved, failed)

    def _written(self, fresh: Adjudication, saved: list[str], failed: bool) -> None:
        with self._queue_lock:  # a key another writer (started since) still holds stays pending
            waiting = {k for k, *_ in self._queue} | self._in_writer
        for key in list(self._pending):
            if key not in waiting and (key in saved or failed or not self._writing):
                del self._pending[key]
        if self._want_key is None:
            c = self._current()
            self._want_key = c.key if c else None  # the line the user is on stays theirs
        self._show(fresh)

    # -- revising and finishing (issue #15) --------------------------------------------------------------
    def _seen(self) -> int | None:
        """The gold version on screen: a decision made on it loses to one another person made since."""
        a = self.adj
        return a.gold.info.version if a is not None and a.gold is not None else None

    @work(exclusive=True, group="dialog")
    async def action_undo_decision(self) -> None:
        """Undo the highlighted conflict's decision: open again; relations resting on it leave gold."""
        key = c.key if (c := self._current()) is not None else None
        await self._drained()
        c = next((x for x in self.shown if x.key == key), None)
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
        await self._drained()
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
            answers = {"enter": ("finish", "finish"), "N": ("next", "finish and open the next document")}
        title = f"Finish the gold of {self.document}? {check.summary()}"
        answer = await self.app.push_screen_wait(MessageScreen(title, body, answers))
        if answer in ("finish", "force", "next"):
            self._finish(answer == "force", then_next=answer == "next")

    # -- what the footer offers follows the state (issue #25.3) ------------------------------------
    DECIDING = frozenset(
        {"take", "reject", "edit", "modify", "new_span", "new_relation", "remove_gold", "with_reason",
         "undo_decision", "finish_gold"}
    )  # fmt: skip
    """Actions that write gold or decisions: not offered once the gold is finished."""

    def gold_finished(self) -> bool:
        a = self.adj
        return a is not None and a.gold is not None and a.gold.info.status == "submitted"

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Finished gold offers no decision key, and then "the next document" (Textual hides an
        action for which this says False)."""
        if action == "next_document":
            return self.gold_finished()
        if action in self.DECIDING:
            return not self.gold_finished()
        return True

    @work(thread=True, exclusive=True, group="open")
    def action_next_document(self) -> None:
        """After finishing: the next document of the queue with work left (open conflicts or gold
        not finished), after this one."""
        try:
            entries = self.facade.queue()
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "next document")
            return
        names = [e.document for e in entries]
        here = names.index(self.document) if self.document in names else -1
        ordered = entries[here + 1 :] + entries[: max(here, 0)]
        todo = next((e.document for e in ordered if e.gold_status != "submitted"), None)
        self.app.call_from_thread(self._open_next, todo)

    def _open_next(self, document: str | None) -> None:
        if document is None:
            self.notify("no other document waits for adjudication", severity="warning")
            return
        self.dismiss(None)
        self.corpus_app.open_adjudication(document)

    @work(thread=True, exclusive=True, group="resolve")
    def _finish(self, force: bool, then_next: bool = False) -> None:
        try:
            self.facade.finish_gold(self.document, force=force)
            fresh = self.facade.reload_adjudication(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "gold not finished")
            return
        self.app.call_from_thread(
            self.notify, f"{self.document}: gold finished; decisions are frozen · N opens the next document"
        )
        self.app.call_from_thread(self._show, fresh)
        self.app.call_from_thread(self.refresh_bindings)
        if then_next:
            self.app.call_from_thread(self.action_next_document)


_EMPTY = Annotations()


def _version_key(letters: str, index: int) -> str:
    """The key that picks a version in "start from which version?": its source's letter as shown
    (``A`` -> ``a``), or its place when several sources share it; the dialog shows that key."""
    return letters.lower() if len(letters) == 1 and letters.isalpha() else str(index + 1)


def _kind_name(item: Span | Relation) -> str:
    return "span" if isinstance(item, Span) else "relation"


WIDE = 140
"""From this many columns the sources are shown side by side (as columns) with the gold."""
