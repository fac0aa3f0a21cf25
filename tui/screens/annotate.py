"""Annotating one document: the text with its spans, lists beside it, every action saved at once.

Why this shape: each key runs one action; actions that need choices chain small modal pickers in
an async worker (``push_screen_wait``), then hand a list of changes to the ``DocumentSession``,
which shows them at once and saves them in order from a thread worker. Attributes flow down (the
view gets spans and marks); the view reports cursor moves up through ``cursor_listener``, called in
the same frame (a posted message would cost a second frame per keystroke).
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Mapping
from typing import Any, ClassVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, OptionList, Static

from corpusdb.basics.errors import CorpusError
from corpusdb.basics.records import Annotations, Span
from corpusdb.services.edits import Change
from tui import items as it
from tui import keymap
from tui.colours import type_colours
from tui.commands import AnnotationCommands
from tui.relations import undirected_types
from tui.screens.annotate_dialogs import AnnotationDialogs
from tui.screens.base import BaseScreen, HelpRows, app_rows, binding_rows
from tui.screens.clusters_panel import ClusterActions
from tui.screens.doc_search import DocumentSearch
from tui.screens.pickers import MessageScreen, PromptScreen, drop_type_picker
from tui.screens.relations_panel import RELATION_HELP, RelationPanel
from tui.screens.suggestions_panel import HELP_ROWS as SUGGESTION_HELP
from tui.screens.suggestions_panel import SuggestionActions
from tui.session import DocumentSession, SaveOutcome, save_before_exit
from tui.spanrows import SpanRows
from tui.widgets.docview import DocumentView
from tui.widgets.footer import KeyBar
from tui.widgets.header import TitleBar
from tui.widgets.lists import SideList

PAINT_WAIT = 0.25
"""Seconds a save waits at most for the edit to be painted (it waits for nothing else)."""
LISTS = ("spans", "links", "relations", "entities")
TAB_NAMES = {"spans": "Spans", "links": "Links", "relations": "Rels", "entities": "Ents"}


class AnnotateScreen(
    DocumentSearch, AnnotationDialogs, ClusterActions, RelationPanel, SuggestionActions, BaseScreen
):
    """One annotator's set on one document."""

    HELP = (
        "Move with the arrows, w/b (word), ( ) or , . (sentence), n/p (next/previous span), / search and "
        "> < (next hit). Select with shift+arrows, v (select mode) or the mouse. Every action is saved at "
        "once; u undoes."
    )

    COMMANDS: ClassVar[set[Any]] = {AnnotationCommands}
    """The palette (ctrl+p) offers every annotation action by name."""

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("annotate")

    def __init__(self, document: str, session: DocumentSession | None = None) -> None:
        super().__init__()
        self.document = document
        self.session: DocumentSession | None = None
        self._given = session
        self.active: str | None = None
        self._cycle = 0
        self._last_type: str | None = None
        self._list_keys: dict[str, list[str]] = {k: [] for k in LISTS}
        self._problems = 0
        self._save_state = "opening…"
        self._status_text = ""
        self._stale_suggestions = False
        self._edited = False
        self._labels: dict[str, tuple[Span, bool, Mapping[str, str], Text]] = {}
        self._span_rows = SpanRows()
        """The span list's rows in text order, updated by what an edit changed."""
        self._filled: dict[str, list[tuple[str, object]]] = {}
        """What each side list was last filled with."""
        self.keys_wait = session is None
        """While the document is read, keys typed wait in the app (``CorpusApp.keys_wait``)."""

    # -- layout -----------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield TitleBar()
        with Horizontal(id="main"):
            yield DocumentView(id="text")
            with Vertical(id="side"):
                yield Static("", id="legend", markup=False)
                yield Static("", id="side-tabs", markup=False)
                with ContentSwitcher(initial="spans", id="lists"):
                    for list_id in LISTS:
                        yield SideList(id=list_id, markup=False)
        yield Static("", id="status", markup=False)
        yield KeyBar()

    @property
    def view(self) -> DocumentView:
        return self.query_one(DocumentView)

    def on_mount(self) -> None:
        self.title = self.document
        self.sub_title = f"{self.facade.user} · opening…"
        self.view.cursor_listener = self._cursor_moved
        self.view.focus()
        self.search_mounted()
        if self._given is not None:  # read before the push: the first paint already shows the text
            self._show(self._given)
            self._given = None
        else:
            self._open()

    def on_unmount(self) -> None:
        drop_type_picker(self)  # the type picker kept for this screen (``kept_type_picker``)
        if self.session is not None and not self.session.dirty:  # (else the app saves it as it ends)
            getattr(self.app, "before_exit", {}).pop(self.session, None)

    @work(thread=True, exclusive=True, group="load")
    def _open(self) -> None:
        try:
            session = self.facade.open_document(self.document)
        except CorpusError as exc:
            self.app.call_from_thread(self._open_failed, exc)
            return
        self.app.call_from_thread(self._show, session)

    def _open_failed(self, exc: CorpusError) -> None:
        self.keys_wait = False
        self.fail(exc, f"cannot open {self.document}")
        self.dismiss(None)

    def _show(self, session: DocumentSession) -> None:
        self.session = session
        before_exit = getattr(self.app, "before_exit", None)
        if before_exit is not None:  # saved by the app if it ends first (``CorpusApp.on_unmount``)
            before_exit[session] = functools.partial(save_before_exit, session)
        self.keys_wait = False
        self.refresh_bindings()  # the footer: editing keys once the set is there and writable
        if session.topic is not None:  # a relevance unit: what to judge against, always in sight
            self.title = f"{self.document} · topic {session.topic.id}: {session.topic.title}"
        self.view.undirected = undirected_types(session.schema)
        self.view.margin = 2 if session.schema.relations else 0  # where relations are drawn
        ann = session.annotations
        self.view.load(session.text, ann.spans, type_colours(session.schema), ann.relations, ann.entities)
        self._save_state = f"v{session.version}"
        self._update_status()
        # The text first: lists and the schema check come right after the first paint.
        self.call_after_refresh(self._refresh_all)
        self.call_after_refresh(self.refresh_suggestions)
        if not session.readonly:
            self.start_suggestion_poll()

    # -- refreshing -------------------------------------------------------------------------------
    def _refresh_all(self) -> None:
        """After an edit, undo or reload: repaint spans, rebuild the lists, recount problems."""
        s = self.session
        if s is None:
            return
        ann = s.annotations
        self.view.set_spans(ann.spans, ann.relations, ann.entities)
        self.update_legend()
        colors = type_colours(s.schema)
        spans = {sp.id: sp for sp in ann.spans}
        noted = {n.target for n in ann.notes}
        rows = self._span_rows.rows(
            ann.spans, (colors, frozenset(noted)), lambda sp: self._span_label(sp, colors, sp.id in noted)
        )
        self._fill("spans", rows)
        drawing = self.cluster_types()  # links that draw a cluster are listed with the entities
        self._fill("links", [(lk.id, it.link_label(lk, spans)) for lk in ann.links if lk.type not in drawing])
        self._fill("relations", self.relation_rows(ann, noted))
        self._fill("entities", self.entity_rows(ann))
        self.update_suggestions()
        self._update_tabs()
        # The schema check reads the whole set: after the paint, so an edit shows first.
        self.call_after_refresh(self._count_problems)
        if self.active is not None and self.active not in spans:
            self.active = None
        self._update_marks()
        self._update_status()

    def _span_label(self, span: Span, colors: Mapping[str, str], noted: bool) -> Text:
        """A span's row in the list, built again only when the span, its note mark or the colours
        changed (an edit touches one span of thousands)."""
        cached = self._labels.get(span.id)
        if cached is not None and cached[0] is span and cached[1] == noted and cached[2] == colors:
            return cached[3]
        label = it.span_label(span, colors, noted=noted)
        self._labels[span.id] = (span, noted, colors, label)
        return label

    def _count_problems(self) -> None:
        """Count the schema errors of what the screen shows, in a worker: the check reads the whole
        set (tens of milliseconds on a full-text article), and a key typed meanwhile is served."""
        s = self.session
        if s is None or not self.is_mounted:
            return
        self._check_set(s, s.annotations)

    @work(thread=True, exclusive=True, group="problems", description="schema check")
    def _check_set(self, s: DocumentSession, ann: Annotations) -> None:
        problems = len([v for v in self.facade.violations(s, ann) if v.severity == "error"])
        self.app.call_from_thread(self._problems_counted, ann, problems)

    def _problems_counted(self, ann: Annotations, problems: int) -> None:
        s = self.session
        if s is None or s.annotations is not ann or not self.is_mounted:
            return  # an edit came meanwhile: its own count follows
        if problems != self._problems:
            self._problems = problems
            self._update_status()

    def _fill(self, list_id: str, rows: list[tuple[str, object]]) -> None:
        """Show ``rows`` in a side list: only the rows that changed are replaced (an edit touches
        one of thousands), the highlight stays on its row."""
        ol = self.query_one(f"#{list_id}", SideList)
        last = self._filled.get(list_id)
        if (
            last is not None
            and len(last) == len(rows)
            and all(a[0] == b[0] and a[1] is b[1] for a, b in zip(last, rows, strict=True))
        ):
            return  # the same rows (they are cached): an edit of a span leaves the relation list alone
        self._filled[list_id] = rows
        keep = ol.highlighted
        before = ol.highlighted_option.prompt if ol.highlighted_option is not None else None
        self._list_keys[list_id] = [k for k, _ in rows]
        ol.show_rows([label for _k, label in rows])  # type: ignore[misc]
        if rows:
            index = min(keep or 0, len(rows) - 1)
            if index != keep or ol.options[index].prompt is not before:  # another row there now:
                ol.highlighted = None  # set again, so that it is scrolled to and announced
            ol.highlighted = index

    def _update_marks(self) -> None:
        s = self.session
        if s is None:
            return
        self.view.set_marks(it.item_ranges(s.annotations, "span", self.active) if self.active else [])
        self.update_partners()

    def _update_status(self) -> None:
        s = self.session
        if s is None:
            return
        ann = s.annotations
        v = self.view
        sel = v.selection
        if sel:
            line1 = f"selected {sel[0]}-{sel[1]} «{it.short(s.text[sel[0] : sel[1]], 40)}»"
        elif self.active:
            span = next(sp for sp in ann.spans if sp.id == self.active)
            others = [c.id for c in v.paint.covering(v.cursor) if c.id != span.id]
            entity = it.entity_of(self.cluster_view(ann), span.id)
            line1 = it.span_details(span, self.facade.labels)
            if entity is not None:  # the cluster the mention or name belongs to
                line1 += f" · entity {entity.id} ({len(entity.members)} names/mentions)"
            if others:
                line1 += f" · also {','.join(others)} (o)"
            if (note := it.note_of(ann, span.id)) is not None:
                line1 += f" · note «{it.short(note.text, 30)}»"
            if (came := self.facade.suggestion_actions().provenance(span)) is not None:
                line1 += f" · {came}"
            rx = self.suggestion_here()
            if rx is not None and rx.kind == "relation":  # y / X act on it: the line says so
                line1 = self.suggestion_line(rx)
        elif (x := self.suggestion_here()) is not None:
            line1 = self.suggestion_line(x)
        else:
            line1 = "select mode (v): moving extends the selection" if v.marking else "no span here"
        line1 = self.relation_line(line1)
        if (shown := self._focused_item("entities")) is not None:  # the entity list: the one shown
            line1 = self.entity_line(shown)
        if self._text_pick is not None:  # picking a relation's argument in the text
            line1 = self.text_pick_line()
        labels = " ".join(f"{lb.name}={lb.value}" for lb in ann.labels)
        if not labels and (keys := it.doc_label_keys(s.schema)):
            labels = "label keys " + " ".join(f"{k}={val[1]}" for k, val in keys.items())
        labels = f" · {labels}" if labels else ""
        state = "read-only (submitted)" if s.readonly else self._save_state
        if s.skipped is not None:  # said first: the document is not to be annotated
            state = f"SKIPPED ({it.short(s.skipped, 24)}) · {state}"
        problems = f" · {self._problems} problem(s)" if self._problems else ""
        n_links, n_ents = self._link_entity_counts(ann)
        line2 = (
            f"{state} · {len(ann.spans)} spans {len(ann.relations)} rels {n_links} links"
            f"{f' {n_ents} entities' if n_ents else ''}{labels}{problems}"
            f"{self.suggestions_summary()}"
        )
        status = f"{line1}\n{line2}"
        if status != self._status_text:  # moving inside plain text redraws nothing down there
            self._status_text = status
            self.query_one("#status", Static).update(status, layout=False)
        self.sub_title = f"{self.facade.user} · {s.info.status} · {self._save_state}"

    def _link_entity_counts(self, ann: Annotations) -> tuple[int, int]:
        """Links that draw no cluster, and clusters (entities, however recorded): the one model."""
        drawing = self.cluster_types()
        return sum(lk.type not in drawing for lk in ann.links), len(self.cluster_view(ann).entities)

    def _cursor_moved(self, offset: int) -> None:
        """The view's cursor moved: the span under it becomes the active one."""
        covering = self.view.paint.covering(offset)
        new = covering[0].id if covering else None
        self._cycle = 0
        if new != self.active:
            self.active = new
            self._update_marks()
        self._update_status()

    # -- saving -----------------------------------------------------------------------------------
    def _act(self, changes: list[Change], description: str, *, active: str | None = None) -> bool:
        s = self.session
        if s is None:
            return False
        try:
            s.act(changes, description)
        except CorpusError as exc:
            self.fail(exc, "not done")
            return False
        if active is not None:
            self.active = active
        self._save_state = "saving…"
        self._stale_suggestions |= any(isinstance(getattr(c, "item", None), Span) for c in changes)
        self._edited = True
        self._refresh_all()
        self._save()
        return True

    def _save(self) -> None:
        """Save what is queued, once the edit is on the screen: the save's Python (SQLAlchemy)
        would otherwise share the interpreter with the repaint and delay it. The worker starts at
        once (it is running for whoever waits on workers) and waits for that paint."""
        painted = threading.Event()
        self.call_after_refresh(painted.set)
        self._save_after(painted)

    @work(thread=True, group="save")
    def _save_after(self, painted: threading.Event) -> None:
        s = self.session
        if s is None:
            return
        painted.wait(PAINT_WAIT)
        outcome = s.save_pending()
        self.app.call_from_thread(self._saved, outcome)

    def _saved(self, outcome: SaveOutcome) -> None:
        s = self.session
        if s is None or not self.is_mounted:  # closed meanwhile: the save itself is done
            return
        if outcome.error and outcome.reloaded is None:
            self.notify(
                f"Not saved: {outcome.error}. The document is read-only here: close it (q) and open it again.",
                severity="error",
                timeout=15,
            )
            self._save_state = "NOT SAVED"
            self._update_status()
            return
        if outcome.error and outcome.reloaded is not None:
            s.adopt(outcome.reloaded, outcome.history)
            self.refresh_suggestions()  # their statuses as stored, with the reloaded set
            why = "it changed elsewhere" if outcome.stale else "it was refused"
            self.notify(
                f"Your last action was not saved: {why} ({outcome.error}). "
                f"Reloaded version {outcome.version}; undo history "
                f"{'as saved with it' if s.undo_stack or s.redo_stack else 'cleared'}.",
                severity="error",
                timeout=10,
            )
            self._save_state = f"reloaded v{outcome.version}"
            self._refresh_all()
            return
        if not s.dirty:
            self._save_state = f"saved v{s.version}"
            if self._stale_suggestions:  # a span was added: its name may be proposed elsewhere now
                self._stale_suggestions = False
                self.refresh_suggestions()
        self._update_status()

    # -- helpers ----------------------------------------------------------------------------------
    def _span(self, span_id: str | None) -> Span | None:
        if self.session is None or span_id is None:
            return None
        return next((sp for sp in self.session.annotations.spans if sp.id == span_id), None)

    def _active_span(self, doing: str) -> Span | None:
        span = self._focused_item("spans")
        span = self._span(span) if span else self._span(self.active)
        if span is None:
            self.notify(f"{doing}: put the cursor on a span first", severity="warning")
        return span

    def _focused_item(self, list_id: str) -> str | None:
        """The highlighted item of a side list when that list has the focus."""
        ol = self.query_one(f"#{list_id}", OptionList)
        if self.focused is ol and ol.highlighted is not None and self._list_keys[list_id]:
            return self._list_keys[list_id][ol.highlighted]
        return None

    def _writable(self) -> bool:
        s = self.session
        if s is None:
            return False
        if s.readonly:
            self.notify("this document is submitted: read-only", severity="warning")
            return False
        return True

    # -- document labels, undo, lists, submit -----------------------------------------------------
    def action_doc_label(self, key: str) -> None:
        if not self._writable():
            return
        s = self.session
        assert s is not None
        keys = it.doc_label_keys(s.schema)
        if key not in keys:
            self.notify(f"no document label on key {key}", severity="warning")
            return
        name, value, _long = keys[key]
        changes, description = it.set_doc_label(s.annotations, name, value)
        if self._act(changes, description):
            self.notify(description)

    def action_undo(self) -> None:
        self._history("undo")

    def action_redo(self) -> None:
        self._history("redo")

    def _history(self, which: str) -> None:
        s = self.session
        if s is None or not self._writable():
            return
        try:
            done = s.undo() if which == "undo" else s.redo()
        except CorpusError as exc:
            self.fail(exc, which)
            return
        if done is None:
            self.notify(f"nothing to {which}", severity="warning")
            return
        self._save_state = "saving…"
        self._refresh_all()
        self._save()
        self.notify(f"{which}: {done}")

    # -- what the footer offers follows the state (issue #25.3) ------------------------------------
    EDITING = frozenset(
        {"annotate", "retype", "delete", "fragment", "unfragment", "attributes", "grounding",
         "edit_relation", "relation", "link", "cluster", "note", "undo", "redo", "submit", "doc_label",
         "skip_document", "accept_suggestion", "accept_all_suggestions", "reject_suggestion"}
    )  # fmt: skip
    """Actions that change the set: not offered once it is submitted (read-only)."""

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """A submitted (read-only) set offers no editing key, and only then "the next document";
        while the document opens, neither (Textual hides an action for which this says False). The
        mixins decide first (picking an argument in the text: ``RelationPanel``)."""
        allowed = super().check_action(action, parameters)
        if not allowed:
            return allowed
        s = self.session
        if action == "next_document":
            return s is not None and s.readonly
        if action in self.EDITING:
            return s is not None and not s.readonly
        return True

    def action_next_span(self, step: int) -> None:
        """``n``/``p``: the next or previous span in the text (from the list too)."""
        self.view.action_move("span", step)

    @work(thread=True, exclusive=True, group="open")
    def action_next_document(self) -> None:
        """After a submit: close this document and open the next of my list still to do."""
        try:
            rows = self.facade.my_documents()
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "next document")
            return
        names = [r.document for r in rows]
        here = names.index(self.document) if self.document in names else -1
        ordered = rows[here + 1 :] + rows[: max(here, 0)]
        todo = next((r.document for r in ordered if r.status != "submitted" and not r.skipped), None)
        self.app.call_from_thread(self._open_next, todo)

    def _open_next(self, document: str | None) -> None:
        if document is None:
            self.notify("every other document of yours is submitted", severity="warning")
            return
        self.dismiss(None)
        self.corpus_app.open_document(document)

    def action_toggle_focus(self) -> None:
        """Tab goes between the text and the list shown beside it (the tab bar is for the mouse)."""
        if self.focused is self.view:
            self.query_one(f"#{self._current_list()}", OptionList).focus()
        else:
            self.view.focus()

    def action_focus_text(self) -> None:
        self.view.focus()

    def _current_list(self) -> str:
        return self.query_one("#lists", ContentSwitcher).current or "spans"

    def _show_list(self, list_id: str) -> None:
        """Show one of the side lists (a light tab bar: TabbedContent costs too much per frame)."""
        focused = isinstance(self.focused, OptionList)
        self.query_one("#lists", ContentSwitcher).current = list_id
        self._update_tabs()
        if focused:
            self.query_one(f"#{list_id}", OptionList).focus()

    def _update_tabs(self) -> None:
        s = self.session
        current = self._current_list()
        counts = dict.fromkeys(LISTS, 0)
        if s is not None:
            ann = s.annotations
            n_links, n_ents = self._link_entity_counts(ann)
            counts = {"spans": len(ann.spans), "links": n_links, "relations": len(ann.relations)}
            counts["entities"] = n_ents
        tabs = self.query_one("#side-tabs", Static)
        full = sum(len(f" {TAB_NAMES[k]} {counts[k]} ") for k in LISTS) + 2
        # a narrow side panel (80 columns) gets the initials: every list stays reachable by mouse too
        names = (
            TAB_NAMES
            if not tabs.size.width or full <= tabs.size.width
            else {k: v[0] for k, v in TAB_NAMES.items()}
        )
        parts = [(f" {names[k]} {counts[k]} ", "bold reverse" if k == current else "dim") for k in LISTS]
        tabs.update(Text.assemble(*parts, (" l", "dim")), layout=False)

    def on_resize(self, _event: object) -> None:
        """A new width: the tab bar is written again, whole names or initials (RelationPanel's
        handler of the same name lays out the legend; Textual calls both)."""
        self.call_after_refresh(self._update_tabs)

    def action_next_list(self) -> None:
        order = list(LISTS)
        self._show_list(order[(order.index(self._current_list()) + 1) % len(order)])

    @on(OptionList.OptionSelected)
    def _jump(self, event: OptionList.OptionSelected) -> None:
        """Enter on a list item: move the cursor to its text and make it the active item."""
        list_id = event.option_list.id or ""
        if list_id not in LISTS or self.session is None:
            return
        key = self._list_keys[list_id][event.option_index]
        kind = {"spans": "span", "links": "link", "relations": "relation", "entities": "entity"}[list_id]
        ann = self.session.annotations
        if kind == "entity":
            ann = self.cluster_view(ann)
        offset = it.item_offset(ann, kind, key)
        if offset is None or offset < 0:
            return
        self.view.focus()
        self.view.move_to(offset)
        if kind == "span":
            self.active = key
        self.view.set_marks(it.item_ranges(ann, kind, key))
        self._update_status()

    def action_topic(self) -> None:
        """A relevance unit's topic in full: title, need, context (judges never see runs or ranks)."""
        t = self.session.topic if self.session is not None else None
        if t is None:
            self.notify("this document is not judged against a topic", severity="warning")
            return
        body = f"{t.need}\n\n{t.context}".strip()
        self.app.push_screen(MessageScreen(f"Topic {t.id}: {t.title}", body, {"enter": ("close", "close")}))

    @work(exclusive=True, group="dialog")
    async def action_submit(self) -> None:
        s = self.session
        if s is None or not self._writable():
            return
        problems = self.facade.violations(s)
        errors = [p for p in problems if p.severity == "error"]
        body = "\n".join(str(p) for p in problems) if problems else "No schema problems found."
        derived = self.facade.derived(s)
        if derived:  # the schema's rules: shown apart, marked with their rule, never items of the set
            from guidelines.derive import derived_line

            body += (f"\n\nDerived by the schema's rules (not items of the set): {len(derived)}\n"
                     + "\n".join(f"  {derived_line(d)}" for d in derived))  # fmt: skip
        answers = (
            {"enter": ("submit", "submit"), "N": ("next", "submit and open the next document")}
            if not errors
            else {"F": ("force", "submit anyway")}
        )
        title = f"Submit {self.document}? " + (f"{len(errors)} error(s), fix them first" if errors else "")
        answer = await self.app.push_screen_wait(MessageScreen(title, body, answers))
        if answer is None:
            return
        self._submit(force=answer == "force", then_next=answer == "next")

    @work(thread=True, exclusive=True, group="submit")
    def _submit(self, force: bool, then_next: bool = False) -> None:
        s = self.session
        assert s is not None
        try:
            info = self.facade.submit(s, force=force)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "not submitted")
            return
        self.app.call_from_thread(self._submitted, info.status, then_next)

    def _submitted(self, status: str, then_next: bool = False) -> None:
        self.notify(f"{self.document} {status}: it is read-only now · N opens the next document")
        self._update_status()
        self.refresh_bindings()  # the footer drops the editing keys, offers the next document
        if then_next:
            self.action_next_document()

    @work(exclusive=True, group="dialog")
    async def action_skip_document(self) -> None:
        """Flag the document as irrelevant, with a reason (the lead sees it; agreement and releases
        leave it out), or lift the flag; either way until the set is submitted."""
        s = self.session
        if s is None or not self._writable():
            return
        if s.skipped is None:
            reason = await self.app.push_screen_wait(
                PromptScreen(
                    f"Skip {self.document} as irrelevant?",
                    placeholder="why, e.g. not about bacteria",
                    check=lambda v: None if v.strip() else "a reason is needed: the lead reads it",
                    note="Enter skips (submit it as usual after) · D again lifts the skip · Esc cancels",
                )
            )
            if reason is None:
                return
        else:
            answer = await self.app.push_screen_wait(
                MessageScreen(
                    f"{self.document} is skipped",
                    f"Reason: {s.skipped}",
                    {"enter": ("lift", "lift the skip")},
                )
            )
            if answer is None:
                return
            reason = None
        self._skip(reason)

    @work(thread=True, exclusive=True, group="submit")
    def _skip(self, reason: str | None) -> None:
        assert self.session is not None
        try:
            self.facade.skip(self.session, reason)
        except CorpusError as exc:
            self.app.call_from_thread(self.fail, exc, "skip")
            return
        done = f"{self.document} skipped: {reason}" if reason else f"{self.document}: skip lifted"
        self.app.call_from_thread(self.notify, done)
        self.app.call_from_thread(self._update_status)

    def action_close(self) -> None:
        """Back to the list, once every queued action is saved (and, when I changed the document and
        the project has recommenders, my own models retrain in the background)."""
        if self._edited:
            try:
                self.facade.train_in_background()
            except (CorpusError, OSError) as exc:
                self.notify(f"recommenders not retrained: {exc}", severity="warning")
        if self.session is not None and self.session.dirty:
            self._close_after_save()
        else:
            self.dismiss(None)

    @work(thread=True, group="save")
    def _close_after_save(self) -> None:
        assert self.session is not None
        outcome = self.session.save_pending()
        self.app.call_from_thread(self._saved, outcome)
        if not outcome.error:
            self.app.call_from_thread(self.dismiss, None)

    def help_sections(self) -> list[tuple[str, HelpRows]]:
        labels = [
            (k, f"document label {name} = {value} ({long})")
            for k, (name, value, long) in it.doc_label_keys(self.facade.schema).items()
        ]
        return [
            (
                "Moving and selecting in the text",
                binding_rows(self.view, [("mouse", "click: move; drag: select")]),
            ),
            (
                "Annotating (every action is saved at once)",
                [
                    r
                    for r in binding_rows(self, labels)
                    if r[1] != "Document label" and not r[1].startswith("Pick:")
                ],
            ),
            ("Relations and type labels in the text", RELATION_HELP),
            ("Suggestions (y Y X ] [ above; u undoes)", SUGGESTION_HELP),
            ("Marks in the lists", it.LEGEND),
            ("Everywhere", app_rows(self)),
        ]
