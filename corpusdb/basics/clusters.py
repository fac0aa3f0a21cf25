"""Clusters: the one model of "these mentions and names are one thing" (an entity).

A cluster can be recorded three ways: an explicit :class:`Entity` (the TUI's ``c``, BioRelEx
clusters), links of a symmetric type (the TUI's ``k`` with ``coreference``/``synonym``...), or
brat ``*`` lines (``Equiv``, ``Alias``), which the standoff reader keeps as links so the file is
written back byte for byte. Storage keeps how each was drawn; everything that *reads* clusters —
conflicts and adjudication, agreement, the TUI's lists, the exports — reads them through this module,
so alice's entity and bob's identical ``Equiv`` line are one and the same cluster everywhere.

The rule: within one set, the members of each explicit entity and the two ends of each symmetric
link are joined (transitive closure); each resulting group of spans is one :class:`Cluster`. A span
is in at most one cluster (a span in none is an entity of its own, not listed here); an explicit
entity without a member is a cluster of its own. Nothing here depends on the order in which names,
mentions, entities or links were listed, except which id and drawing a cluster keeps (the first
entity's, else the first link's), so that writing back a set read from a file changes nothing.

Pure: records in, records out (importers, agreement and the TUI use it like ``corpusdb.basics.records``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from corpusdb.basics.records import Annotations, Argument, Entity, Grounding
from corpusdb.basics.unionfind import UnionFind


class _LinkType(Protocol):
    @property
    def name(self) -> str: ...
    @property
    def aliases(self) -> Sequence[str]: ...
    @property
    def symmetric(self) -> bool: ...


class Schema(Protocol):
    """What this module reads of a ``guidelines.schema.Schema``: its link types. Why a Protocol: this
    module is a basic the importers use too, below the schemas, so it must not import them."""

    @property
    def links(self) -> Sequence[_LinkType]: ...


SYMMETRIC_LINK_TYPES: frozenset[str] = frozenset(
    {"synonym", "abbreviation", "coreference", "Equiv", "Alias", "Synonym", "Abbreviation", "Coreference"}
)
"""Link types that draw clusters when the schema does not say (a schema's ``symmetric`` link types)."""

DIRECTED_LINK_TYPES: frozenset[str] = frozenset({"part_of", "PartOf", "Part-of", "partOf"})

PLACE = ("file", "line", "prefix")
"""What of a drawing's position a cluster keeps (where its first ``*`` line stood)."""


def cluster_link_types(schema: Schema | None) -> frozenset[str]:
    """The link types that draw clusters in a project: the schema's symmetric ones and the usual names
    (``Equiv``, ``synonym``...) unless the schema says they are directed."""
    if schema is None:
        return SYMMETRIC_LINK_TYPES
    sym = {n for lt in schema.links if lt.symmetric for n in (lt.name, *lt.aliases)}
    asym = {n for lt in schema.links if not lt.symmetric for n in (lt.name, *lt.aliases)}
    return frozenset((SYMMETRIC_LINK_TYPES | sym) - asym)


def drawing_type(schema: Schema | None) -> str | None:
    """The link type a cluster made without one (an entity from the TUI's ``c``) is drawn with in
    brat: the schema's first symmetric link type (None: the writer's default)."""
    if schema is None:
        return None
    return next((lt.name for lt in schema.links if lt.symmetric), None)


@dataclass(frozen=True, slots=True)
class Cluster:
    """One entity of a set, however it was recorded."""

    id: str
    """The first explicit entity's id, else the first link drawing it (what relations and decisions name)."""
    type: str
    """The entity's type; for a cluster drawn only by links, its members' type (``A|B`` when they differ)."""
    members: tuple[str, ...]
    """Span ids: the entities' members in their order, then the linked spans in the order links name them."""
    entity_ids: tuple[str, ...] = ()
    link_ids: tuple[str, ...] = ()
    link_type: str | None = None
    """How links draw it (``Equiv``, ``coreference``...): brat writes it as a ``*`` line of this type."""
    attributes: Mapping[str, Any] = field(default_factory=dict)
    groundings: tuple[Grounding, ...] = ()
    extra: Mapping[str, Any] = field(default_factory=dict)
    """The entity's extra, else where its first link stood (``file``/``line``), with ``link_type``."""

    def entity(self) -> Entity:
        """The cluster as one :class:`Entity` (``extra["link_type"]`` when links draw it)."""
        extra = dict(self.extra)
        if self.link_type:
            extra["link_type"] = self.link_type
        return Entity(self.id, self.type, self.members, dict(self.attributes), self.groundings, extra)


def members_type(types: Iterable[str]) -> str:
    """The type of a cluster drawn only by links: its members' one type, or ``A|B`` when they differ."""
    return "|".join(sorted(set(types))) or "entity"


def clusters(ann: Annotations, symmetric: Collection[str] = SYMMETRIC_LINK_TYPES) -> list[Cluster]:
    """Every cluster of the set, explicit entities first (in their order), then those only links draw."""
    spans = {s.id: s for s in ann.spans}
    uf = UnionFind(root="first")  # roots: the first-seen member, so results are stable
    for e in ann.entities:
        known = [m for m in e.members if m in spans]
        for m in known:
            uf.add(m)
        for m in known[1:]:
            uf.union(known[0], m)
    drawing = [lk for lk in ann.links if lk.type in symmetric and lk.source in spans and lk.target in spans]
    for lk in drawing:
        uf.union(lk.source, lk.target)
    if not uf.parent and not ann.entities:
        return []
    by_root: dict[str, list[Any]] = {}  # root -> [entities, links, member order]
    empty: list[Entity] = []
    for e in ann.entities:
        known = [m for m in e.members if m in spans]
        if not known:
            empty.append(e)
            continue
        slot = by_root.setdefault(uf.find(known[0]), [[], [], {}])
        slot[0].append(e)
        for m in known:
            slot[2].setdefault(m, len(slot[2]))
    for lk in drawing:
        slot = by_root.setdefault(uf.find(lk.source), [[], [], {}])
        slot[1].append(lk)
    for slot in by_root.values():  # linked spans after the entities' members, in the order links name them
        for lk in slot[1]:
            slot[2].setdefault(lk.source, len(slot[2]))
            slot[2].setdefault(lk.target, len(slot[2]))
    out: list[Cluster] = []
    for ents, links, order in by_root.values():
        members = tuple(sorted(order, key=order.__getitem__))
        link_type = links[0].type if links else None
        if ents:
            first: Entity = ents[0]
            link_type = first.extra.get("link_type") or link_type
            typ = first.type
            if typ == first.extra.get("link_type"):  # gold made before clusters were one model: "Equiv"
                typ = members_type(spans[m].type for m in members)
            refs: dict[str, Grounding] = {}
            for e in ents:
                for g in e.groundings:
                    refs.setdefault(g.ref, g)
            extra = {k: v for k, v in first.extra.items() if k != "link_type"}
            out.append(Cluster(first.id, typ, members, tuple(e.id for e in ents), tuple(lk.id for lk in links),
                               link_type, dict(first.attributes), tuple(refs.values()), extra))  # fmt: skip
        else:
            place = {k: v for k, v in links[0].extra.items() if k in PLACE}
            out.append(Cluster(links[0].id, members_type(spans[m].type for m in members), members, (),
                               tuple(lk.id for lk in links), link_type, {}, (), place))  # fmt: skip
    for e in empty:
        extra = {k: v for k, v in e.extra.items() if k != "link_type"}
        out.append(Cluster(e.id, e.type, tuple(e.members), (e.id,), (), e.extra.get("link_type"),
                           dict(e.attributes), tuple(e.groundings), extra))  # fmt: skip
    return out


def as_entities(ann: Annotations, symmetric: Collection[str] = SYMMETRIC_LINK_TYPES) -> Annotations:
    """The set with every cluster as one explicit :class:`Entity` and no symmetric link left: what a
    reader of clusters sees. Relations and notes naming a merged entity or a drawing link name the
    cluster instead. A set whose clusters are already its entities comes back as it is."""
    found = clusters(ann, symmetric)
    if not any(c.link_ids or len(c.entity_ids) > 1 for c in found):
        return ann
    to: dict[str, str] = {}
    for c in found:
        for x in (*c.entity_ids, *c.link_ids):
            if x != c.id:
                to[x] = c.id
    gone = {x for c in found for x in c.link_ids}
    rels = tuple(
        replace(r, args=tuple(Argument(a.role, to.get(a.ref, a.ref)) for a in r.args))
        if any(a.ref in to for a in r.args) else r
        for r in ann.relations
    )  # fmt: skip
    notes = tuple(replace(n, target=to[n.target]) if n.target in to else n for n in ann.notes)
    return replace(
        ann,
        relations=rels,
        links=tuple(lk for lk in ann.links if lk.id not in gone),
        notes=notes,
        entities=tuple(c.entity() for c in found),
    )


def cluster_of(
    ann: Annotations, span_id: str, symmetric: Collection[str] = SYMMETRIC_LINK_TYPES
) -> Cluster | None:
    """The cluster a span is in (None: in none)."""
    return next((c for c in clusters(ann, symmetric) if span_id in c.members), None)
