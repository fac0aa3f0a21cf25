"""Compare two raters on the span-like layers (spans, relations, links) with the pure engine.

Why per pair: every pairwise measure (F1, precision, recall, kappa on matched types) comes from one
one-to-one alignment of the two raters' spans; relations and links are matched *through* that
alignment. A pair is compared on the documents both raters have a set for, never on more (a
document only one of them saw says nothing about their agreement).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from corpusdb.agreement.bootstrap import bootstrap_prf, bootstrap_table
from corpusdb.agreement.coefficients import cohen_kappa, krippendorff_alpha_table, scott_pi
from corpusdb.agreement.groundings import Semantic, compare_groundings
from corpusdb.agreement.links import DIRECTED_LINK_TYPES, compare_links
from corpusdb.agreement.relations import SYMMETRIC_LINK_TYPES, compare_relations
from corpusdb.agreement.results import PRF, BootstrapCI, Coefficient
from corpusdb.agreement.spans import PreparedSpans, SpanComparison, compare_spans
from corpusdb.basics.clusters import cluster_link_types, drawing_type
from corpusdb.basics.records import Annotations
from corpusdb.reports.options import AgreementOptions, Rater
from guidelines.schema import Schema


class AllBut(Collection[str]):
    """Every relation type except the listed ones (the schema's undirected types): unknown types
    stay directed, the safe default for the strict score."""

    def __init__(self, excluded: Collection[str]) -> None:
        self.excluded = frozenset(excluded)

    def __contains__(self, item: object) -> bool:
        return item not in self.excluded

    def __iter__(self) -> Iterator[str]:
        return iter(())

    def __len__(self) -> int:
        return 0


@dataclass(frozen=True, slots=True)
class SchemaTypes:
    """What the schema says about direction and symmetry (engine defaults where it says nothing)."""

    directed_relations: Collection[str]
    symmetric_links: frozenset[str]
    directed_links: frozenset[str]
    link_names: Mapping[str, str] = field(default_factory=dict)
    """A link type's alias -> the schema's name for it (``Equiv`` -> ``coreference`` in BB)."""
    drawing: str | None = None
    """The link type an entity made without one is drawn with (``corpusdb.basics.clusters.drawing_type``)."""

    @classmethod
    def from_schema(cls, schema: Schema | None) -> SchemaTypes:
        if schema is None:
            return cls(AllBut(()), SYMMETRIC_LINK_TYPES, DIRECTED_LINK_TYPES)
        undirected = {r.name for r in schema.relations if not r.directed}
        sym = {n for lt in schema.links if lt.symmetric for n in (lt.name, *lt.aliases)}
        asym = {n for lt in schema.links if not lt.symmetric for n in (lt.name, *lt.aliases)}
        # the link types that draw clusters: the same rule as conflicts, adjudication, TUI and exports
        names = {alias: lt.name for lt in schema.links for alias in lt.aliases}
        return cls(AllBut(undirected), cluster_link_types(schema), frozenset((DIRECTED_LINK_TYPES | asym) - sym),
                   names, drawing_type(schema))  # fmt: skip


@dataclass(frozen=True, slots=True)
class PairResult:
    """Two raters' agreement on one layer; ``a`` is the reference (recall = found by B / A's)."""

    a: str
    b: str
    documents: tuple[str, ...]
    overall: PRF
    per_type: Mapping[str, PRF]
    per_document: np.ndarray
    """(documents, 3) matched / only_a / only_b, rows in ``documents`` order."""
    headline: Any
    """The engine's result: SpanComparison, RelationComparison or LinkComparison."""
    spans: SpanComparison | None = None
    """The span alignment (criterion and type mode as asked)."""
    types_ignored: SpanComparison | None = None
    """The same criterion with types ignored: the matched pairs whose types are compared."""
    type_labels: tuple[str, ...] = ()
    type_table: np.ndarray | None = None
    """(merged) types of matched pairs, rows = A, columns = B (spans layer)."""
    unmatched_a: np.ndarray | None = None
    unmatched_b: np.ndarray | None = None
    type_agreement: Mapping[str, Coefficient] = field(default_factory=dict)
    ci: Mapping[str, BootstrapCI] = field(default_factory=dict)
    modes: Mapping[str, Any] = field(default_factory=dict)
    """Relations: both ``strict`` and ``relaxed`` RelationComparison."""


def _collapse(labels: tuple[str, ...], opts: AgreementOptions) -> tuple[tuple[str, ...], np.ndarray]:
    """Type -> merged class as a (types x classes) 0/1 matrix (identity unless merged)."""
    classes = tuple(sorted({opts.class_of(t) for t in labels}))
    idx = {c: i for i, c in enumerate(classes)}
    m = np.zeros((len(labels), len(classes)))
    for i, t in enumerate(labels):
        m[i, idx[opts.class_of(t)]] = 1
    return classes, m


