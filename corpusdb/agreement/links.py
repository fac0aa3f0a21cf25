"""Link and cluster agreement: pairwise co-reference of mentions, MUC, B-cubed and CEAF-e.

An annotator's entities (``entities.entities``: explicit clusters such as BioRelEx's, joined with
the closures of the symmetric link types synonym, abbreviation, coreference, Equiv...) are compared
through their members' mention keys (a mentioned span of A stands for its aligned B span; a name
without a mention for its text), so no figure depends on which links were drawn, which mention
is a hub, or the order of names, mentions or clusters.

* ``clusters`` (the headline): F1 over *closure edges*, all unordered pairs of co-referring
  members (pairwise co-reference; singletons have none).
* ``muc`` (Vilain et al. 1995), ``b_cubed`` (Bagga & Baldwin 1998) and ``ceaf_e`` (Luo 2005,
  entity-based phi4 similarity, optimal one-to-one alignment) over every span, each span being in
  exactly one entity (singletons included, as the CoNLL-2012 scorer counts them); members of one
  side without a partner count as mentions the other side lacks. Document sums are pooled
  (micro) before dividing, A is the key, B the response.

``per_type``: closure edges of each symmetric type alone, and plain edges of each directed type
(part_of), compared edge by edge.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from corpusdb.agreement import entities as ent
from corpusdb.agreement.relations import SYMMETRIC_LINK_TYPES, Alignment
from corpusdb.agreement.results import PRF, _ToDict, clean_float
from corpusdb.basics.records import Annotations, Link
from corpusdb.basics.unionfind import UnionFind

DIRECTED_LINK_TYPES: frozenset[str] = frozenset({"part_of", "PartOf", "Part-of", "partOf"})


@dataclass(frozen=True, slots=True)
class ClusterScore(_ToDict):
    """A coreference metric: precision (B as response), recall (A as key) and F1."""

    name: str
    precision: float | None
    recall: float | None
    f1: float | None

    @classmethod
    def from_sums(cls, name: str, p_num: float, p_den: float, r_num: float, r_den: float) -> ClusterScore:
        p = p_num / p_den if p_den else None
        r = r_num / r_den if r_den else None
        f = None
        if p is not None and r is not None:
            f = 2 * p * r / (p + r) if p + r > 0 else 0.0
        return cls(name, clean_float(p), clean_float(r), clean_float(f))


@dataclass(frozen=True, slots=True)
class LinkComparison(_ToDict):
    """``clusters``: pairwise co-reference (closure edges of the entities); ``muc``, ``b_cubed``,
    ``ceaf_e``: the coreference metrics over entities; ``per_type``: closure edges of each symmetric
    type alone and plain edges of each directed type."""

    clusters: PRF
    per_type: Mapping[str, PRF]
    n_documents: int
    symmetric_types: tuple[str, ...]
    directed_types: tuple[str, ...]
    muc: ClusterScore | None = None
    b_cubed: ClusterScore | None = None
    ceaf_e: ClusterScore | None = None
    per_document: np.ndarray | None = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(documents, 3) matched/only_a/only_b cluster edges per document."""


def closure_edges(links: Collection[Link], types: Collection[str]) -> set[frozenset[str]]:
    """All unordered pairs of spans in one cluster of the given symmetric link types."""
    uf = UnionFind()
    for ln in links:
        if ln.type in types:
            uf.union(ln.source, ln.target)
    return {frozenset(p) for g in uf.groups() for p in combinations(g, 2)}  # type: ignore[arg-type]


def drawn_edges(
    ann: Annotations,
    symmetric_types: Collection[str],
    names: Mapping[str, str] | None = None,
    default: str | None = None,
) -> dict[str, set[frozenset[str]]]:
    """Closure edges per link type (the per-type breakdown): each symmetric type's links, under the
    schema's name for it (``names``: ``Equiv`` is BB's ``coreference``), and each explicit entity's
    members under the type that draws it (``extra["link_type"]``, else ``default``: the schema's
    first symmetric type), so an entity and the same cluster drawn as links count alike."""
    names = names or {}
    by_type: dict[str, set[str]] = {}
    for ln in ann.links:
        if ln.type in symmetric_types:
            by_type.setdefault(names.get(ln.type, ln.type), set()).add(ln.type)
    out = {t: closure_edges(ann.links, raw) for t, raw in by_type.items()}
    spans = {s.id for s in ann.spans}
    for e in ann.entities:
        drawn = e.extra.get("link_type") or default or "entity"
        members = sorted({m for m in e.members if m in spans})
        out.setdefault(names.get(drawn, drawn), set()).update(frozenset(p) for p in combinations(members, 2))
    return out


def _pairs(clusters: list[frozenset[Hashable]]) -> set[frozenset[Hashable]]:
    return {frozenset(p) for c in clusters for p in combinations(sorted(c, key=repr), 2)}


def _muc(key: list[frozenset[Hashable]], resp: list[frozenset[Hashable]]) -> tuple[int, int]:
    """MUC recall numerator and denominator of ``key`` against ``resp`` (swap for precision):
    sum over key entities of |k| - |partition of k by resp| and of |k| - 1."""
    where = {m: i for i, c in enumerate(resp) for m in c}
    num = den = 0
    for k in key:
        parts = {where.get(m, ("alone", m)) for m in k}
        num += len(k) - len(parts)
        den += len(k) - 1
    return num, den


def _b3(key: list[frozenset[Hashable]], resp: list[frozenset[Hashable]]) -> tuple[float, int]:
    """B-cubed recall numerator and denominator (the CoNLL scorer's form for unequal mention sets)."""
    where = {m: i for i, c in enumerate(resp) for m in c}
    num = 0.0
    for k in key:
        counts: dict[int, int] = {}
        for m in k:
            if m in where:
                counts[where[m]] = counts.get(where[m], 0) + 1
        num += sum(v * v for v in counts.values()) / len(k) if k else 0.0
    return num, sum(len(k) for k in key)


