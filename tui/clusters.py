"""What making and editing an entity (a cluster of mentions and names) changes: pure functions.

Why apart from the screen: joining, leaving and moving are lists of ``Put``/``Remove`` tested
without a terminal, and the rules live in one place: an entity left empty goes (unless a relation
points at it: refused), a span that changes cluster loses the BioRelEx placement the importer kept
in its ``extra`` (else the writer, which also groups spans by that index, would put it back in its
old cluster), and a relation argument on a member is its entity when the schema says relations
join entities.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar

from rich.text import Text

from corpusdb.basics import clusters
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Entity, Span
from corpusdb.services.edits import Change, Put, Remove, apply_changes, dependents, next_id
from guidelines.schema import Schema
from tui.items import entity_of, likeness, short
from tui.paint import UNKNOWN_COLOR, contrast

C = TypeVar("C")

PLACEMENT = ("cluster", "name", "mention", "cluster_mentioned", "keys", "other", "empty")
"""Span ``extra`` keys that tie a span to the cluster it was read in (importers/biorelex.py)."""


def names(ann: Annotations, entity: Entity, n: int = 30) -> str:
    """``{ActRIIB|IIB}``: the members' names, each once, in member order."""
    spans = {s.id: s for s in ann.spans}
    texts = dict.fromkeys(spans[m].text for m in entity.members if m in spans)
    return "{" + short("|".join(texts), n) + "}"


def nearest_entities(
    ann: Annotations, offset: int, exclude: str | None = None, like: Span | None = None
) -> list[Entity]:
    """Entities by the distance of their nearest mentioned member to ``offset`` (names without a
    mention count as far away), then by id. With ``like`` (the span to put in one): entities of its
    type with a member of its text first, then those of its type, then the others."""
    spans = {s.id: s for s in ann.spans}

    def distance(e: Entity) -> int:
        starts = [spans[m].start for m in e.members if m in spans and spans[m].fragments]
        return min((abs(s - offset) for s in starts), default=1 << 30)

    def tier(e: Entity) -> int:
        return likeness(like, e.type, [spans[m].text for m in e.members if m in spans]) if like else 0

    return sorted((e for e in ann.entities if e.id != exclude), key=lambda e: (tier(e), distance(e), e.id))


def _placed(span: Span) -> Span:
    """The span without its read-in cluster placement (unchanged when it has none)."""
    if not any(k in span.extra for k in PLACEMENT):
        return span
    return replace(span, extra={k: v for k, v in span.extra.items() if k not in PLACEMENT})


def _drop(ann: Annotations, entity: Entity, span_id: str) -> list[Change]:
    """``span_id`` out of ``entity``: the entity without it, or removed when it was the last member."""
    rest = tuple(m for m in entity.members if m != span_id)
    if rest:
        return [Put(replace(entity, members=rest))]
    users = [r.id for r in ann.relations if any(a.ref == entity.id for a in r.args)]
    if users:
        raise InvalidInput(
            f"{span_id} is the last member of {entity.id}, which relation(s) {', '.join(users)} "
            f"point at: delete or change those first"
        )
    notes = [Remove("note", n.id) for n in ann.notes if n.target == entity.id]
    return [*notes, Remove("entity", entity.id)]


def _retyped(span: Span, type_: str) -> Span:
    return span if span.type == type_ else replace(span, type=type_)


def join(ann: Annotations, span: Span, entity_id: str) -> list[Change]:
    """Put ``span`` (in no entity, or in another one it leaves) into entity ``entity_id``, giving it
    the entity's type (a cluster has one label: the BioRelEx writer keeps only the entity's)."""
    target = next(e for e in ann.entities if e.id == entity_id)
    if span.id in target.members:
        raise InvalidInput(f"{span.id} is already in {entity_id}")
    out: list[Change] = []
    if (old := entity_of(ann, span.id)) is not None:
        out += _drop(ann, old, span.id)
    out.append(Put(replace(target, members=(*target.members, span.id))))
    new = _retyped(_placed(span), target.type)
    if new != span:
        out.append(Put(new))
    return out


def new_entity(ann: Annotations, spans: list[Span]) -> tuple[Entity, list[Change]]:
    """A new entity of the first span's type with ``spans`` as members (each in no entity yet; a
    member of another type takes the entity's type)."""
    type_ = spans[0].type
    entity = Entity(next_id(ann, "entity"), type_, tuple(s.id for s in spans))
    out: list[Change] = [Put(entity)]
    for s in spans:
        if entity_of(ann, s.id) is not None:
            raise InvalidInput(f"{s.id} is already in an entity: join that one instead")
        new = _retyped(_placed(s), type_)
        if new != s:
            out.append(Put(new))
    return entity, out


def leave(ann: Annotations, span: Span) -> list[Change]:
    """Take ``span`` out of its entity (which goes when it was the last member, unless a relation
    points at it: refused with InvalidInput)."""
    old = entity_of(ann, span.id)
    if old is None:
        raise InvalidInput(f"{span.id} is in no entity")
    out = _drop(ann, old, span.id)
    if (new := _placed(span)) != span:
        out.append(Put(new))
    return out


