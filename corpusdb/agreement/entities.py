"""Entities (clusters of mentions and names) of one set, and their alignment between two sets.

Why a module of its own: relations, cluster agreement, groundings and conflicts must all see the
same entities, and none of them may depend on the order in which a source listed names, mentions
or clusters. An entity is a cluster of ``corpusdb.basics.clusters`` (the one model conflicts, adjudication,
the TUI and the exports use too): spans joined by the set's explicit :class:`Entity` records
(BioRelEx clusters, the TUI's ``c``) and by the symmetric link types (synonym, abbreviation,
coreference, brat Equiv); every span belongs to exactly one entity (a span in no cluster is an entity
of its own).

Between two sets, members are compared through *mention keys*: a mentioned span of A stands for
its aligned partner in B (the span alignment), a name without a mention for its text (BioRelEx
keeps such names: ``{ActRIIB (no mention), IIB}``), an unaligned mention for itself alone.

* ``align_strict``: one-to-one, maximising the number of shared mention keys (the Hungarian
  algorithm, ``scipy.optimize.linear_sum_assignment``, hand-written code would only be slower;
  ties broken by an order made of content, whatever the input order), pairs sharing nothing left
  out.
* ``relaxed_classes``: A's and B's entities joined whenever they share any mention key, so a
  relation argument matches "any aligned mention of the cluster" (as BioRelEx scores).
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.basics.clusters import SYMMETRIC_LINK_TYPES, clusters
from corpusdb.basics.records import Annotations
from corpusdb.basics.unionfind import UnionFind


@dataclass(frozen=True, slots=True)
class Cluster:
    """One entity of a set: its member span ids, its entity ids, and its grounded ids."""

    members: frozenset[str]
    entity_ids: frozenset[str]
    type: str
    groundings: frozenset[str]


@dataclass(frozen=True, slots=True)
class Entities:
    """A set's entities and, for every span id and entity id, the index of its cluster."""

    clusters: tuple[Cluster, ...]
    index: Mapping[str, int]

    def of(self, ref: str) -> int | None:
        """The cluster of a span id or an entity id (None for anything else, e.g. a relation)."""
        return self.index.get(ref)


def entities(ann: Annotations, symmetric_types: Collection[str] = SYMMETRIC_LINK_TYPES) -> Entities:
    """The set's entities (``corpusdb.basics.clusters``, singletons included), in a canonical order (by
    sorted member ids), whatever the input order."""
    out: list[Cluster] = []
    found = clusters(ann, symmetric_types)
    if found:
        by_span = {s.id: s for s in ann.spans}
        for c in found:
            refs = {g.ref for m in c.members for g in by_span[m].groundings} | {g.ref for g in c.groundings}
            out.append(Cluster(frozenset(c.members), frozenset(c.entity_ids), c.type, frozenset(refs)))
    taken = {m for c in found for m in c.members}
    out += [  # every other span is an entity of its own (the common case: built directly, it is most)
        Cluster(frozenset((s.id,)), frozenset(), s.type, frozenset(g.ref for g in s.groundings))
        for s in ann.spans
        if s.id not in taken
    ]
    out.sort(key=lambda c: (sorted(c.members), sorted(c.entity_ids)))
    index: dict[str, int] = {}
    for k, c in enumerate(out):
        for m in c.members:
            index[m] = k
        for i in c.entity_ids:
            index[i] = k
    return Entities(tuple(out), index)


def _content_keys(ann: Annotations, tag: str) -> dict[str, Hashable]:
    """Each span's content key; spans of identical content in one set (GENIA has some) also carry
    their id, so that one key never stands for two spans."""
    seen: dict[tuple[Any, ...], int] = {}
    for s in ann.spans:
        c = (s.fragments, s.text)
        seen[c] = seen.get(c, 0) + 1
    out: dict[str, Hashable] = {}
    for s in ann.spans:
        c = (s.fragments, s.text)
        if not s.fragments:
            out[s.id] = ("name", s.text) if seen[c] == 1 else ("name", s.text, tag, s.id)
        else:
            out[s.id] = (tag, *c) if seen[c] == 1 else (tag, *c, s.id)
    return out