def _type_confusion(
    ign: SpanComparison, opts: AgreementOptions, boot: dict[str, Any]
) -> tuple[
    tuple[str, ...], np.ndarray, np.ndarray, np.ndarray, dict[str, Coefficient], dict[str, BootstrapCI]
]:
    """Types of matched pairs (merged as asked), one-sided spans per type, and kappa/pi/alpha."""
    classes, m = _collapse(ign.type_labels, opts)
    q = len(ign.type_labels)
    table = m.T @ np.asarray(ign.type_table, dtype=float).reshape(q, q) @ m
    only_a = np.array([ign.per_type[t].only_a for t in ign.type_labels], dtype=float).reshape(q) @ m
    only_b = np.array([ign.per_type[t].only_b for t in ign.type_labels], dtype=float).reshape(q) @ m
    ci: dict[str, BootstrapCI] = {}
    if table.sum() == 0:  # no matched span: nothing to compare types on
        return classes, table, only_a, only_b, {}, ci
    coeffs = {
        "cohen_kappa": cohen_kappa(table),
        "scott_pi": scott_pi(table),
        "krippendorff_alpha": krippendorff_alpha_table(table),
    }
    if boot:
        per_doc = np.einsum("dij,ik,jl->dkl", ign.per_document_type_tables, m, m)
        ci["type_kappa"] = bootstrap_table(per_doc, "cohen_kappa", **boot)
    return classes, table, only_a, only_b, coeffs, ci


def pair_documents(a: Rater, b: Rater, opts: AgreementOptions) -> tuple[str, ...]:
    """The documents a pair is compared on: those both answered; when one side is gold and
    ``opts.unanswered`` is ``misses``, every document gold has (the other's missing sets are empty,
    so gold's items there are misses, as an evaluation counts them)."""
    both = set(a.sets) & set(b.sets)
    if opts.unanswered == "misses":
        for ref in (a, b):
            if ref.kind == "gold":
                both |= set(ref.sets)
    return tuple(sorted(both))


def _answers(r: Rater, docs: tuple[str, ...]) -> dict[str, Annotations]:
    """The rater's sets on ``docs``, an empty set where it has none (an unanswered document)."""
    return {d: r.sets.get(d) or Annotations() for d in docs}


def compare_pair(
    a: Rater,
    b: Rater,
    opts: AgreementOptions,
    types: SchemaTypes,
    texts: Mapping[str, str] | None = None,
    semantic: Semantic | None = None,
) -> PairResult:
    """One pair on the layer of ``opts`` (not labels), with bootstrap CIs when asked (``semantic``:
    the groundings layer's partial-credit measure, when asked)."""
    docs = pair_documents(a, b, opts)
    doc_texts = {d: texts[d] for d in docs} if texts is not None else None
    if opts.layer == "spans" and a.columns is not None and b.columns is not None:
        # a document one side did not answer (counted as misses) has no spans on that side
        prep = PreparedSpans.from_columns(
            a.columns, b.columns, docs, doc_texts, exact_only=opts.criterion == "exact"
        )
    else:
        a_sets, b_sets = _answers(a, docs), _answers(b, docs)
        prep = PreparedSpans({d: (a_sets[d].spans, b_sets[d].spans) for d in docs}, doc_texts)
    kw: dict[str, Any] = {
        "types": opts.types,
        "type_classes": dict(opts.type_classes) or None,
        "jaccard": opts.jaccard,
    }
    spans = compare_spans(prep, opts.criterion, **kw)
    boot = (
        {"n_resamples": opts.bootstrap, "seed": opts.seed, "confidence": opts.confidence}
        if opts.bootstrap
        else {}
    )
    if opts.layer == "spans":
        ign = (
            spans
            if opts.types == "ignored"
            else compare_spans(prep, opts.criterion, types="ignored", jaccard=opts.jaccard)
        )
        labels, table, ua, ub, coeffs, ci = _type_confusion(ign, opts, boot)
        if boot:
            ci = {"f1": bootstrap_prf(spans.per_document, "f1", **boot), **ci}
        return PairResult(
            a.name,
            b.name,
            docs,
            spans.overall,
            spans.per_type,
            spans.per_document,
            spans,
            spans,
            ign,
            labels,
            table,
            ua,
            ub,
            coeffs,
            ci,
        )
    pairs_ann = {d: (a_sets[d], b_sets[d]) for d in docs}
    if opts.layer == "relations":
        modes = {
            m: compare_relations(
                pairs_ann,
                spans,
                mode=m,
                directed=types.directed_relations,  # type: ignore[arg-type]
                symmetric_link_types=types.symmetric_links,
            )
            for m in ("strict", "relaxed")
        }
        head = modes[opts.relation_mode]
        ci = {"f1": bootstrap_prf(head.per_document, "f1", **boot)} if boot else {}
        return PairResult(
            a.name,
            b.name,
            docs,
            head.overall,
            head.per_type,
            head.per_document,
            head,
            spans,
            ci=ci,
            modes=modes,
            type_agreement=dict(head.label_agreement or {}),
        )
    if opts.layer == "groundings":
        g = compare_groundings(pairs_ann, spans, semantic=semantic)
        ci = {"f1": bootstrap_prf(g.per_document, "f1", **boot)} if boot else {}
        per_db = {k: v["span_exact"] for k, v in g.per_database.items()}
        return PairResult(a.name, b.name, docs, g.document, per_db, g.per_document, g, spans, ci=ci)
    links = compare_links(pairs_ann, spans, symmetric_types=types.symmetric_links, directed_types=types.directed_links,
                          link_names=types.link_names, default_drawing=types.drawing)  # fmt: skip
    ci = {"f1": bootstrap_prf(links.per_document, "f1", **boot)} if boot else {}
    return PairResult(
        a.name, b.name, docs, links.clusters, links.per_type, links.per_document, links, spans, ci=ci
    )