def move_to_new(ann: Annotations, span: Span) -> tuple[Entity, list[Change]]:
    """Take ``span`` out of its entity into a new one-member entity of its own (one action; the
    old entity goes when it was the last member, unless a relation points at it: refused)."""
    old = entity_of(ann, span.id)
    if old is None:
        raise InvalidInput(f"{span.id} is in no entity")
    if old.members == (span.id,):
        raise InvalidInput(f"{span.id} is alone in {old.id} already")
    entity = Entity(next_id(ann, "entity"), span.type, (span.id,))
    out = [*_drop(ann, old, span.id), Put(entity)]
    if (new := _placed(span)) != span:
        out.append(Put(new))
    return entity, out


def adopt(
    ann: Annotations, span_ids: Iterable[str], symmetric: Collection[str]
) -> tuple[Annotations, list[Change], dict[str, str]]:
    """The clusters of ``span_ids`` drawn by links (brat ``Equiv`` lines, ``k``'s coreference links)
    as explicit entities, so ``c`` edits them as the one kind of cluster there is (``corpusdb.basics.clusters``).

    Returns the set after it, the changes (each drawing link removed, one entity put, of the links'
    type and place; relations and notes that named a drawing link name the entity), and old id -> new
    id (a drawn cluster's listed id is its first link's). Clusters already one entity: no change."""
    wanted = set(span_ids)
    changes: list[Change] = []
    renamed: dict[str, str] = {}
    taken: set[str] = set()
    for c in clusters.clusters(ann, symmetric):
        if not wanted & set(c.members) or not (c.link_ids or len(c.entity_ids) > 1):
            continue
        eid = c.entity_ids[0] if c.entity_ids else next_id(ann, "entity", taken)
        taken.add(eid)
        for x in (c.id, *c.link_ids, *c.entity_ids):
            if x != eid:
                renamed[x] = eid
        changes += [Remove("link", x) for x in c.link_ids]
        changes += [Remove("entity", x) for x in c.entity_ids[1:]]
        changes.append(Put(replace(c.entity(), id=eid)))
    if not changes:
        return ann, [], {}
    for r in ann.relations:
        if any(a.ref in renamed for a in r.args):
            changes.append(
                Put(replace(r, args=tuple(replace(a, ref=renamed.get(a.ref, a.ref)) for a in r.args)))
            )
    changes += [Put(replace(n, target=renamed[n.target])) for n in ann.notes if n.target in renamed]
    new, _ = apply_changes(ann, changes)
    return new, changes, renamed


def dissolve(ann: Annotations, entity_id: str) -> tuple[list[str], list[Change]]:
    """Dissolve an entity: its members stay as spans (without their read-in cluster placement, else
    the BioRelEx writer would group them again), what points at it goes (relations, transitively,
    links and notes). Returns (the ids of what goes with it, the changes)."""
    entity = next((e for e in ann.entities if e.id == entity_id), None)
    if entity is None:
        raise InvalidInput(f"no entity {entity_id}")
    gone = dependents(ann, entity_id)
    spans = {s.id: s for s in ann.spans}
    freed = [Put(new) for m in entity.members if m in spans and (new := _placed(spans[m])) != spans[m]]
    return [r.key for r in gone], [*gone, Remove("entity", entity_id), *freed]


def relation_ref(ann: Annotations, schema: Schema, span_id: str) -> str:
    """What a relation argument on ``span_id`` points at: its entity when the schema's relations
    join entities (BioRelEx) and it is in one, else the span itself."""
    if schema.rules.relations_join_entities and (e := entity_of(ann, span_id)) is not None:
        return e.id
    return span_id


def mark_entities(ann: Annotations, schema: Schema, choices: list[C]) -> list[C]:
    """Span choices of a relation argument picker, each member saying which entity it stands for
    (``T4 Activin = C2``) on a schema whose relations join entities; unchanged elsewhere."""
    if not schema.rules.relations_join_entities:
        return choices
    out: list[C] = []
    for c in choices:
        ch: Any = c
        ref = relation_ref(ann, schema, str(ch.value))
        out.append(
            c
            if ref == ch.value
            else replace(ch, label=Text.assemble(ch.label, f" = {ref}"), search=f"{ch.search} {ref}")
        )
    return out


def entity_row(spans: Mapping[str, Span], entity: Entity, colors: Mapping[str, str], *, n: int = 30) -> Text:
    """An entity in the side list: a head line (type, id, member count), then one line per member
    (a name without a mention says so). ``spans`` by id, built once for the whole list."""
    color = colors.get(entity.type, UNKNOWN_COLOR)
    flags = ("@" if entity.groundings else "") + ("*" if entity.attributes else "")
    out = Text.assemble(
        (f"{entity.type[:12]}", f"bold {contrast(color)} on {color}"),
        (f" {entity.id}{flags}", "bold"),
        f" ({len(entity.members)})",
    )
    for m in entity.members:
        sp = spans.get(m)
        where = "" if sp is None or sp.fragments else " (no mention)"
        out.append(f"\n  {m} {short(sp.text, n) if sp else '?'}{where}")
    return out