def mention_keys(
    ann: Annotations, side: str, align: Mapping[str, str] | None = None, other: Annotations | None = None
) -> dict[str, Hashable]:
    """Each span's key for comparison across sets (see the module docstring).

    ``side`` is "A" (its spans stand for their aligned partners in ``other``, through ``align``) or
    "B". Keys are made of content (fragments and text), never of local ids (but for spans of
    identical content in one set), so they do not depend on the order either side listed its spans.
    """
    if side != "A":
        return _content_keys(ann, "m")
    theirs = _content_keys(other, "m") if other is not None else {}
    mine = _content_keys(ann, "A")
    out: dict[str, Hashable] = {}
    for s in ann.spans:
        y = align.get(s.id) if align else None
        if s.fragments and y is not None and y in theirs:
            out[s.id] = theirs[y]
        else:
            out[s.id] = mine[s.id]
    return out


def name_alignment(a: Annotations, b: Annotations) -> dict[str, str]:
    """A's names without a mention paired one-to-one with B's of the same text (in text order)."""
    free: dict[str, list[str]] = {}
    for s in sorted((s for s in b.spans if not s.fragments), key=lambda s: (s.text, s.type, s.id)):
        free.setdefault(s.text, []).append(s.id)
    out: dict[str, str] = {}
    for s in sorted((s for s in a.spans if not s.fragments), key=lambda s: (s.text, s.type, s.id)):
        if free.get(s.text):
            out[s.id] = free[s.text].pop(0)
    return out


def keyed(ents: Entities, keys: Mapping[str, Hashable]) -> list[frozenset[Hashable]]:
    """Each cluster as the set of its members' mention keys (entity ids of empty entities aside)."""
    return [frozenset(keys[m] for m in c.members) for c in ents.clusters]


def align_strict(ka: Sequence[frozenset[Hashable]], kb: Sequence[frozenset[Hashable]]) -> dict[int, int]:
    """One-to-one A cluster -> B cluster, maximising shared mention keys; pairs sharing none dropped."""
    where: dict[Hashable, int] = {}
    for j, c in enumerate(kb):
        for k in c:
            where[k] = j
    overlap: dict[tuple[int, int], int] = {}
    for i, c in enumerate(ka):
        for k in c:
            j = where.get(k)
            if j is not None:
                overlap[(i, j)] = overlap.get((i, j), 0) + 1
    if not overlap:
        return {}
    # a pair overlapping nothing else is matched as such (identical or reordered copies: every pair);
    # only the entangled rest goes to the solver, whose cost grows with the cube of its size
    n_row: dict[int, int] = {}
    n_col: dict[int, int] = {}
    for i, j in overlap:
        n_row[i] = n_row.get(i, 0) + 1
        n_col[j] = n_col.get(j, 0) + 1
    out = {i: j for i, j in overlap if n_row[i] == 1 and n_col[j] == 1}
    rest = {(i, j): v for (i, j), v in overlap.items() if i not in out}
    if not rest:
        return out
    # rows and columns in an order made of content, so ties resolve the same whatever the input order
    rows = sorted({i for i, _ in rest}, key=lambda i: sorted(map(repr, ka[i])))
    cols = sorted({j for _, j in rest}, key=lambda j: sorted(map(repr, kb[j])))
    overlap = rest
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    w = np.zeros((len(rows), len(cols)))
    ri = {i: r for r, i in enumerate(rows)}
    ci = {j: c for c, j in enumerate(cols)}
    for (i, j), v in overlap.items():
        w[ri[i], ci[j]] = v
    r, c = linear_sum_assignment(w, maximize=True)
    out.update({rows[x]: cols[y] for x, y in zip(r, c, strict=True) if w[x, y] > 0})
    return out


def relaxed_classes(
    ka: Sequence[frozenset[Hashable]], kb: Sequence[frozenset[Hashable]]
) -> tuple[list[Hashable], list[Hashable]]:
    """A class for every A and every B cluster; clusters sharing any mention key share a class."""
    uf = UnionFind()
    for side, ks in (("A", ka), ("B", kb)):
        for i, c in enumerate(ks):
            uf.add((side, i))
            for k in c:
                uf.union((side, i), ("k", k))
    return [uf.find(("A", i)) for i in range(len(ka))], [uf.find(("B", j)) for j in range(len(kb))]
