"""The annotation screen's entities (clusters of mentions and names): the ``c`` action and the list.

Why a mixin of its own: ``annotate.py`` keeps the screen (layout, saving, undo); the rules of what
joining, leaving and moving change are pure functions in ``tui.clusters``; this runs the dialogs
and shows an entity's members in the text. Every path ends in one ``_act``: one transaction, one
undo step. Only the annotator's own set is read (blindness).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import work
from textual.widgets import OptionList

from corpusdb.basics import clusters
from corpusdb.basics.errors import CorpusError
from corpusdb.basics.records import Annotations, Entity, Span
from corpusdb.services.edits import Change
from tui import clusters as cl
from tui import items as it
from tui.colours import type_colours
from tui.screens.pickers import Choice, MessageScreen

if TYPE_CHECKING:
    from textual.app import App

    from tui.session import DocumentSession
    from tui.widgets.docview import DocumentView

NEW_WITH = "+new"
ALONE = "+alone"
LEAVE = "+leave"
OWN = "+own"


class ClusterActions:
    """Mixed into ``AnnotateScreen``, which provides the state and the few methods stubbed here."""

    session: DocumentSession | None
    active: str | None
    _list_keys: dict[str, list[str]]

    if TYPE_CHECKING:
        app: App[Any]
        view: DocumentView
        focused: Any

        def query_one(self, selector: str, expect_type: type[Any] = ...) -> Any: ...
        def notify(
            self, message: str, *, severity: Any = "information", timeout: float | None = None
        ) -> None: ...
        def fail(self, exc: BaseException, doing: str = "") -> None: ...
        def _act(self, changes: list[Change], description: str, *, active: str | None = None) -> bool: ...
        def _active_span(self, doing: str) -> Span | None: ...
        def _writable(self) -> bool: ...
        def _focused_item(self, list_id: str) -> str | None: ...
        def _show_list(self, list_id: str) -> None: ...
        def _update_status(self) -> None: ...
        def _span_choices(
            self,
            near: int,
            *,
            exclude: set[str] | frozenset[str] = ...,
            types: tuple[str, ...] = ...,
            like: Span | None = ...,
        ) -> list[Choice]: ...
        async def _pick(self, title: str, choices: list[Choice], **kw: object) -> object: ...

    def cluster_types(self) -> frozenset[str]:
        """The link types that draw clusters in this project (``corpusdb.basics.clusters``)."""
        assert self.session is not None
        return clusters.cluster_link_types(self.session.schema)

    def cluster_view(self, ann: Annotations) -> Annotations:
        """The set as the one cluster model reads it: every cluster an entity, whether made with ``c``,
        drawn with ``k``'s coreference links or imported as brat ``Equiv`` lines (listed under its
        first link's id until ``c`` edits it)."""
        types = self.cluster_types()
        cached = self._cluster_cache
        if cached is not None and cached[0] is ann and cached[1] == types:  # the same (immutable) set
            return cached[2]
        view = clusters.as_entities(ann, types)
        self._cluster_cache = (ann, types, view)
        return view

    _cluster_cache: tuple[Annotations, frozenset[str], Annotations] | None = None
    """The last set read as clusters: the status line asks on every keystroke, and a full-text
    article's thousands of spans make each reading cost a millisecond."""

    def entity_rows(self, ann: Annotations) -> list[tuple[str, Text]]:
        """The entity list: one multi-line row per entity (head, then each member)."""
        assert self.session is not None
        colors = type_colours(self.session.schema)
        spans = {sp.id: sp for sp in ann.spans}
        return [(e.id, cl.entity_row(spans, e, colors)) for e in self.cluster_view(ann).entities]

    def _entity_choice(self, ann: Annotations, e: Entity, verb: str) -> Choice:
        label = f"{verb} {e.id} {e.type} {cl.names(ann, e, 40)} ({len(e.members)})"
        return Choice(e.id, label, f"{e.id} {e.type} {cl.names(ann, e, 200)}")

    async def _same_type(self, span: Span, type_: str, entity: str) -> bool:
        """A span of another type joins only as the entity's type: ask (a cluster has one label;
        the BioRelEx writer keeps the entity's)."""
        if span.type == type_:
            return True
        answer = await self.app.push_screen_wait(
            MessageScreen(
                f"{span.id} is {span.type}, {entity} is {type_}",
                f"An entity has one type: its members are {type_}. {span.id} «{it.short(span.text, 30)}» "
                f"becomes {type_} if it joins.",
                {"enter": ("join", f"make {span.id} {type_} and join")},
            )
        )
        return answer == "join"

    @work(exclusive=True, group="dialog")
    async def action_cluster(self) -> None:
        """The active span's entity: join one, start one (with another span, or alone), leave it,
        or move to another."""
        if not self._writable() or (span := self._active_span("entity")) is None:
            return
        s = self.session
        assert s is not None
        view = self.cluster_view(s.annotations)  # clusters drawn by links are entities here too
        current = it.entity_of(view, span.id)
        head = f"{span.id} {span.type} «{it.short(span.text, 24)}»"
        ann = view
        if current is None:
            choices = [
                self._entity_choice(ann, e, "join") for e in cl.nearest_entities(ann, span.start, like=span)
            ]
            choices += [
                Choice(NEW_WITH, "new entity with another span (pick it)", "new entity with another span"),
                Choice(ALONE, f"new entity of {span.id} alone", "new entity alone one member"),
            ]
            title = f"Entity for {head}"
        else:
            choices = [Choice(LEAVE, f"leave {current.id} {cl.names(ann, current, 40)}", "leave")]
            if len(current.members) > 1:  # alone already: a new entity would change nothing
                choices.append(
                    Choice(OWN, f"move to a new entity of {span.id} alone", "move to a new entity alone")
                )
            choices += [
                self._entity_choice(ann, e, "move to")
                for e in cl.nearest_entities(ann, span.start, exclude=current.id, like=span)
            ]
            title = f"{head} is in {current.id}"
        picked = await self._pick(title, choices)
        if picked is None:
            return
        # the clusters taking part become explicit entities first (links drawing them go), in the
        # same action: one kind of cluster to edit, one undo step
        target = next((e for e in view.entities if e.id == picked), None)
        involved = [span.id, *(target.members[:1] if target is not None else ())]
        ann, pre, renamed = cl.adopt(s.annotations, involved, self.cluster_types())
        current = it.entity_of(ann, span.id)
        picked = renamed.get(str(picked), picked)
        try:
            if picked == LEAVE:
                assert current is not None
                changes = cl.leave(ann, span)
                gone = " (now empty: removed)" if len(current.members) == 1 else ""
                self._apply(pre + changes, f"{span.id} leaves {current.id}{gone}", span.id, current.id)
            elif picked == OWN:
                assert current is not None
                entity, changes = cl.move_to_new(ann, span)
                self._apply(
                    pre + changes, f"{span.id} moves {current.id} → new {entity.id}", span.id, entity.id
                )
            elif picked in (NEW_WITH, ALONE):
                members = [span]
                if picked == NEW_WITH:
                    taken = {m for e in view.entities for m in e.members} | {span.id}
                    other = await self._pick(
                        f"New entity: {head} with which span?",
                        self._span_choices(span.start, exclude=taken, like=span),
                    )
                    other_span = next((x for x in ann.spans if x.id == other), None)
                    if other_span is None or not await self._same_type(
                        other_span, span.type, "the new entity"
                    ):
                        return
                    members.append(other_span)
                entity, changes = cl.new_entity(ann, members)
                who = "+".join(m.id for m in members)
                self._apply(
                    pre + changes, f"new entity {entity.id} {entity.type} ({who})", span.id, entity.id
                )
            else:
                target = next(e for e in ann.entities if e.id == picked)
                if not await self._same_type(span, target.type, target.id):
                    return
                changes = cl.join(ann, span, target.id)
                verb = f"moves {current.id} →" if current is not None else "joins"
                self._apply(pre + changes, f"{span.id} {verb} {target.id}", span.id, target.id)
        except CorpusError as exc:
            self.fail(exc, "not done")

    @work(exclusive=True, group="dialog")
    async def dissolve_entity(self, entity_id: str) -> None:
        """Dissolve an entity (x in the entity list): its members stay as spans; relations, links
        and notes that point at it go too, asked first and named (as removing a gold span with
        relations resting on it is). One action: u brings all of it back."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        drawn = next((e for e in self.cluster_view(s.annotations).entities if e.id == entity_id), None)
        ann, pre, renamed = cl.adopt(s.annotations, drawn.members[:1] if drawn else (), self.cluster_types())
        entity_id = renamed.get(entity_id, entity_id)
        try:
            gone, changes = cl.dissolve(ann, entity_id)
        except CorpusError as exc:
            self.fail(exc, "not done")
            return
        changes = pre + changes
        entity = next(e for e in ann.entities if e.id == entity_id)
        also = f" and {', '.join(gone)} pointing at it" if gone else ""
        if gone:
            answer = await self.app.push_screen_wait(
                MessageScreen(
                    f"Dissolve {entity_id} {cl.names(ann, entity, 40)}{also}?",
                    f"Its members {', '.join(entity.members)} stay as spans; {', '.join(gone)} "
                    "would point at nothing and go with it. u undoes it all.",
                    {"enter": ("dissolve", "dissolve")},
                )
            )
            if answer is None:
                return
        description = f"dissolve {entity_id}{also}"
        if self._act(changes, description):
            self.notify(f"{description}; its members stay (u to undo)")

    def _apply(self, changes: list[Change], description: str, span_id: str, entity_id: str) -> None:
        if not self._act(changes, description, active=span_id):
            return
        self.notify(f"{description} (u to undo)")
        self._show_list("entities")
        keys = self._list_keys.get("entities", [])
        if entity_id in keys:
            self.query_one("#entities", OptionList).highlighted = keys.index(entity_id)

    def entity_line(self, entity_id: str) -> str:
        """The detail line for an entity: its type, every name, how many members, its relations."""
        assert self.session is not None
        ann = self.cluster_view(self.session.annotations)
        e = next((x for x in ann.entities if x.id == entity_id), None)
        if e is None:
            return entity_id
        rels = [r.id for r in ann.relations if any(a.ref == e.id for a in r.args)]
        return (
            f"{e.id} {e.type} {cl.names(ann, e, 60)} · {len(e.members)} names/mentions"
            + (f" · in {','.join(rels)}" if rels else "")
            + " · enter: go to it"
        )

    def show_entity(self, entity_id: str) -> None:
        """Mark an entity's members in the text (all of them, as the relation display does for an
        entity argument) and bring them into sight."""
        s = self.session
        if s is None:
            return
        ranges = it.item_ranges(self.cluster_view(s.annotations), "entity", entity_id)
        self.view.set_marks(ranges)
        self.view.set_partners([])
        if ranges:
            self.view.reveal(min(a for a, _ in ranges), max(b for _, b in ranges))
        self._update_status()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        """Moving in the entity list (while it has the focus) shows each entity's members. (Textual
        calls each class's handler of this name along the MRO: RelationPanel's handles relations.)"""
        if event.option_list.id != "entities" or self.focused is not event.option_list:
            return
        keys = self._list_keys.get("entities", [])
        if 0 <= event.option_index < len(keys):
            self.show_entity(keys[event.option_index])