def _ceaf_e(key: list[frozenset[Hashable]], resp: list[frozenset[Hashable]]) -> float:
    """The total phi4 similarity of the best one-to-one alignment of key and response entities."""
    # an entity both sides hold identically overlaps nothing else (one side's entities are disjoint):
    # it pairs with itself (phi4 = 1, the most there is), so only the others go to the solver
    same = set(key) & set(resp)
    key = [k for k in key if k and k not in same]
    resp = [r for r in resp if r and r not in same]
    total = float(len([k for k in same if k]))
    mentions = {m for r in resp for m in r}
    key = [k for k in key if k & mentions]
    resp_keyed = {m for k in key for m in k}
    resp = [r for r in resp if r & resp_keyed]
    if not key or not resp:
        return total
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    where: dict[Hashable, int] = {m: j for j, c in enumerate(resp) for m in c}
    w = np.zeros((len(key), len(resp)))
    for i, k in enumerate(key):
        for m in k:
            j = where.get(m)
            if j is not None:
                w[i, j] += 1
    nk = np.array([len(k) for k in key], dtype=float)[:, None]
    nr = np.array([len(r) for r in resp], dtype=float)[None, :]
    phi = 2 * w / (nk + nr)
    r, c = linear_sum_assignment(phi, maximize=True)
    return total + float(phi[r, c].sum())


def _map(node: str, align: Mapping[str, str]) -> Hashable:
    return align.get(node, ("A-only", node))


def compare_links(
    documents: Mapping[str, tuple[Annotations, Annotations]],
    span_alignment: Alignment | Any,
    *,
    symmetric_types: Collection[str] = SYMMETRIC_LINK_TYPES,
    directed_types: Collection[str] = DIRECTED_LINK_TYPES,
    link_names: Mapping[str, str] | None = None,
    default_drawing: str | None = None,
) -> LinkComparison:
    """Edge F1 of the clusters (entities and symmetric links alike) and of directed links, A as
    reference. ``link_names``/``default_drawing``: see :func:`drawn_edges` (per-type figures)."""
    align_all = span_alignment.alignment() if hasattr(span_alignment, "alignment") else span_alignment
    doc_ids = list(documents)
    per_doc = np.zeros((len(doc_ids), 3), dtype=np.int64)
    per_type: dict[str, list[int]] = {}
    sums = np.zeros(9)  # MUC precision and recall numerators and denominators, the same for B-cubed, CEAF phi
    seen_sym: set[str] = set()
    seen_dir: set[str] = set()
    ceaf_den = [0, 0]

    def count(ea: set[Any], eb: set[Any]) -> tuple[int, int, int]:
        m = len(ea & eb)
        return m, len(ea) - m, len(eb) - m

    for d, doc in enumerate(doc_ids):
        a, b = documents[doc]
        align = align_all.get(doc, {})
        drawn_a = drawn_edges(a, symmetric_types, link_names, default_drawing)
        drawn_b = drawn_edges(b, symmetric_types, link_names, default_drawing)
        sym = sorted(set(drawn_a) | set(drawn_b))
        seen_sym.update(sym)
        ka = ent.keyed(ent.entities(a, symmetric_types), ent.mention_keys(a, "A", align, b))
        kb = ent.keyed(ent.entities(b, symmetric_types), ent.mention_keys(b, "B"))
        per_doc[d] = count(_pairs(ka), _pairs(kb))
        muc_r, muc_p = _muc(ka, kb), _muc(kb, ka)
        b3_r, b3_p = _b3(ka, kb), _b3(kb, ka)
        sums += (muc_p[0], muc_p[1], muc_r[0], muc_r[1], b3_p[0], b3_p[1], b3_r[0], b3_r[1],
                 _ceaf_e(ka, kb))  # fmt: skip
        ceaf_den[0] += sum(1 for k in ka if k)
        ceaf_den[1] += sum(1 for k in kb if k)
        for t in sym:
            ta = {frozenset(_map(x, align) for x in e) for e in drawn_a.get(t, ())}
            c = count(ta, drawn_b.get(t, set()))  # type: ignore[arg-type]
            acc = per_type.setdefault(t, [0, 0, 0])
            for i in range(3):
                acc[i] += c[i]
        for t in {ln.type for ln in (*a.links, *b.links)} & set(directed_types):
            seen_dir.add(t)
            da = {(_map(ln.source, align), _map(ln.target, align)) for ln in a.links if ln.type == t}
            db = {(ln.source, ln.target) for ln in b.links if ln.type == t}
            c = count(da, db)
            acc = per_type.setdefault(t, [0, 0, 0])
            for i in range(3):
                acc[i] += c[i]
    tot = per_doc.sum(axis=0)
    return LinkComparison(
        clusters=PRF.from_counts(*map(int, tot)),
        per_type={k: PRF.from_counts(*v) for k, v in sorted(per_type.items())},
        n_documents=len(doc_ids),
        symmetric_types=tuple(sorted(seen_sym)),
        directed_types=tuple(sorted(seen_dir)),
        per_document=per_doc,
        muc=ClusterScore.from_sums("MUC", sums[0], sums[1], sums[2], sums[3]),
        b_cubed=ClusterScore.from_sums("B-cubed", sums[4], sums[5], sums[6], sums[7]),
        ceaf_e=ClusterScore.from_sums("CEAF-e", sums[8], ceaf_den[1], sums[8], ceaf_den[0]),
    )
