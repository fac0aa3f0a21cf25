"""The annotation screen's relation display: partners, the relation-centred list, type labels, legend.

Why a mixin of its own: ``annotate.py`` keeps the screen (layout, saving, undo); everything about
showing relations where the text is lives here, over the document view's markers and the pure
``tui.relations`` index. The view draws; this decides what is highlighted and what the detail
line says.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.css.query import NoMatches
from textual.widgets import OptionList, Static

from corpusdb.basics.records import Annotations, Relation, Span
from tui.colours import type_colours
from tui.paint import UNKNOWN_COLOR, contrast
from tui.relations import RelationIndex, connector_pairs

if TYPE_CHECKING:
    from textual.widget import Widget

    from tui.session import DocumentSession
    from tui.widgets.docview import DocumentView

RELATION_HELP: list[tuple[str, str]] = [
    ("R1 Type:Role→", "under a span: it is the source end (first argument or trigger) of relation R1"),
    (
        "→R1 Role",
        "under a span: the other end of R1, with its role (↔ undirected); R1¬ negated, R1? speculative",
    ),
    ("╭─ ╰► / Tab in r", "the active span's relations, line to line / pick r's argument in the text (enter)"),
    ("Role@E1 / Role=R2", "the argument is entity E1 (all its names are marked) / relation R2"),
    ("yellow / pink", "the active span (or the relation's source) / its relation partners"),
    ("type──┘", "with L: each span's type from its first to its last column (nested, adjacent)"),
    ("legend", "the types of this document in their colours, above the side lists"),
]
"""How to read the relation markers and type labels (the help screen shows these rows)."""


def legend(spans: Sequence[Span], colors: Mapping[str, str], width: int = 0, lines: int = 3) -> Text:
    """The types used in a document, each on its colour (the key to the text's colours). Given a
    ``width``, it fills at most ``lines`` lines and says how many types did not fit (``+4 (L)``:
    the type labels under the text name them all)."""
    types = sorted({s.type for s in spans})
    out = Text(no_wrap=False)
    line, x = 1, 0
    for i, t in enumerate(types):
        color = colors.get(t, UNKNOWN_COLOR)
        entry = f" {t} "
        if width:
            entry = entry if len(entry) <= width else f" {t[: max(1, width - 3)]}… "
            need = len(entry) + (1 if x else 0)
            left = len(types) - i
            more = f" +{left} (L)"
            last_line = line == lines
            if x + need > width or (last_line and left > 1 and x + need + len(more) - 1 > width):
                if last_line:
                    out.append(more if x + len(more) <= width else more.strip(), style="dim")
                    break
                line, x = line + 1, 0
                out.append("\n")
                need = len(entry)
        if x:
            out.append(" ")
        out.append(entry, style=f"{contrast(color)} on {color}")
        x += need if width else 0
    return out


BACK_TO_LIST = "+list"
"""What a text pick answers when the annotator goes back to the list (Tab)."""
TEXT_PICK_ACTIONS = frozenset({"text_pick", "cycle", "toggle_types", "next_span", "next_hit"})
"""What acts while picking in the text: the pick's keys and moving (n/p by span, >/< by hit)."""


@dataclass
class TextPick:
    """A relation argument being picked in the text."""

    prompt: str
    fits: Callable[[Span], bool]
    source: Span
    done: asyncio.Future[object]


def _row_inputs(idx: RelationIndex, rel: Relation) -> tuple[object, ...]:
    """What a relation's list row is written from besides the relation: its trigger and each
    argument's span, entity (with its members' spans) or relation."""
    out: list[object] = [idx.spans.get(rel.trigger or "")]
    for a in rel.args:
        ent = idx.entities.get(a.ref)
        if ent is not None:
            out.append((ent, tuple(idx.spans.get(m) for m in ent.members)))
        else:
            out.append(idx.spans.get(a.ref) or idx.relations.get(a.ref))
    return tuple(out)


class RelationPanel:
    """Mixed into ``AnnotateScreen``, which provides the state and the few methods stubbed here."""

    session: DocumentSession | None
    active: str | None
    _list_keys: dict[str, list[str]]

    if TYPE_CHECKING:
        view: DocumentView
        focused: Widget | None

        def query_one(self, selector: str, expect_type: type[Any] = ...) -> Any: ...
        def notify(
            self, message: str, *, severity: Any = "information", timeout: float | None = None
        ) -> None: ...
        def _show_list(self, list_id: str) -> None: ...
        def _update_status(self) -> None: ...
        def _update_marks(self) -> None: ...
        def call_after_refresh(self, callback: Any) -> bool: ...

    _relation_shown: str | None = None
    """The relation highlighted in the relation list while that list has the focus."""

    def relation_rows(self, ann: Annotations, noted: Collection[str] = ()) -> list[tuple[str, Text]]:
        """The relation list: one multi-line row per relation (head, then each end); ``#`` before
        the head of a relation with a note."""
        idx = self.view.relations or RelationIndex(
            ann.spans, ann.relations, ann.entities, self.view.undirected
        )
        cache = self._relation_rows
        fresh: dict[str, tuple[tuple[object, ...], Text]] = {}
        rows = []
        for r in ann.relations:
            key = (r, r.id in noted, idx.undirected, *_row_inputs(idx, r))
            hit = cache.get(r.id)
            row = hit[1] if hit is not None and hit[0] == key else None
            if row is None:
                row = Text("# ") + idx.list_row(r) if r.id in noted else idx.list_row(r)
            fresh[r.id] = (key, row)
            rows.append((r.id, row))
        self._relation_rows = fresh
        return rows

    _relation_rows: dict[str, tuple[tuple[object, ...], Text]] = {}  # noqa: RUF012 - replaced, never mutated
    """Each relation's row with what it was written from: an edit rewrites only the rows whose
    relation or ends changed (a full-text article has hundreds of relations)."""

    _legend_types: frozenset[str] | None = None

    def update_legend(self) -> None:
        """Redraw the legend when the document's set of types changed (not on every edit)."""
        s = self.session
        if s is None:
            return
        types = frozenset(sp.type for sp in s.annotations.spans)
        if types != self._legend_types:
            self._legend_types = types
            box = self.query_one("#legend", Static)
            box.update(legend(s.annotations.spans, type_colours(s.schema), box.size.width))

    def on_resize(self, _event: object) -> None:
        """A new terminal size: the legend is laid out again for the side panel's new width."""
        self._legend_types = None
        self.call_after_refresh(self.update_legend)

    def update_partners(self) -> None:
        """The active span's relation partners get their own highlight; its and their markers stand
        out; the margin joins it to them."""
        idx = self.view.relations
        self._relation_shown = None
        if self._text_pick is not None:
            self.show_text_pick()
            return
        if self.active is None:
            self.view.set_partners([])
            self.view.set_connectors([])
            return
        partners = list(idx.partners(self.active)) if idx is not None else []
        here = getattr(self, "relation_suggestion_here", lambda: None)()
        if here is not None:  # a relation suggested with the active span: its other end(s) too
            frags = [
                tuple(f) for a in (here.payload or {}).get("args") or () for f in a.get("fragments") or ()
            ]
            at = self.view.cursor
            mine = {f for f in frags if f[0] <= at < f[1]}
            partners += [(int(a), int(b)) for a, b in frags if (a, b) not in mine and (a, b) not in partners]
        self.view.set_partners(partners, idx.hot_ends(self.active) if idx is not None else ())
        self.view.set_connectors(
            connector_pairs(idx, idx.relations_of(self.active)) if idx is not None else []
        )

    def relation_line(self, line1: str) -> str:
        """The detail line: the relation shown in the list, else the active span's roles added."""
        idx = self.view.relations
        if idx is None:
            return line1
        shown = self._relation_shown
        if shown is not None and shown in idx.relations and self.focused is self.query_one("#relations"):
            # whole texts when the line has room (160 columns), abbreviated to fit it otherwise
            rel = idx.relations[shown]
            room = max(40, self.query_one("#status").size.width - 2)
            for n in (200, 40, 24, 12):
                line = idx.describe(rel, n=n)
                if len(line) <= room:
                    break
            return line
        if self.active is not None and self.active in idx.spans and not self.view.selection:
            room = max(40, self.query_one("#status").size.width - 2)
            head = f"{line1} · {len(idx.relations_of(self.active))} rel: "
            for n in (200, 40, 24, 12):  # the count first: what does not fit is cut (V lists it all)
                line = head + idx.span_roles(self.active, n=n)
                if len(line) <= room:
                    break
            if line != head:
                return line
        return line1

    def action_relations_view(self) -> None:
        """Show and focus the relation list, on a relation of the active span when there is one."""
        self._show_list("relations")
        ol = self.query_one("#relations", OptionList)
        keys = self._list_keys.get("relations", [])
        idx = self.view.relations
        if idx is not None and self.active is not None:
            mine = [r.id for r in idx.relations_of(self.active)]
            if mine and mine[0] in keys:
                ol.highlighted = keys.index(mine[0])
        ol.focus()
        if not keys:
            self.notify("no relation in this document yet (r adds one)")
            return
        if ol.highlighted is not None:
            self.show_relation(keys[ol.highlighted])

    def action_toggle_types(self) -> None:
        """Type labels under every span, drawn over its width (nested, adjacent spans told apart)."""
        self.view.set_show_types(not self.view.show_types)  # seen at once: no notification

    def show_relation(self, rel_id: str) -> None:
        """Bring a relation into view: its source marked, its other ends as partners, both
        scrolled into sight, and the whole relation on the detail line."""
        idx = self.view.relations
        if idx is None or rel_id not in idx.relations:
            return
        source, others = idx.relation_ranges(rel_id)
        hot = [s.id for _r, _ref, spans in idx.ends(idx.relations[rel_id]) for s in spans]
        self.view.set_marks(source)
        self.view.set_partners(others, hot)
        self.view.set_connectors(connector_pairs(idx, [idx.relations[rel_id]]))
        every = source + others
        if every:
            self.view.reveal(min(a for a, _ in every), max(b for _, b in every))
        self._relation_shown = rel_id
        self._update_status()

    # -- picking a relation's argument in the text -----------------------------------------------
    _text_pick: TextPick | None = None

    async def pick_in_text(self, prompt: str, fits: Callable[[Span], bool], source: Span) -> object:
        """Let the annotator pick a span by moving in the text: the span under the cursor that
        ``fits`` is the candidate (pink, joined to ``source`` in the margin); Enter takes it, Tab
        goes back to the list, Esc cancels. Answers a span id, ``BACK_TO_LIST`` or None."""
        done: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._text_pick = TextPick(prompt, fits, source, done)
        self.app.waits_on(self)  # keys go to the text while the action waits here (not held)
        self.view.focus()
        self.show_text_pick()
        self._update_status()
        try:
            return await done
        finally:
            self._text_pick = None
            with contextlib.suppress(NoMatches):  # the screen may be closing (the worker cancelled)
                self.view.set_marks([])
                self._update_marks()
                self._update_status()

    def text_pick_candidate(self) -> Span | None:
        """The span the Enter of a text pick would take: the active span if it fits, else the
        innermost span under the cursor that fits."""
        pick = self._text_pick
        if pick is None:
            return None
        covering = self.view.paint.covering(self.view.cursor)
        active = next((c for c in covering if c.id == self.active), None)
        if active is not None and pick.fits(active):
            return active
        return next((c for c in covering if pick.fits(c)), None)

    def show_text_pick(self) -> None:
        """The source marked, the candidate in pink, the margin joining them."""
        pick = self._text_pick
        if pick is None:
            return
        cand = self.text_pick_candidate()
        self.view.set_marks(list(pick.source.fragments))
        self.view.set_partners(
            list(cand.fragments) if cand else [], [pick.source.id, *([cand.id] if cand else [])]
        )
        self.view.set_connectors([(pick.source.start, cand.start)] if cand else [])

    def text_pick_line(self) -> str:
        """The detail line while picking in the text: what is asked and what Enter would take."""
        pick = self._text_pick
        assert pick is not None
        cand = self.text_pick_candidate()
        here = f"Enter takes {cand.id} {cand.type} «{cand.text[:30]}»" if cand else "no span that fits here"
        return f"{pick.prompt} · {here} · move: n/N, arrows, w/b · Tab: the list · Esc: cancel"

    def action_text_pick(self, what: str) -> None:
        """Enter, Tab or Esc while picking an argument in the text."""
        pick = self._text_pick
        if pick is None or pick.done.done():
            return
        if what == "take":
            cand = self.text_pick_candidate()
            if cand is None:
                self.notify("no span that fits under the cursor: move onto one (n/N)", severity="warning")
                return
            pick.done.set_result(cand.id)
        else:
            pick.done.set_result(BACK_TO_LIST if what == "list" else None)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While picking in the text only moving, ``o`` and the pick's own keys act (any other
        action would start a dialog over the pick)."""
        if action == "text_pick":
            return self._text_pick is not None
        if self._text_pick is not None and action not in TEXT_PICK_ACTIONS:
            return False
        return super().check_action(action, parameters)  # type: ignore[misc,no-any-return]

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Moving in the relation list (while it has the focus) shows each relation in the text."""
        ol = event.option_list
        if ol.id != "relations" or self.focused is not ol:
            return
        keys = self._list_keys.get("relations", [])
        if 0 <= event.option_index < len(keys):
            self.show_relation(keys[event.option_index])
