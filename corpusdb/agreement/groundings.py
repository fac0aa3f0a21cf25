"""Grounding agreement: do two annotators normalise the same things to the same database ids?

Why: two annotators with different UniProt ids on the same span agree on the span and disagree on
what it is; span F1 cannot see that. A span's grounded ids are its own groundings joined with
those of its entity (a BioRelEx cluster is grounded as a whole), as ``db:id`` strings.

* Per span, over the span alignment (names without a mention align by their text): a grounded A span and its grounded B partner
  *match* under ``exact`` when their id sets are equal, under ``overlap`` when they share an id;
  every other grounded span counts as ``only_a``/``only_b``. Spans grounded on neither side are
  not counted.
* Per document (BioCreative II.5's normalisation task, INT): each side's set of grounded ids in
  the document; matched = ids in both. Pooled over documents (micro).
* ``per_database``: the same figures restricted to ids of one database (the part before ``:``).
* ``span_semantic`` (when a :class:`Semantic` measure is given): near concepts earn partial credit.
  Each aligned pair of spans grounded in the measure's knowledge base scores the best-match average
  of its concepts' similarities (Wang et al. 2007 on an ontology's ``is_a`` graph, as the BioNLP-ST
  2016 BB-cat task scored Habitat normalisation: ``corpusdb.evaluation.bb2016_norm``); the credit
  summed over pairs replaces the count of exact matches: P = credit / B's grounded spans, R = credit
  / A's, F1 = 2 credit / (A's + B's). With only exact matches it equals ``span_exact``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from corpusdb.agreement import entities as ent
from corpusdb.agreement.relations import Alignment
from corpusdb.agreement.results import PRF, _ToDict
from corpusdb.basics.records import Annotations, grounding_key


@dataclass(frozen=True, slots=True)
class Semantic:
    """A similarity between grounded concepts: which ids it scores (``in_scope``), how (``similarity``
    of two id sets, in [0, 1]) and what to call it in a report (``measure``)."""

    measure: str
    in_scope: Callable[[str], bool]
    similarity: Callable[[Collection[str], Collection[str]], float]


@dataclass(frozen=True, slots=True)
class SemanticScore(_ToDict):
    """Partial-credit agreement of grounded spans (see the module docstring)."""

    measure: str
    credit: float
    grounded_a: int
    grounded_b: int
    pairs: int
    """Aligned pairs grounded on both sides (each scored in [0, 1])."""
    precision: float | None
    recall: float | None
    f1: float | None

    @classmethod
    def of(cls, measure: str, credit: float, na: int, nb: int, pairs: int) -> SemanticScore:
        return cls(measure, credit, na, nb, pairs, credit / nb if nb else None, credit / na if na else None,
                   2 * credit / (na + nb) if na + nb else None)  # fmt: skip


@dataclass(frozen=True, slots=True)
class GroundingComparison(_ToDict):
    """``span_exact``/``span_overlap``: per aligned span; ``document``: per document (BC II.5 INT)."""

    span_exact: PRF
    span_overlap: PRF
    document: PRF
    per_database: Mapping[str, Mapping[str, PRF]]
    """database -> {"span_exact", "span_overlap", "document"}."""
    n_documents: int
    per_document: np.ndarray | None = field(default=None, repr=False, compare=False, metadata={"json": False})
    """(documents, 3) matched/only_a/only_b of the per-document figure (for the bootstrap)."""
    span_semantic: SemanticScore | None = None


def database(ref: str) -> str:
    """The database part of a ``db:id`` reference (the whole reference when it has no ``:``)."""
    return ref.split(":", 1)[0] if ":" in ref else ref


def span_ids(
    ann: Annotations, symmetric_types: Collection[str] = ent.SYMMETRIC_LINK_TYPES
) -> dict[str, frozenset[str]]:
    """Each span's grounded ids (``grounding_key``: a BioNLP-ST line's ``NCBI_Taxonomy:210`` as a brat
    line's ``NCBITaxon:210`` names its database): its own and its explicit entity's."""
    own = {s.id: {grounding_key(g) for g in s.groundings} for s in ann.spans}
    for e in ann.entities:
        refs = {grounding_key(g) for g in e.groundings}
        for m in e.members:
            if m in own:
                own[m] |= refs
    return {k: frozenset(v) for k, v in own.items()}


def _span_counts(ga: Mapping[str, frozenset[str]], gb: Mapping[str, frozenset[str]], align: Mapping[str, str],
                 keep: Any, overlap: bool) -> tuple[int, int, int]:  # fmt: skip
    a = {k: frozenset(x for x in v if keep(x)) for k, v in ga.items()}
    b = {k: frozenset(x for x in v if keep(x)) for k, v in gb.items()}
    matched = 0
    used_b: set[str] = set()
    for x, ids in a.items():
        y = align.get(x)
        if ids and y is not None and b.get(y) and (ids & b[y] if overlap else ids == b[y]):
            matched += 1
            used_b.add(y)
    only_a = sum(1 for ids in a.values() if ids) - matched
    only_b = sum(1 for y, ids in b.items() if ids and y not in used_b)
    return matched, only_a, only_b


def _semantic_counts(ga: Mapping[str, frozenset[str]], gb: Mapping[str, frozenset[str]],
                     align: Mapping[str, str], sem: Semantic) -> tuple[float, int, int, int]:  # fmt: skip
    a = {k: frozenset(x for x in v if sem.in_scope(x)) for k, v in ga.items()}
    b = {k: frozenset(x for x in v if sem.in_scope(x)) for k, v in gb.items()}
    credit, pairs = 0.0, 0
    for x, ids in a.items():
        y = align.get(x)
        if ids and y is not None and b.get(y):
            credit += sem.similarity(ids, b[y])
            pairs += 1
    return credit, sum(1 for v in a.values() if v), sum(1 for v in b.values() if v), pairs


def compare_groundings(
    documents: Mapping[str, tuple[Annotations, Annotations]],
    span_alignment: Alignment | Any,
    *,
    semantic: Semantic | None = None,
) -> GroundingComparison:
    """Grounding agreement of A and B per span and per document, overall and per database (and with
    partial credit for near concepts when ``semantic`` is given)."""
    align_all = span_alignment.alignment() if hasattr(span_alignment, "alignment") else span_alignment
    doc_ids = list(documents)
    per_doc = np.zeros((len(doc_ids), 3), dtype=np.int64)
    tot = {"span_exact": [0, 0, 0], "span_overlap": [0, 0, 0]}
    sem_tot = [0.0, 0, 0, 0]
    per_db: dict[str, dict[str, list[int]]] = {}

    def add(acc: list[int], c: tuple[int, int, int]) -> None:
        for i in range(3):
            acc[i] += c[i]

    for d, doc in enumerate(doc_ids):
        a, b = documents[doc]
        ga, gb = span_ids(a), span_ids(b)
        align = {**align_all.get(doc, {}), **ent.name_alignment(a, b)}
        add(tot["span_exact"], _span_counts(ga, gb, align, bool, False))
        add(tot["span_overlap"], _span_counts(ga, gb, align, bool, True))
        if semantic is not None:
            for i, v in enumerate(_semantic_counts(ga, gb, align, semantic)):
                sem_tot[i] += v
        da = {r for ids in ga.values() for r in ids} | {
            grounding_key(g) for e in a.entities for g in e.groundings
        }
        db = {r for ids in gb.values() for r in ids} | {
            grounding_key(g) for e in b.entities for g in e.groundings
        }
        per_doc[d] = (len(da & db), len(da - db), len(db - da))
        for name in sorted({database(r) for r in da | db}):
            acc = per_db.setdefault(name, {k: [0, 0, 0] for k in ("span_exact", "span_overlap", "document")})

            def keep(r: str, name: str = name) -> bool:
                return database(r) == name

            add(acc["span_exact"], _span_counts(ga, gb, align, keep, False))
            add(acc["span_overlap"], _span_counts(ga, gb, align, keep, True))
            xa = {r for r in da if keep(r)}
            xb = {r for r in db if keep(r)}
            add(acc["document"], (len(xa & xb), len(xa - xb), len(xb - xa)))
    doc_tot = per_doc.sum(axis=0)
    return GroundingComparison(
        span_exact=PRF.from_counts(*tot["span_exact"]),
        span_overlap=PRF.from_counts(*tot["span_overlap"]),
        document=PRF.from_counts(*map(int, doc_tot)),
        per_database={k: {m: PRF.from_counts(*c) for m, c in v.items()} for k, v in sorted(per_db.items())},
        n_documents=len(doc_ids),
        per_document=per_doc,
        span_semantic=None
        if semantic is None
        else SemanticScore.of(
            semantic.measure, sem_tot[0], int(sem_tot[1]), int(sem_tot[2]), int(sem_tot[3])
        ),
    )
