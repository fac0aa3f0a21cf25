"""Align the items of n annotation sets of one document into *units* with stable keys (pure).

A unit is "one thing the sources talk about": a span (aligned by position under a matching
criterion), an entity (the sources' clusters that share any span unit, however each was recorded —
an explicit entity, coreference links, brat ``Equiv`` lines: ``corpusdb.basics.clusters`` — one unit per
cluster, so a disputed membership is one conflict, whatever the order of names and mentions), a
relation (type + arguments mapped through the span and entity units), a link that draws no cluster
(``part_of``: type + its two span units), a document label (its name). Each source contributes zero, one or (rarely) several
items to a unit. A unit is *agreed* when every source has exactly one item and all items are
identical; otherwise it is a conflict. Conflicts, auto-merge and the review queue all work on units.

Why the criterion only groups: under ``exact`` a boundary disagreement is two units (one span only
in A, one only in B); under ``partial`` it is one unit with two variants. Either way gold needs one
version, so variants must be identical to count as agreement; the criterion decides how disputes
are grouped and presented. Types are ``required`` by default, as everywhere (``--types``: one rule,
issue #26), and a type dispute is still one unit: "protein" against "gene" on the same words is one
dispute about the type, not two about presence (``_group_alternatives`` joins them whatever ``types``
says).

Keys are built from content, never from set ids, so the same sources give the same keys in every
process: ``span:12-19`` (``span:0-4;8-12`` discontinuous, ``span:name=IL-2`` without a mention,
``:<type>`` / ``#2`` appended only on collision), ``relation:bind(span:0-4,span:12-19)`` (roles kept
for directed types: ``relation:Localization(Bacterium=span:0-4,Localization=span:9-15)``),
``link:part_of(span:0-4,span:6-9)``, ``label:relevance``, ``entity:span:14-17`` (named by the first of
its members' span keys; a relation on it: ``relation:bind(entity:span:0-7,entity:span:14-17)``).

Span pairs come from ``corpusdb.agreement.spans.compare_spans`` (one-to-one matching), pairwise over
the sources and joined by union-find; relations map their arguments through those units as BioRelEx
and BioNLP scorers do. Annotator notes are personal and are not aligned.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from itertools import combinations
from typing import Any

import orjson

from corpusdb.basics import clusters
from corpusdb.basics.clusters import Cluster
from corpusdb.basics.records import (
    Annotations,
    DocLabel,
    Entity,
    Grounding,
    Link,
    Relation,
    Span,
    grounding_key,
)
from corpusdb.basics.unionfind import UnionFind
from corpusdb.workflow.types import Item, SourceRef, SourceSet, Variant
from guidelines.schema import Schema

KIND_ORDER = {"span": 0, "relation": 1, "link": 2, "label": 3, "entity": 4}


@dataclass(frozen=True, slots=True)
class Source:
    """One set taking part: who, and its content."""

    ref: SourceSet
    annotations: Annotations


@dataclass(slots=True)
class Member:
    source: int
    item: Item
    sig: Any = None


@dataclass(slots=True)
class Unit:
    key: str
    kind: str
    members: list[Member] = field(default_factory=list)
    deps: tuple[str, ...] = ()
    """Keys of the units this one's item points at (a relation's argument spans)."""
    depth: int = 0


def _frag_str(frags: Sequence[tuple[int, int]]) -> str:
    return ";".join(f"{a}-{b}" for a, b in frags)


def canon(value: Any) -> str:
    """A canonical text of JSON-like data (sorted keys), so equal mappings compare equal."""
    if not value:
        return ""
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=str).decode()


def span_sig(s: Span, entity: Entity | None = None) -> tuple[Any, ...]:
    """What must be identical for two sources to agree on a span. Attributes and groundings the span
    shares with its explicit entity (BioRelEx copies a cluster's onto every mention) are the
    entity's, disputed on the entity's unit, not once more on every mention."""
    attrs = dict(s.attributes)
    refs = tuple(sorted(g.ref for g in s.groundings))
    if entity is not None:
        if attrs == dict(entity.attributes):
            attrs = {}
        if refs == tuple(sorted(g.ref for g in entity.groundings)):
            refs = ()
    return (s.type, tuple(s.fragments), canon(attrs), refs)


def align(
    sources: Sequence[Source],
    text: str,
    *,
    schema: Schema | None = None,
    criterion: str = "exact",
    types: str = "required",
    jaccard: float = 0.5,
) -> list[Unit]:
    """Every unit of the document, spans first (by position), then relations, links and labels."""
    symmetric = clusters.cluster_link_types(schema)
    span_units, span_key = _align_spans(sources, text, criterion, types, jaccard)
    entity_units, entity_key = _entities(sources, span_key, symmetric)
    rel_units, _ = _relations(sources, {**span_key, **entity_key}, schema)
    link_units = _links(sources, span_key, symmetric)
    label_units = _labels(sources)
    for u in rel_units:
        u.depth = _depth(u, {x.key: x for x in rel_units})
    rel_units.sort(key=lambda u: (u.depth, u.key))
    return span_units + entity_units + rel_units + link_units + label_units


def _depth(u: Unit, rels: dict[str, Unit], seen: frozenset[str] = frozenset()) -> int:
    nested = [rels[d] for d in u.deps if d in rels and d not in seen]
    return 1 + max((_depth(n, rels, seen | {u.key}) for n in nested), default=0)


def _exact_pairs(a: Sequence[Span], b: Sequence[Span], types: str) -> list[tuple[str, str]]:
    """One-to-one pairs of spans with the same fragments (same type first; any type unless types are
    required): what ``compare_spans(..., "exact")`` matches, without its set-up cost per document."""
    free: dict[tuple[tuple[int, int], ...], list[Span]] = defaultdict(list)
    for y in b:
        free[tuple(y.fragments)].append(y)
    out: list[tuple[str, str]] = []
    rest: list[Span] = []
    for x in a:
        cands = free.get(tuple(x.fragments), [])
        same = next((y for y in cands if y.type == x.type), None)
        if same is not None:
            cands.remove(same)
            out.append((x.id, same.id))
        else:
            rest.append(x)
    if types == "ignored":
        for x in rest:
            cands = free.get(tuple(x.fragments), [])
            if cands:
                out.append((x.id, cands.pop(0).id))
    return out


def _align_spans(sources: Sequence[Source], text: str, criterion: str, types: str,
                 jaccard: float) -> tuple[list[Unit], dict[tuple[int, str], str]]:  # fmt: skip
    uf = UnionFind(root="min")
    for i, src in enumerate(sources):
        for s in src.annotations.spans:
            uf.find((i, s.id))
    texts = {"d": text} if criterion == "fragment" else None
    for i, j in combinations(range(len(sources)), 2):
        a = [s for s in sources[i].annotations.spans if s.fragments]
        b = [s for s in sources[j].annotations.spans if s.fragments]
        if a and b:
            if criterion == "exact":
                pairs = _exact_pairs(a, b, types)
            else:
                from corpusdb.agreement.spans import compare_spans  # numpy: lazily (issue #14)

                cmp = compare_spans({"d": (a, b)}, criterion, types=types, jaccard=jaccard, texts=texts)
                pairs = list(cmp.alignment().get("d", {}).items())
            for x, y in pairs:
                uf.union((i, x), (j, y))
        # names without a mention: same text and type first, in order; then same text of another
        # type (whatever ``types`` says: a type dispute is one unit, as for spans in
        # ``_group_alternatives``)
        na: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for s in sources[i].annotations.spans:
            if not s.fragments:
                na[(s.text, s.type)].append(s.id)
        rest: list[Span] = []
        for s in sources[j].annotations.spans:
            if not s.fragments:
                if na.get((s.text, s.type)):
                    uf.union((i, na[(s.text, s.type)].pop(0)), (j, s.id))
                else:
                    rest.append(s)
        by_text: dict[str, list[str]] = defaultdict(list)
        for (txt, _typ), ids in na.items():
            by_text[txt] += ids
        for s in rest:
            if by_text.get(s.text):
                uf.union((i, by_text[s.text].pop(0)), (j, s.id))
    groups: dict[Any, list[Member]] = defaultdict(list)
    for i, src in enumerate(sources):
        owner = {m: e for e in src.annotations.entities for m in e.members}
        for s in src.annotations.spans:
            groups[uf.find((i, s.id))].append(Member(i, s, span_sig(s, owner.get(s.id))))
    groups = dict(enumerate(_group_alternatives(list(groups.values()), len(sources))))

    def rep(ms: list[Member]) -> tuple[Any, ...]:
        return min((tuple(m.item.fragments), m.item.type, m.item.text) for m in ms)  # type: ignore[union-attr]

    def base(ms: list[Member]) -> str:
        frags, _typ, txt = rep(ms)
        return "span:" + (_frag_str(frags) if frags else f"name={txt}")

    ordered = sorted(groups.values(), key=lambda ms: (rep(ms), sorted(repr(m.sig) for m in ms)))
    by_base: dict[str, list[list[Member]]] = defaultdict(list)
    for ms in ordered:
        by_base[base(ms)].append(ms)
    units: list[Unit] = []
    span_key: dict[tuple[int, str], str] = {}
    for ms in ordered:
        b = base(ms)
        key = b
        if len(by_base[b]) > 1:
            key = f"{b}:{rep(ms)[1]}"
            same = [x for x in by_base[b] if rep(x)[1] == rep(ms)[1]]
            if len(same) > 1:
                n = next(k for k, x in enumerate(same) if x is ms)
                key = f"{key}#{n + 1}" if n else key
        u = Unit(key, "span", ms)
        units.append(u)
        for m in ms:
            span_key[(m.source, m.item.id)] = key  # type: ignore[union-attr]
    return units, span_key


def _overlap(a: Sequence[tuple[int, int]], b: Sequence[tuple[int, int]]) -> float:
    """Characters shared by two fragment lists over the characters either covers (0: disjoint)."""
    inter = sum(max(0, min(x1, y1) - max(x0, y0)) for x0, x1 in a for y0, y1 in b)
    if not inter:
        return 0.0
    return inter / (sum(x1 - x0 for x0, x1 in a) + sum(y1 - y0 for y0, y1 in b) - inter)


def _group_alternatives(found: list[list[Member]], n: int) -> list[list[Member]]:
    """Join overlapping spans of *different* sources that no alignment matched into one unit: they are
    alternatives of one another (alice 0-22 Bacterium, bob 0-30 Bacterium), one boundary dispute with
    its versions, not two presence disputes that could both be taken. Why only then: a group every
    source already holds is settled alignment, and two spans of one source are two things (nested
    or adjacent mentions), never alternatives. Best overlaps join first. Whatever ``types`` says (it
    decides what *agrees*), spans of different types join too: a type dispute is one conflict with both
    versions side by side, decided once, under the default ``required`` as under ``ignored`` (one
    rule for ``--types``, issue #26). Agreement figures do not use units, so they do not change."""
    open_ = [
        (k, ms) for k, ms in enumerate(found)
        if len({m.source for m in ms}) < n and all(m.item.fragments for m in ms)  # type: ignore[union-attr]
    ]  # fmt: skip
    if len(open_) < 2:
        return found
    ext = {k: (min(f[0] for m in ms for f in m.item.fragments), max(f[1] for m in ms for f in m.item.fragments))  # type: ignore[union-attr]
           for k, ms in open_}  # fmt: skip
    open_.sort(key=lambda kv: ext[kv[0]])
    pairs: list[tuple[float, int, int]] = []
    for x, (k, ms) in enumerate(open_):
        for k2, ms2 in open_[x + 1 :]:
            if ext[k2][0] >= ext[k][1]:
                break
            if {m.source for m in ms} & {m.source for m in ms2}:
                continue
            best = max(_overlap(m.item.fragments, m2.item.fragments) for m in ms for m2 in ms2)  # type: ignore[union-attr]
            if best > 0:
                pairs.append((-best, k, k2))
    if not pairs:
        return found
    uf = UnionFind(root="min")
    srcs = {k: {m.source for m in found[k]} for k, _ in open_}
    for _, k, k2 in sorted(pairs):
        r, r2 = uf.find(k), uf.find(k2)
        if r != r2 and not srcs[r] & srcs[r2]:
            uf.union(r, r2)
            srcs[uf.find(r)] = srcs[r] | srcs[r2]
    joined: dict[int, list[Member]] = {}
    for k, ms in enumerate(found):
        joined.setdefault(uf.find(k), []).extend(ms)
    return list(joined.values())


def entity_sig(e: Entity, members: tuple[str, ...], members_type: str | None = None) -> tuple[Any, ...]:
    """What must be identical for two sources to agree on an entity (members as span unit keys); how
    it was drawn (an entity, coreference links, brat ``*`` lines) is not part of it. A type that only
    restates the members' types (``members_type``: always so for a cluster drawn by links) is not
    compared: the members' span units carry that dispute, and the cluster waits on them."""
    typ = None if e.type == members_type else e.type
    return (typ, members, canon(dict(e.attributes)), tuple(sorted(g.ref for g in e.groundings)))


def _entities(sources: Sequence[Source], span_key: dict[tuple[int, str], str], symmetric: Collection[str]
              ) -> tuple[list[Unit], dict[tuple[int, str], str]]:  # fmt: skip
    """One unit per cluster (``corpusdb.basics.clusters``: explicit entities and symmetric links alike): the
    sources' clusters joined when they share a span unit, so a disputed membership is one conflict and
    the same cluster recorded two ways is one agreed unit."""
    uf = UnionFind(root="min")
    found: list[tuple[int, Cluster, tuple[str, ...]]] = []
    span_types: list[dict[str, str]] = [{s.id: s.type for s in src.annotations.spans} for src in sources]
    for i, src in enumerate(sources):
        for c in clusters.clusters(src.annotations, symmetric):
            keys = tuple(sorted({span_key.get((i, m), f"?{m}") for m in c.members}))
            uf.find(("e", i, c.id))
            for k in keys:
                uf.union(("e", i, c.id), ("s", k))
            found.append((i, c, keys))
    groups: dict[Any, list[tuple[int, Cluster, tuple[str, ...]]]] = defaultdict(list)
    for i, c, keys in found:
        groups[uf.find(("e", i, c.id))].append((i, c, keys))
    units: list[Unit] = []
    entity_key: dict[tuple[int, str], str] = {}
    for n, ms in enumerate(sorted(groups.values(), key=lambda ms: sorted(k for _, _, ks in ms for k in ks))):
        every = sorted({k for _, _, ks in ms for k in ks})
        key = f"entity:{every[0]}" if every else f"entity:{ms[0][1].type}#{n + 1}"
        u = Unit(key, "entity", deps=tuple(every))
        for i, c, keys in ms:
            e = c.entity()
            derived = clusters.members_type(span_types[i][m] for m in c.members if m in span_types[i])
            u.members.append(Member(i, e, entity_sig(e, keys, derived)))
            for x in (c.id, *c.entity_ids):
                entity_key[(i, x)] = key
        _share_drawing(u)
        units.append(u)
    return units, entity_key


def _share_drawing(u: Unit) -> None:
    """Versions that agree share how brat draws them: alice's entity agreeing with bob's ``Equiv``
    line goes into gold as an ``Equiv`` cluster, not as the writer's default type."""
    for _, ms in groups(u):
        drawn = next((m.item.extra["link_type"] for m in ms if m.item.extra.get("link_type")), None)  # type: ignore[union-attr]
        if drawn:
            for m in ms:
                if not m.item.extra.get("link_type"):  # type: ignore[union-attr]
                    m.item = replace(m.item, extra={**m.item.extra, "link_type": drawn})  # type: ignore[union-attr, type-var]


def _directed(schema: Schema | None, rtype: str) -> bool:
    if schema is None:
        return True
    rt = schema.relation(rtype)
    return True if rt is None else rt.directed


def _relations(sources: Sequence[Source], span_key: dict[tuple[int, str], str],
               schema: Schema | None) -> tuple[list[Unit], dict[tuple[int, str], str]]:  # fmt: skip
    rel_key: dict[tuple[int, str], str] = {}
    units: dict[str, Unit] = {}
    for i, src in enumerate(sources):
        rels = {r.id: r for r in src.annotations.relations}

        def key_of(r: Relation, stack: frozenset[str], i: int = i, rels: dict[str, Relation] = rels) -> str:
            if (i, r.id) in rel_key:
                return rel_key[(i, r.id)]
            parts: list[str] = []
            for a in r.args:
                if (i, a.ref) in span_key:
                    k = span_key[(i, a.ref)]
                elif a.ref in rels and a.ref not in stack:
                    k = key_of(rels[a.ref], stack | {r.id})
                else:
                    k = f"?{a.ref}"
                parts.append(f"{a.role}={k}" if _directed(schema, r.type) else k)
            trig = f"@{span_key.get((i, r.trigger), r.trigger)}" if r.trigger is not None else ""
            key = f"relation:{r.type}({','.join(sorted(parts))}){trig}"
            rel_key[(i, r.id)] = key
            return key

        for r in src.annotations.relations:
            k = key_of(r, frozenset())
            deps = tuple(span_key.get((i, a.ref)) or rel_key.get((i, a.ref)) or "" for a in r.args) + (
                (span_key.get((i, r.trigger), ""),) if r.trigger else ()
            )
            u = units.setdefault(k, Unit(k, "relation", deps=deps))
            sig = (r.label, tuple(sorted(r.tags)), canon(dict(r.attributes)), r.kind)
            u.members.append(Member(i, r, sig))
    return [part for u in units.values() for part in _split_duplicates(u)], rel_key


def _split_duplicates(u: Unit) -> list[Unit]:
    """A unit where a source has several items (BioRelEx repeats an interaction, sometimes with
    another label) split into one unit per repetition of each version: the j-th item of a version in
    each source shares a unit, so sources holding the same repeats agree and a repeat only one source
    made is a dispute about its presence. The order in which a source listed its repeats changes
    nothing; the unit held by most sources keeps the key, the others get ``#2``, ``#3``..."""
    per_source: dict[int, list[Member]] = defaultdict(list)
    for m in u.members:
        per_source[m.source].append(m)
    if all(len(ms) == 1 for ms in per_source.values()):
        return [u]
    slots: dict[tuple[str, int], list[Member]] = defaultdict(list)
    for ms in per_source.values():
        seen: dict[str, int] = defaultdict(int)
        for m in ms:
            sig = repr(m.sig)
            slots[(sig, seen[sig])].append(m)
            seen[sig] += 1
    ordered = sorted(slots.items(), key=lambda kv: (-len(kv[1]), kv[0]))
    return [
        Unit(u.key if k == 0 else f"{u.key}#{k + 1}", u.kind, ms, u.deps, u.depth)
        for k, (_, ms) in enumerate(ordered)
    ]


def _links(
    sources: Sequence[Source], span_key: dict[tuple[int, str], str], symmetric: Collection[str]
) -> list[Unit]:
    """Links that draw no cluster (part_of...), edge by edge; symmetric ones are clusters (``_entities``)."""
    units: dict[str, Unit] = {}
    for i, src in enumerate(sources):
        for lk in src.annotations.links:
            if lk.type in symmetric:
                continue
            ends = [
                span_key.get((i, lk.source), f"?{lk.source}"),
                span_key.get((i, lk.target), f"?{lk.target}"),
            ]
            k = f"link:{lk.type}({ends[0]},{ends[1]})"
            units.setdefault(k, Unit(k, "link", deps=tuple(ends))).members.append(Member(i, lk, ()))
    return sorted(units.values(), key=lambda u: u.key)


def _labels(sources: Sequence[Source]) -> list[Unit]:
    units: dict[str, Unit] = {}
    for i, src in enumerate(sources):
        for lb in src.annotations.labels:
            k = f"label:{lb.name}"
            units.setdefault(k, Unit(k, "label")).members.append(Member(i, lb, (lb.value,)))
    return sorted(units.values(), key=lambda u: u.key)


# -- reading a unit ---------------------------------------------------------------------------------


def ref_of(sources: Sequence[Source], m: Member) -> SourceRef:
    s = sources[m.source].ref
    local = m.item.name if isinstance(m.item, DocLabel) else m.item.id
    return SourceRef(s.annotator, s.set_id, local, s.kind)


def absent_ref(sources: Sequence[Source], i: int) -> SourceRef:
    s = sources[i].ref
    return SourceRef(s.annotator, s.set_id, "", s.kind)


def groups(u: Unit) -> list[tuple[Any, list[Member]]]:
    """Members grouped by identical content, largest group first (ties: first source first)."""
    by: dict[Any, list[Member]] = {}
    for m in u.members:
        by.setdefault(m.sig, []).append(m)
    return sorted(((k, v) for k, v in by.items()), key=lambda kv: (-len({m.source for m in kv[1]}),
                                                                   min(m.source for m in kv[1])))  # fmt: skip


def is_agreed(u: Unit, n_sources: int) -> bool:
    if len(u.members) != n_sources or len({m.source for m in u.members}) != n_sources:
        return False
    return len({m.sig for m in u.members}) == 1


def missing_sources(u: Unit, n_sources: int) -> list[int]:
    have = {m.source for m in u.members}
    return [i for i in range(n_sources) if i not in have]


def differs(u: Unit, n_sources: int) -> tuple[str, ...]:
    """What differs between the versions of a unit."""
    out: list[str] = []
    if missing_sources(u, n_sources):
        out.append("presence")
    if len({m.source for m in u.members}) != len(u.members):
        out.append("duplicate")
    items = [m.item for m in u.members]
    if u.kind == "span":
        sp: list[Span] = items  # type: ignore[assignment]
        for name, f in (("type", lambda s: s.type), ("boundaries", lambda s: tuple(s.fragments)),
                        ("attributes", lambda s: canon(dict(s.attributes))),
                        ("groundings", lambda s: tuple(sorted(g.ref for g in s.groundings)))):  # fmt: skip
            if len({f(s) for s in sp}) > 1:
                out.append(name)
    elif u.kind == "relation":
        rs: list[Relation] = items  # type: ignore[assignment]
        for name, g in (("label", lambda r: r.label), ("tags", lambda r: tuple(sorted(r.tags))),
                        ("attributes", lambda r: canon(dict(r.attributes)))):  # fmt: skip
            if len({g(r) for r in rs}) > 1:
                out.append(name)
    elif u.kind == "label" and len({lb.value for lb in items}) > 1:  # type: ignore[union-attr]
        out.append("value")
    elif u.kind == "entity":
        for k, name in enumerate(("type", "members", "attributes", "groundings")):
            if len({m.sig[k] for m in u.members}) > 1:
                out.append(name)
    return tuple(out)


def _names(ann: Annotations | None) -> dict[str, str]:
    """Local id -> what to show for it: a span's text, an entity's names as ``{a|b}``."""
    if ann is None:
        return {}
    names = {s.id: s.text for s in ann.spans}
    for e in ann.entities:
        names[e.id] = "{" + "|".join(sorted({names.get(m, m) for m in e.members})) + "}"
    return names


def _groundings(groundings: Sequence[Grounding], labels: Mapping[str, str] | None) -> str:
    """`` [uniprot:P60568, OBT:000001 (habitat)]``: ids, each with its knowledge-base label if known."""
    if not groundings:
        return ""
    shown = []
    for g in groundings:
        label = (labels or {}).get(grounding_key(g))
        shown.append(f"{g.ref} ({label})" if label else g.ref)
    return f" [{', '.join(shown)}]"


def display(
    item: Item | None, ann: Annotations | None = None, labels: Mapping[str, str] | None = None
) -> str:
    """A one-line human rendering of an item (``labels``: grounding key -> knowledge-base label)."""
    if item is None:
        return "(absent)"
    if isinstance(item, Entity):
        names = _names(ann)
        spans = {s.id: s for s in ann.spans} if ann is not None else {}
        shown = sorted(
            f"{names.get(m, m)}@{_frag_str(spans[m].fragments)}" if m in spans and spans[m].fragments
            else f"{names.get(m, m)} (no mention)" for m in item.members
        )  # fmt: skip
        g = _groundings(item.groundings, labels)
        extra = "".join(f" {k}" if v is True else f" {k}={v}" for k, v in sorted(item.attributes.items()))
        return f"{item.type} {{{', '.join(shown)}}}{extra}{g}"
    if isinstance(item, Span):
        where = _frag_str(item.fragments) or "no mention"
        extra = "".join(f" {k}" if v is True else f" {k}={v}" for k, v in sorted(item.attributes.items()))
        g = _groundings(item.groundings, labels)
        return f"{item.type} {where} {item.text!r}{extra}{g}"
    if isinstance(item, Relation):
        names = _names(ann)
        args = ", ".join(f"{a.role}:{names.get(a.ref, a.ref)!s}" for a in item.args)
        lab = f" label={item.label}" if item.label is not None else ""
        tags = f" tags={','.join(item.tags)}" if item.tags else ""
        return f"{item.type}({args}){lab}{tags}"
    if isinstance(item, Link):
        names = {s.id: s.text for s in ann.spans} if ann is not None else {}
        return f"{item.type}({names.get(item.source, item.source)}, {names.get(item.target, item.target)})"
    if isinstance(item, DocLabel):
        return f"{item.name}={item.value}"
    return repr(item)


def variants(
    u: Unit, sources: Sequence[Source], labels: Mapping[str, str] | None = None
) -> tuple[Variant, ...]:
    """The versions of a unit, largest group first, then the absent sources (if any)."""
    out = [
        Variant(
            ms[0].item,
            tuple(ref_of(sources, m) for m in ms),
            display(ms[0].item, sources[ms[0].source].annotations, labels),
        )
        for _, ms in groups(u)
    ]
    miss = missing_sources(u, len(sources))
    if miss:
        out.append(Variant(None, tuple(absent_ref(sources, i) for i in miss), "(absent)"))
    return tuple(out)
