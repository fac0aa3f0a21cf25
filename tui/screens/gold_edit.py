"""Editing one gold item before it is saved: a span's boundaries, type, attributes and groundings; a
relation's type, label, tags and arguments.

Why a modal screen of its own: an adjudicator often agrees with neither version but with a third
(alice's HostPart with bob's boundaries, one word shorter). The editor starts from a version (or a
new item), changes a draft key by key with the annotate screen's keys (arrows and w/b move, t type,
i attributes, g grounding, e label and tags) and returns the draft on Enter; the adjudicate screen
stores it through the API in one transaction. Nothing is written while the editor is open.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from corpusdb.basics.records import Annotations, Argument, Relation, Span
from guidelines.schema import Schema
from tui import adjudication as adj
from tui import clusters as cl
from tui import items as it
from tui import keymap
from tui.screens.base import HelpRows
from tui.screens.pickers import (
    ChecklistScreen,
    Choice,
    PickScreen,
    ask_attributes,
    grounding_prompt,
    type_picker,
)
from tui.textmodel import Boundaries
from tui.widgets.docview import DocumentView


class DraftView(DocumentView, can_focus=False):
    """The text with the draft marked; never focused, so the arrows move the draft, not a cursor."""


class GoldEditScreen(ModalScreen[Any]):
    """Change a draft gold span or relation; Enter returns it, Esc returns None."""

    AUTO_FOCUS = None
    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("gold_edit")

    def __init__(
        self, title: str, item: Span | Relation, *, text: str, schema: Schema, gold: Annotations
    ) -> None:
        super().__init__()
        self.title_text = title
        self.draft: Span | Relation = item
        self.original = item
        self.text = text
        self.schema = schema
        self.gold = gold
        self.bounds = Boundaries(text)
        self.side = "end"
        """Which boundary the arrows and w/b move: "start" or "end"."""

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog full", id="gold-edit"):
            yield Label(self.title_text, classes="dialog-title")
            yield DraftView(id="edit-text")
            yield Static("", id="draft", markup=False)
            yield Static(self._keys_note(), classes="dialog-note", markup=False)

    def on_mount(self) -> None:
        view = self.query_one("#edit-text", DocumentView)
        view.load(self.text, self.gold.spans, self.schema.colors())
        self._refresh()

    def _keys_note(self) -> str:
        if isinstance(self.draft, Span):
            g = " g grounding ·" if self.schema.rules.groundings else ""
            return f"←/→ w/b move the {self.side} · Tab start⇄end · t type · i attributes ·{g} Enter save · Esc cancel"
        return "t type · e label and tags · r an argument · Enter save · Esc cancel"

    def _refresh(self) -> None:
        view = self.query_one("#edit-text", DocumentView)
        d = self.draft
        if isinstance(d, Span):
            ranges = list(d.fragments)
            view.set_marks(ranges)
            view.move_to(d.fragments[0][0] if self.side == "start" else d.fragments[-1][1])
            where = ";".join(f"{a}-{b}" for a, b in d.fragments)
            body = f"{it.span_details(d, self.app.facade.labels)} · {where} · moving the {self.side}"  # type: ignore[attr-defined]
        else:
            spans = {s.id: s for s in self.gold.spans}
            ents = {e.id: e for e in self.gold.entities}
            view.set_marks(it.item_fragments(self.gold, [a.ref for a in d.args]))
            frags = it.item_fragments(self.gold, [a.ref for a in d.args[:1]])
            if frags:
                view.move_to(frags[0][0])
            body = str(it.relation_label(d, spans, ents))
        changed = "" if d == self.original else " (changed)"
        self.query_one("#draft", Static).update(f"{body}{changed}")
        self.query_one(".dialog-note", Static).update(self._keys_note())

    # -- spans ------------------------------------------------------------------------------------
    def action_boundary(self, unit: str, step: int) -> None:
        if not isinstance(self.draft, Span):
            return
        moved = adj.move_boundary(self.draft, self.text, self.bounds, self.side, unit, step)
        if moved == self.draft:
            self.app.bell()
            return
        self.draft = moved
        self._refresh()

    def action_switch_side(self) -> None:
        self.side = "start" if self.side == "end" else "end"
        self._refresh()

    async def _pick(self, title: str, choices: list[Choice], **kw: Any) -> Any:
        return await self.app.push_screen_wait(PickScreen(title, choices, **kw))

    @work(exclusive=True, group="dialog")
    async def action_retype(self) -> None:
        d = self.draft
        if isinstance(d, Span):
            t = await self.app.push_screen_wait(
                type_picker(f"Type for «{it.short(d.text, 40)}»", self.schema, d.type)
            )
            if t is None:
                return
            keep = {a.name for a in it.applicable_attributes(self.schema, str(t))}
            attrs = {k: v for k, v in d.attributes.items() if k in keep}
            self.draft = replace(d, type=str(t), attributes=attrs)
        else:
            n = len(d.args)
            types = [r for r in self.schema.relations if r.kind == "relation" and len(r.roles) == n]
            if not types:
                self.notify(f"no other relation type has {n} arguments", severity="warning")
                return
            picked = await self._pick(
                "Relation type",
                [Choice(r.name, f"{r.name} ({', '.join(ro.name for ro in r.roles)})", r.name) for r in types],
                initial=d.type,
            )
            if picked is None:
                return
            self.draft = adj.retype_relation(d, next(r for r in types if r.name == picked))
        self._refresh()

    @work(exclusive=True, group="dialog")
    async def action_attributes(self) -> None:
        d = self.draft
        if not isinstance(d, Span):
            return
        defs = it.applicable_attributes(self.schema, d.type)
        if not defs:
            self.notify(f"the schema has no attribute for {d.type}", severity="warning")
            return
        attrs = await ask_attributes(self.app, "Attributes", defs, dict(d.attributes))
        if attrs is None:
            return
        self.draft = replace(d, attributes=attrs)
        self._refresh()

    @work(exclusive=True, group="dialog")
    async def action_grounding(self) -> None:
        d = self.draft
        if not isinstance(d, Span):
            return
        if not self.schema.rules.groundings:
            self.notify("this schema does not allow groundings", severity="warning")
            return
        ref = await self.app.push_screen_wait(grounding_prompt(self.schema, d))
        if not ref:
            return
        self.app.facade.label_picked(ref)  # type: ignore[attr-defined]
        self.draft = it.toggle_grounding(d, ref, self.schema)
        self._refresh()

    # -- relations --------------------------------------------------------------------------------
    @work(exclusive=True, group="dialog")
    async def action_label_tags(self) -> None:
        d = self.draft
        if not isinstance(d, Relation):
            return
        rtype = self.schema.relation(d.type)
        if rtype is None or not (rtype.labels or rtype.tags):
            self.notify(f"{d.type} has no label or tags in this schema", severity="warning")
            return
        label, tags = d.label, d.tags
        ls = self.schema.label_set(rtype.labels) if rtype.labels else None
        if ls is not None:
            picked = await self._pick(
                f"{d.type}: label",
                [Choice(v.value, f"{v.name} ({v.value})", key=v.key or str(v.value)) for v in ls.values],
                filterable=False,
                initial=label,
            )
            if picked is None:
                return
            label = int(picked)
        if rtype.tags:
            chosen = await self.app.push_screen_wait(ChecklistScreen(f"{d.type}: tags", rtype.tags, tags))
            if chosen is None:
                return
            tags = chosen
        self.draft = replace(d, label=label, tags=tuple(tags))
        self._refresh()

    @work(exclusive=True, group="dialog")
    async def action_argument(self) -> None:
        """Point one argument at another gold span (pick the role, then the span)."""
        d = self.draft
        if not isinstance(d, Relation):
            return
        if len(d.args) == 1:
            index = 0
        else:
            spans = {s.id: s for s in self.gold.spans}
            ents = {e.id: e for e in self.gold.entities}  # an entity argument shows its names
            picked = await self._pick(
                "Which argument?",
                [
                    Choice(i, f"{a.role} = {it._ref_text(spans, a.ref, ents)}", key=str(i + 1))
                    for i, a in enumerate(d.args)
                ],
                filterable=False,
            )
            if picked is None:
                return
            index = int(picked)
        arg = d.args[index]
        rtype = self.schema.relation(d.type)
        role = next((r for r in rtype.roles if r.name == arg.role), None) if rtype else None
        types = role.types if role else ()
        here = it.item_fragments(self.gold, [arg.ref])  # a span's, or an entity's members'
        near = here[0][0] if here else 0
        colors = self.schema.colors()
        choices = [
            Choice(s.id, it.span_label(s, colors, width=40), f"{s.id} {s.type} {s.text}")
            for s in it.spans_near(self.gold, near)
            if not types or any(self.schema.is_a(s.type, t) for t in types)
        ]
        if not choices:
            self.notify("no gold span fits this role yet", severity="warning")
            return
        choices = cl.mark_entities(self.gold, self.schema, choices)
        target = await self._pick(f"{arg.role}: which gold span?", choices, initial=arg.ref)
        if target is None:
            return
        args = list(d.args)
        # on a schema whose relations join entities (BioRelEx), a member gives its gold entity
        args[index] = Argument(arg.role, cl.relation_ref(self.gold, self.schema, str(target)))
        self.draft = replace(d, args=tuple(args))
        self._refresh()

    # -- done -------------------------------------------------------------------------------------
    def action_save(self) -> None:
        self.dismiss(self.draft)

    def action_cancel(self) -> None:
        self.dismiss(None)


def editor_rows(screen: Any) -> HelpRows:
    """The editor's keys for the adjudicate screen's help (the editor is a modal without its own)."""
    grouped: dict[str, list[str]] = {}
    for b in Binding.make_bindings(GoldEditScreen.BINDINGS):
        grouped.setdefault(b.description, []).append(screen.app.get_key_display(b) or b.key)
    return [(" ".join(keys), desc) for desc, keys in grouped.items()]
