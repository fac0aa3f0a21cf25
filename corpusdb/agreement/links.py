"""Link and cluster agreement: F1 over the edges of each annotator's cluster closure.

Symmetric link types (synonym, abbreviation, coreference, Equiv...) form clusters by transitive
closure; an annotator's *closure edges* are all unordered pairs of spans in one cluster, so the
figure does not depend on which links an annotator drew to connect the same cluster. Directed
types (part_of) are compared edge by edge. A's span ids are mapped to B's through the span
alignment; an edge touching an A span without a partner cannot be matched.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Mapping
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np

from corpusdb.agreement._graph import UnionFind
from corpusdb.agreement.relations import SYMMETRIC_LINK_TYPES, Alignment
from corpusdb.agreement.results import PRF, _ToDict
from corpusdb.records import Annotations, Link

DIRECTED_LINK_TYPES: frozenset[str] = frozenset({"part_of", "PartOf", "Part-of", "partOf"})


@dataclass(frozen=True, slots=True)
class LinkComparison(_ToDict):
    """``clusters``: closure edges over all symmetric types together; ``per_type``: closure edges of
    each symmetric type alone and plain edges of each directed type."""

    clusters: PRF
    per_type: Mapping[str, PRF]
    n_documents: int
    symmetric_types: tuple[str, ...]
    directed_types: tuple[str, ...]
    per_document: np.ndarray | None = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(documents, 3) matched/only_a/only_b cluster edges per document."""


def closure_edges(links: Collection[Link], types: Collection[str]) -> set[frozenset[str]]:
    """All unordered pairs of spans in one cluster of the given symmetric link types."""
    uf = UnionFind()
    for ln in links:
        if ln.type in types:
            uf.union(ln.source, ln.target)
    return {frozenset(p) for g in uf.groups() for p in combinations(g, 2)}  # type: ignore[arg-type]


def _map(node: str, align: Mapping[str, str]) -> Hashable:
    return align.get(node, ("A-only", node))


def compare_links(
    documents: Mapping[str, tuple[Annotations, Annotations]],
    span_alignment: Alignment | Any,
    *,
    symmetric_types: Collection[str] = SYMMETRIC_LINK_TYPES,
    directed_types: Collection[str] = DIRECTED_LINK_TYPES,
) -> LinkComparison:
    """Edge F1 of the symmetric-link closure and of directed links, A as reference."""
    align_all = span_alignment.alignment() if hasattr(span_alignment, "alignment") else span_alignment
    doc_ids = list(documents)
    per_doc = np.zeros((len(doc_ids), 3), dtype=np.int64)
    per_type: dict[str, list[int]] = {}
    seen_sym: set[str] = set()
    seen_dir: set[str] = set()

    def count(ea: set[Any], eb: set[Any]) -> tuple[int, int, int]:
        m = len(ea & eb)
        return m, len(ea) - m, len(eb) - m

    for d, doc in enumerate(doc_ids):
        a, b = documents[doc]
        align = align_all.get(doc, {})
        sym = [t for t in {ln.type for ln in (*a.links, *b.links)} if t in symmetric_types]
        seen_sym.update(sym)
        ea = {frozenset(_map(x, align) for x in e) for e in closure_edges(a.links, symmetric_types)}
        eb = closure_edges(b.links, symmetric_types)
        per_doc[d] = count(ea, eb)  # type: ignore[arg-type]
        for t in sym:
            ta = {frozenset(_map(x, align) for x in e) for e in closure_edges(a.links, {t})}
            c = count(ta, closure_edges(b.links, {t}))  # type: ignore[arg-type]
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
    )
