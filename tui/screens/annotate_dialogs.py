"""The dialog-driven annotation actions: new span, type, fragment, attributes, grounding, link, relation.

Why a mixin of its own: each action is a short chain of modal pickers awaited in an async worker
(``push_screen_wait``); keeping them here leaves ``annotate.py`` with the screen itself (layout,
saving, lists, undo). Every action ends in one ``_act(changes, description)``: one transaction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual import work

from corpusdb.basics.records import Note, Relation, Span
from corpusdb.services.edits import Change, Put, Remove, next_id
from guidelines.schema import RelationType
from tui import clusters as cl
from tui import items as it
from tui.colours import type_colours
from tui.screens.pickers import (
    IN_TEXT,
    ChecklistScreen,
    Choice,
    PickScreen,
    PromptScreen,
    ask_attributes,
    grounding_prompt,
    kept_type_picker,
)
from tui.screens.relations_panel import BACK_TO_LIST
from tui.textmodel import trim

if TYPE_CHECKING:
    from textual.app import App

    from tui.session import DocumentSession
    from tui.widgets.docview import DocumentView


class AnnotationDialogs:
    """Mixed into ``AnnotateScreen``, which provides the state and the few methods stubbed here."""

    session: DocumentSession | None
    _last_type: str | None
    _cycle: int
    active: str | None

    if TYPE_CHECKING:
        app: App[Any]
        view: DocumentView

        def notify(
            self, message: str, *, severity: Any = "information", timeout: float | None = None
        ) -> None: ...
        def _act(self, changes: list[Change], description: str, *, active: str | None = None) -> bool: ...
        def _span(self, span_id: str | None) -> Span | None: ...
        def _active_span(self, doing: str) -> Span | None: ...
        def _focused_item(self, list_id: str) -> str | None: ...
        def _writable(self) -> bool: ...
        def _show_list(self, list_id: str) -> None: ...
        def _update_marks(self) -> None: ...
        def _update_status(self) -> None: ...
        def dissolve_entity(self, entity_id: str) -> None: ...
        async def pick_in_text(self, prompt: str, fits: Callable[[Span], bool], source: Span) -> object: ...

    def _target_range(self) -> tuple[int, int] | None:
        """The selection, else the word under the cursor, trimmed of spaces."""
        v = self.view
        rng = v.selection or v.bounds.word_at(v.cursor)
        if rng is None or self.session is None:
            return None
        start, end = trim(self.session.text, *rng)
        return (start, end) if start < end else None

    def _span_choices(
        self,
        near: int,
        *,
        exclude: set[str] | frozenset[str] = frozenset(),
        types: tuple[str, ...] = (),
        last: str | None = None,
        like: Span | None = None,
    ) -> list[Choice]:
        """Spans to pick from, nearest to ``near`` first (``last``, e.g. the source itself, at the
        end); with ``like``, those of its type and text first (see ``items.spans_near``)."""
        s = self.session
        assert s is not None
        colors = type_colours(s.schema)
        out = []
        for sp in sorted(it.spans_near(s.annotations, near, like), key=lambda x: x.id == last):
            if sp.id in exclude:
                continue
            if types and not any(s.schema.is_a(sp.type, t) for t in types):
                continue
            out.append(Choice(sp.id, it.span_label(sp, colors, width=40), f"{sp.id} {sp.type} {sp.text}"))
        return out

    async def _pick(self, title: str, choices: list[Choice], **kw: object) -> object:
        return await self.app.push_screen_wait(PickScreen(title, choices, **kw))  # type: ignore[arg-type]

    # -- span actions -----------------------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_annotate(self) -> None:
        """New span on the selection (or the word under the cursor), type picked from the schema."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        rng = self._target_range()
        if rng is None:
            self.notify("select some text first (shift+arrows, v, or the mouse)", severity="warning")
            return
        start, end = rng
        type_ = await self.app.push_screen_wait(
            kept_type_picker(self, f"Type for «{it.short(s.text[start:end], 40)}»", s.schema, self._last_type)
        )
        if type_ is None:
            return
        span = it.new_span(s.annotations, s.text, start, end, str(type_))
        self._last_type = span.type
        self.view.clear_selection()
        if self._act([Put(span)], f"add {span.id} {span.type}", active=span.id):
            self.view.move_to(start)

    @work(exclusive=True, group="dialog")
    async def action_retype(self) -> None:
        if not self._writable() or (span := self._active_span("change type")) is None:
            return
        assert self.session is not None
        type_ = await self.app.push_screen_wait(
            kept_type_picker(
                self, f"New type for {span.id} «{it.short(span.text, 30)}»", self.session.schema, span.type
            )
        )
        if type_ is None or type_ == span.type:
            return
        self._last_type = str(type_)
        self._act([Put(replace(span, type=str(type_)))], f"{span.id} → {type_}")

    def action_delete(self) -> None:
        """Delete the highlighted list item (an entity: dissolved, its members stay), else the span
        under the cursor (with what points at it)."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        rel = self._focused_item("relations")
        if rel is not None:
            self._act([Remove("relation", rel)], f"delete {rel}")
            return
        link = self._focused_item("links")
        if link is not None:
            self._act([Remove("link", link)], f"delete {link}")
            return
        entity = self._focused_item("entities")
        if entity is not None:  # the entity list: dissolve the highlighted entity, not a span
            self.dissolve_entity(entity)
            return
        span = self._active_span("delete")
        if span is None:
            return
        changes = it.delete_span(s.annotations, span.id)
        extra = f" and {len(changes) - 1} item(s) pointing at it" if len(changes) > 1 else ""
        if self._act(changes, f"delete {span.id}{extra}"):
            self.notify(f"deleted {span.id}{extra} (u to undo)")

    @work(exclusive=True, group="dialog")
    async def action_fragment(self) -> None:
        """Add the selection as one more fragment of a span (a discontinuous span)."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        if not s.schema.rules.allow_discontinuous:
            self.notify("this schema does not allow discontinuous spans", severity="warning")
            return
        rng = self._target_range()
        if rng is None:
            self.notify("select the text of the new fragment first", severity="warning")
            return
        start, end = rng
        inside = {
            sp.id for sp in s.annotations.spans if any(a <= start and end <= b for a, b in sp.fragments)
        }
        target = await self._pick(
            f"Add «{it.short(s.text[start:end], 30)}» as a fragment of",
            self._span_choices(start, exclude=inside),
        )
        span = self._span(str(target)) if target is not None else None
        if span is None:
            return
        self.view.clear_selection()
        self._act(
            [Put(it.add_fragment(span, s.text, start, end))], f"fragment added to {span.id}", active=span.id
        )

    def action_unfragment(self) -> None:
        if not self._writable() or (span := self._active_span("remove fragment")) is None:
            return
        assert self.session is not None
        new = it.remove_fragment(span, self.session.text, self.view.cursor)
        if new is None:
            self.notify("that is the span's only fragment: x deletes the span", severity="warning")
            return
        self._act([Put(new)], f"fragment removed from {span.id}")

    @work(exclusive=True, group="dialog")
    async def action_attributes(self) -> None:
        if not self._writable() or (span := self._active_span("attributes")) is None:
            return
        s = self.session
        assert s is not None
        defs = it.applicable_attributes(s.schema, span.type)
        if not defs:
            self.notify(f"the schema has no attribute for {span.type}", severity="warning")
            return
        attrs = await ask_attributes(
            self.app, f"Attributes of {span.id} «{it.short(span.text, 30)}»", defs, dict(span.attributes)
        )
        if attrs is None or attrs == span.attributes:
            return
        self._act([Put(replace(span, attributes=attrs))], f"{span.id} attributes")

    @work(exclusive=True, group="dialog")
    async def action_grounding(self) -> None:
        if not self._writable() or (span := self._active_span("grounding")) is None:
            return
        s = self.session
        assert s is not None
        if not s.schema.rules.groundings and not span.groundings:  # the store would refuse it too
            self.notify(f"schema {s.schema.name} does not use groundings", severity="warning")
            return
        ref = await self.app.push_screen_wait(grounding_prompt(s.schema, span))
        if not ref:
            return
        self.facade.label_picked(ref)
        self._act([Put(it.toggle_grounding(span, ref, s.schema))], f"{span.id} grounding {ref.split(' ')[0]}")

    def action_cycle(self) -> None:
        """Make another span under the cursor the active one (nested or overlapping spans)."""
        covering = self.view.paint.covering(self.view.cursor)
        if len(covering) < 2:
            return
        self._cycle = (self._cycle + 1) % len(covering)
        self.active = covering[self._cycle].id
        self._update_marks()
        self._update_status()

    # -- links and relations ----------------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_link(self) -> None:
        if not self._writable() or (src := self._active_span("link")) is None:
            return
        s = self.session
        assert s is not None
        types = s.schema.links
        if not types:
            self.notify("this schema has no link types", severity="warning")
            return
        if len(types) == 1:
            ltype = types[0].name
        else:
            picked = await self._pick(
                f"Link {src.id} «{it.short(src.text, 20)}» as",
                [
                    Choice(
                        lt.name, f"{lt.name}" + (f" — {lt.description}" if lt.description else ""), lt.name
                    )
                    for lt in types
                ],
            )
            if picked is None:
                return
            ltype = str(picked)
        target = await self._pick(
            f"{ltype}: {src.id} → which span?", self._span_choices(src.start, exclude={src.id}, like=src)
        )
        if target is None:
            return
        link = it.new_link(s.annotations, ltype, src.id, str(target))
        self._act([Put(link)], f"add {link.id} {ltype}")

    def _relation_types(self) -> list[RelationType]:
        assert self.session is not None
        return [r for r in self.session.schema.relations if r.kind == "relation" and len(r.roles) >= 2]

    @work(exclusive=True, group="dialog")
    async def action_relation(self) -> None:
        """A relation from the active span: type, second argument, label, tags."""
        if not self._writable() or (src := self._active_span("relation")) is None:
            return
        s = self.session
        assert s is not None
        rtypes = self._relation_types()
        if not rtypes:
            self.notify("this schema has no binary relation types", severity="warning")
            return
        if len(rtypes) == 1:
            rtype = rtypes[0]
        else:
            picked = await self._pick(
                f"Relation from {src.id} «{it.short(src.text, 20)}»",
                [
                    Choice(r.name, f"{r.name} ({', '.join(ro.name for ro in r.roles)})", r.name)
                    for r in rtypes
                ],
            )
            if picked is None:
                return
            rtype = next(r for r in rtypes if r.name == picked)
        first, second = rtype.roles[0], rtype.roles[1]
        if (
            first.types
            and not any(s.schema.is_a(src.type, t) for t in first.types)
            and (not second.types or any(s.schema.is_a(src.type, t) for t in second.types))
        ):
            first, second = second, first  # the cursor is on what fits the other role
        # on a schema whose relations join entities (BioRelEx), a member stands for its entity
        src_ref = cl.relation_ref(s.annotations, s.schema, src.id)
        shown = src_ref if src_ref != src.id else f"{src.id} «{it.short(src.text, 16)}»"
        # on a schema whose relations join entities, each member says which entity it stands for
        choices = cl.mark_entities(
            s.annotations, s.schema, self._span_choices(src.start, types=second.types, last=src.id)
        )
        prompt = f"{rtype.name}: {first.name}={shown}; pick {second.name}"

        def fits(sp: Span) -> bool:
            return sp.id != src.id and (
                not second.types or any(s.schema.is_a(sp.type, t) for t in second.types)
            )

        while True:  # the list, or (Tab) moving in the text; Tab in the text goes back to the list
            target = await self._pick(prompt, choices, to_text=True)
            if target == IN_TEXT:
                target = await self.pick_in_text(prompt, fits, src)
                if target == BACK_TO_LIST:
                    continue
            break
        if target is None:
            return
        answer = await self._label_and_tags(rtype, None, ())
        if answer is None:
            return
        label, tags = answer
        args = [(first.name, src_ref), (second.name, cl.relation_ref(s.annotations, s.schema, str(target)))]
        args.sort(key=lambda a: [r.name for r in rtype.roles].index(a[0]))
        rel = it.new_relation(s.annotations, rtype.name, args, label, tags)
        self._act([Put(rel)], f"add {rel.id} {rtype.name}")
        self._show_list("relations")

    async def _label_and_tags(
        self, rtype: RelationType, label: int | None, tags: tuple[str, ...]
    ) -> tuple[int | None, tuple[str, ...]] | None:
        s = self.session
        assert s is not None
        ls = s.schema.label_set(rtype.labels) if rtype.labels else None
        if ls is not None:
            choices = [
                Choice(
                    v.value,
                    f"{v.name} ({v.value})" + (f" — {v.description}" if v.description else ""),
                    key=v.key or str(v.value),
                )
                for v in ls.values
            ]
            picked = await self._pick(f"{rtype.name}: label", choices, filterable=False, initial=label)
            if picked is None:
                return None
            label = (
                int(picked) if isinstance(picked, int | str) and str(picked).lstrip("-").isdigit() else None
            )
        if rtype.tags:
            chosen = await self.app.push_screen_wait(ChecklistScreen(f"{rtype.name}: tags", rtype.tags, tags))
            if chosen is None:
                return None
            tags = chosen
        return label, tags

    @work(exclusive=True, group="dialog")
    async def action_edit_relation(self) -> None:
        """Change the label and tags of a relation (the highlighted one, or one of the active span's)."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        rel_id = self._focused_item("relations")
        if rel_id is None:
            refs = {self.active} if self.active else set()
            if self.active and (entity := it.entity_of(s.annotations, self.active)) is not None:
                refs.add(entity.id)  # a relation on the span's entity is one of its relations too
            mine = [r for r in s.annotations.relations if any(a.ref in refs for a in r.args)]
            if not mine:
                self.notify(
                    "no relation here: put the cursor on an argument or pick one in Rels", severity="warning"
                )
                return
            spans = {sp.id: sp for sp in s.annotations.spans}
            ents = {e.id: e for e in s.annotations.entities}
            picked = (
                mine[0].id
                if len(mine) == 1
                else await self._pick(
                    "Which relation?", [Choice(r.id, it.relation_label(r, spans, ents)) for r in mine]
                )
            )
            if picked is None:
                return
            rel_id = str(picked)
        rel: Relation = next(r for r in s.annotations.relations if r.id == rel_id)
        rtype = s.schema.relation(rel.type)
        if rtype is None:
            self.notify(f"{rel.type} is not a relation type of this schema", severity="warning")
            return
        if not rtype.labels and not rtype.tags:  # nothing to pick: say so rather than do nothing
            self.notify(
                f"{rel.type} has no labels or tags in this schema: # adds a note, x deletes it",
                severity="warning",
            )
            return
        answer = await self._label_and_tags(rtype, rel.label, rel.tags)
        if answer is None:
            return
        label, tags = answer
        if (label, tags) != (rel.label, rel.tags):
            self._act([Put(replace(rel, label=label, tags=tags))], f"{rel.id} label/tags")

    # -- notes (brat ``#`` AnnotatorNotes) ------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_note(self) -> None:
        """Write, change or clear the note on the highlighted relation or link, else on the span under
        the cursor. Stored as a ``Note`` (type AnnotatorNotes): brat export writes it as a ``#`` line."""
        if not self._writable():
            return
        s = self.session
        assert s is not None
        target = self._focused_item("relations") or self._focused_item("links")
        if target is None:
            span = self._active_span("note")
            if span is None:
                return
            target = span.id
        note = it.note_of(s.annotations, target)
        text = await self.app.push_screen_wait(
            PromptScreen(
                f"Note on {target}",
                value=note.text if note else "",
                placeholder="free text, e.g. why this is annotated so",
                note="Enter saves · an empty note removes it · Esc cancels",
            )
        )
        if text is None or (note is not None and text == note.text) or (note is None and not text):
            return
        if note is None:
            new = Note(next_id(s.annotations, "note"), "AnnotatorNotes", target, text)
            self._act([Put(new)], f"note {new.id} on {target}")
        elif not text:
            self._act([Remove("note", note.id)], f"note on {target} removed")
        else:
            self._act([Put(replace(note, text=text))], f"note on {target} changed")
