"""Align the items of n annotation sets of one document into *units* with stable keys (pure).

A unit is "one thing the sources talk about": a span (aligned by position under a matching
criterion), a relation (type + arguments mapped through the span units), a link (type + its two
span units), a document label (its name). Each source contributes zero, one or (rarely) several
items to a unit. A unit is *agreed* when every source has exactly one item and all items are
identical; otherwise it is a conflict. Conflicts, auto-merge and the review queue all work on units.

Why the criterion only groups: under ``exact`` a boundary disagreement is two units (one span only
in A, one only in B); under ``partial`` it is one unit with two variants. Either way gold needs one
version, so variants must be identical to count as agreement; the criterion decides how disputes
are grouped and presented. Types are ``ignored`` by default for the same reason: "protein" against
"gene" on the same words is one dispute about the type, not two about presence.

Keys are built from content, never from set ids, so the same sources give the same keys in every
process: ``span:12-19`` (``span:0-4;8-12`` discontinuous, ``span:name=IL-2`` without a mention,
``:<type>`` / ``#2`` appended only on collision), ``relation:bind(span:0-4,span:12-19)`` (roles kept
for directed types: ``relation:Localization(Bacterium=span:0-4,Localization=span:9-15)``),
``link:synonym(span:0-4,span:6-9)``, ``label:relevance``.

Span pairs come from ``corpusdb.agreement.spans.compare_spans`` (one-to-one matching), pairwise over
the sources and joined by union-find; relations map their arguments through those units as BioRelEx
and BioNLP scorers do. Annotator notes are personal and are not aligned.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import orjson

from corpusdb.records import Annotations, DocLabel, Link, Relation, Span
from corpusdb.workflow.types import Item, SourceRef, SourceSet, Variant
from guidelines.schema import Schema

KIND_ORDER = {"span": 0, "relation": 1, "link": 2, "label": 3}


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


def span_sig(s: Span) -> tuple[Any, ...]:
    return (
        s.type,
        tuple(s.fragments),
        canon(dict(s.attributes)),
        tuple(sorted(g.ref for g in s.groundings)),
    )


class _UF:
    def __init__(self) -> None:
        self.parent: dict[Any, Any] = {}

    def find(self, x: Any) -> Any:
        self.parent.setdefault(x, x)
        while self.parent[x] != x:
            self.parent[x] = self.parent[self.parent[x]]
            x = self.parent[x]
        return x

    def union(self, a: Any, b: Any) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[max(ra, rb)] = min(ra, rb)


def align(
    sources: Sequence[Source],
    text: str,
    *,
    schema: Schema | None = None,
    criterion: str = "exact",
    types: str = "ignored",
    jaccard: float = 0.5,
) -> list[Unit]:
    """Every unit of the document, spans first (by position), then relations, links and labels."""
    span_units, span_key = _align_spans(sources, text, criterion, types, jaccard)
    rel_units, _ = _relations(sources, span_key, schema)
    link_units = _links(sources, span_key, schema)
    label_units = _labels(sources)
    for u in rel_units:
        u.depth = _depth(u, {x.key: x for x in rel_units})
    rel_units.sort(key=lambda u: (u.depth, u.key))
    return span_units + rel_units + link_units + label_units


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
    uf = _UF()
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
        # names without a mention: same text (and type, unless types are ignored), in order
        na: dict[tuple[str, ...], list[str]] = defaultdict(list)
        for s in sources[i].annotations.spans:
            if not s.fragments:
                na[(s.text,) if types == "ignored" else (s.text, s.type)].append(s.id)
        for s in sources[j].annotations.spans:
            if not s.fragments:
                k = (s.text,) if types == "ignored" else (s.text, s.type)
                if na.get(k):
                    uf.union((i, na[k].pop(0)), (j, s.id))
    groups: dict[Any, list[Member]] = defaultdict(list)
    for i, src in enumerate(sources):
        for s in src.annotations.spans:
            groups[uf.find((i, s.id))].append(Member(i, s, span_sig(s)))

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
    return list(units.values()), rel_key


def _links(
    sources: Sequence[Source], span_key: dict[tuple[int, str], str], schema: Schema | None
) -> list[Unit]:
    from corpusdb.agreement.relations import SYMMETRIC_LINK_TYPES  # numpy: lazily (issue #14)

    symmetric: Collection[str] = schema.symmetric_link_types() if schema is not None else SYMMETRIC_LINK_TYPES
    units: dict[str, Unit] = {}
    for i, src in enumerate(sources):
        for lk in src.annotations.links:
            ends = [
                span_key.get((i, lk.source), f"?{lk.source}"),
                span_key.get((i, lk.target), f"?{lk.target}"),
            ]
            if lk.type in symmetric:
                ends.sort()
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
    return tuple(out)


def display(item: Item | None, ann: Annotations | None = None) -> str:
    """A one-line human rendering of an item."""
    if item is None:
        return "(absent)"
    if isinstance(item, Span):
        where = _frag_str(item.fragments) or "no mention"
        extra = "".join(f" {k}" if v is True else f" {k}={v}" for k, v in sorted(item.attributes.items()))
        g = f" [{', '.join(x.ref for x in item.groundings)}]" if item.groundings else ""
        return f"{item.type} {where} {item.text!r}{extra}{g}"
    if isinstance(item, Relation):
        names = {s.id: s.text for s in ann.spans} if ann is not None else {}
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


def variants(u: Unit, sources: Sequence[Source]) -> tuple[Variant, ...]:
    """The versions of a unit, largest group first, then the absent sources (if any)."""
    out = [
        Variant(
            ms[0].item,
            tuple(ref_of(sources, m) for m in ms),
            display(ms[0].item, sources[ms[0].source].annotations),
        )
        for _, ms in groups(u)
    ]
    miss = missing_sources(u, len(sources))
    if miss:
        out.append(Variant(None, tuple(absent_ref(sources, i) for i in miss), "(absent)"))
    return tuple(out)
