"""The agreement report: one JSON-able body (schema ``corpusdb.agreement/1``) plus the engine's
results for Python users. Renderers (text, Markdown, HTML) read only the body, so every output
shows exactly the numbers the JSON API gives.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from corpusdb.agreement import relations as _relations
from corpusdb.agreement import spans as _spans
from corpusdb.agreement.groundings import Semantic
from corpusdb.agreement.labels import LabelAgreement, PairwiseMatrix
from corpusdb.reports import aggregate
from corpusdb.reports import raters as _raters
from corpusdb.reports.doclabels import compute_labels
from corpusdb.reports.options import AgreementOptions, Rater
from corpusdb.reports.pairs import PairResult, SchemaTypes, compare_pair
from corpusdb.reports.units import UnitAgreement, span_units
from guidelines.schema import Schema

SCHEMA_ID = "corpusdb.agreement/1"
Progress = Callable[[int, int, str], None]
"""Called as ``progress(done, total, what)`` after each step (pair, multi-rater units)."""

DOCUMENT_POLICY = (
    "each pair of raters is compared on the documents both have a visible set for; "
    "a document with a single rater's set is not compared"
)
MISSES_POLICY = (
    "each pair of raters is compared on the documents both have a visible set for, except that a "
    "document gold has and the other rater has no set for counts as answered with nothing: gold's "
    "items there are misses (`--answered-only` leaves such documents out)"
)


def document_policy(opts: AgreementOptions, raters: Sequence[Rater]) -> str:
    """The rule saying which documents each pair is compared on, as every output states it."""
    if opts.layer != "labels" and opts.unanswered == "misses" and any(r.kind == "gold" for r in raters):
        return MISSES_POLICY
    return DOCUMENT_POLICY


LINK_POLICY = (
    "entities are explicit clusters joined with the closures of symmetric links; F1 over co-referring "
    "pairs of mentions (and over directed edges), plus MUC, B-cubed and CEAF-e over entities (singletons "
    "included); mentions are mapped through the span alignment, names without a mention by their text, "
    "and an unaligned mention counts as one-sided"
)
GROUNDING_POLICY = (
    "headline: per document, the set of grounded ids (BioCreative II.5 style); per span: aligned spans "
    "whose id sets are equal (exact) or share an id (overlap), a span's ids including its entity's; a "
    "grounded span without a grounded partner counts as one-sided; per type = per database"
)


def semantic_policy(opts: AgreementOptions) -> str:
    """What the semantic grounding figure is, said in the report (the measure and its source)."""
    return (
        f"span semantic: aligned spans grounded in the knowledge base {opts.semantic!r} earn the similarity "
        f"of their concepts, Wang et al. (2007, Bioinformatics 23(10):1274-1281) on its is_a graph with edge "
        f"weight {opts.semantic_weight:g} (best-match average over each pair's concepts, as the BioNLP-ST "
        "2016 BB-cat task scored normalisation); P = credit / B's grounded spans, R = credit / A's"
    )


@dataclass(frozen=True, slots=True)
class AgreementReport:
    """``to_dict()`` is the documented JSON (see ``corpusdb/reports/README.md``)."""

    body: dict[str, Any] = field(repr=False)
    options: AgreementOptions
    pairs: tuple[PairResult, ...] = ()
    labels: LabelAgreement | None = None
    units: UnitAgreement | None = None

    def to_dict(self) -> dict[str, Any]:
        return copy.deepcopy(self.body)

    @property
    def summary(self) -> dict[str, Any]:
        return dict(self.body["summary"])

    def matrix(self, measure: str | None = None) -> dict[str, Any]:
        """One annotator x annotator matrix (default: the layer's headline measure)."""
        mats = self.body["matrices"]
        return mats[measure or next(iter(mats))]

    def pairwise(self, measure: Callable[[PairResult], float | None], name: str = "") -> PairwiseMatrix:
        """Any pairwise measure of the engine's pair results as a rater x rater matrix (mirrored;
        the diagonal is None), e.g. ``report.pairwise(lambda p: p.overall.only_a, "misses")``."""
        names = [r["name"] for r in self.body["raters"]]
        idx = {n: i for i, n in enumerate(names)}
        vals: list[list[float | None]] = [[None] * len(names) for _ in names]
        for p in self.pairs:
            vals[idx[p.a]][idx[p.b]] = vals[idx[p.b]][idx[p.a]] = measure(p)
        return PairwiseMatrix(
            name or getattr(measure, "__name__", "measure"), tuple(names), tuple(tuple(r) for r in vals)
        )

    def pair(self, a: str, b: str) -> PairResult:
        """The engine results of one pair (either order; ``a`` is the reference as computed)."""
        for p in self.pairs:
            if {p.a, p.b} == {a, b}:
                return p
        raise KeyError((a, b))


def _policy(opts: AgreementOptions, units: UnitAgreement | None, raters: Sequence[Rater]) -> dict[str, Any]:
    one_sided = {"spans": _spans.POLICY, "relations": _relations.POLICY, "links": LINK_POLICY,
                 "groundings": GROUNDING_POLICY}.get(opts.layer)  # fmt: skip
    if opts.layer == "groundings" and opts.semantic is not None:
        one_sided = f"{one_sided}; {semantic_policy(opts)}"
    return {
        "one_sided": one_sided,
        "documents": document_policy(opts, raters),
        "units": units.policy if units else None,
        "reference": "in each pair A (the row) is the reference: precision = matched / B's items, "
        "recall = matched / A's items; F1 and the coefficients are symmetric",
    }


def build_report(
    *,
    project: str,
    actor: str,
    schema: Schema | None,
    raters: Sequence[Rater],
    opts: AgreementOptions,
    texts: dict[str, str] | None = None,
    progress: Progress | None = None,
    fetch_texts: Callable[[Sequence[str]], Mapping[str, str]] | None = None,
    semantic: Semantic | None = None,
) -> AgreementReport:
    """Compute every pairwise and multi-rater figure for the loaded raters (``semantic``: the
    groundings layer's partial-credit measure, built by the service from a knowledge base)."""
    names = [r.name for r in raters]
    head: dict[str, Any] = {
        "schema": SCHEMA_ID,
        "project": project,
        "actor": actor,
        "generated": datetime.now(UTC).replace(microsecond=0).isoformat(),
        "layer": opts.layer,
        "settings": opts.settings(),
        "raters": [r.info() for r in raters],
    }
    per_doc_raters: dict[str, int] = {}
    for r in raters:
        for d in r.sets:
            per_doc_raters[d] = per_doc_raters.get(d, 0) + 1
    compared = sorted(d for d, n in per_doc_raters.items() if n >= 2)
    notes = []
    single = len(per_doc_raters) - len(compared)
    if single:
        notes.append(f"{single} document(s) have a set of only one rater and are not compared")
    head["documents"] = compared
    if opts.layer == "labels":
        la, body = compute_labels(raters, opts, schema)
        head["settings"]["label"] = body.pop("label")
        head["policy"] = {
            "one_sided": body["multirater"]["policy"],
            "documents": DOCUMENT_POLICY,
            "units": None,
            "reference": "in each pair A is the row of the table",
        }
        body["lowest"] = {
            "documents": aggregate.lowest(body["per_document"]["rows"], opts.lowest),
            "types": aggregate.lowest(body["per_type"]["rows"], opts.lowest),
        }
        if progress:
            progress(1, 1, "document labels")
        body |= {"per_rater": None, "suggestions": None, "one_sided": None}  # the same keys on every layer
        return AgreementReport({**head, **_order(body), "notes": notes}, opts, labels=la)
    if schema is not None:
        seen = {
            t
            for r in raters
            for t in (
                r.columns.type_names  # every type a column read met: no record is built
                if r.columns is not None
                else (sp.type for ann in r.sets.values() for sp in ann.spans)
            )
        }
        opts.check_merged_types(
            {e.name for e in schema.entities} | seen, f"entity types of schema {schema.name!r}"
        )
    types = SchemaTypes.from_schema(schema)
    steps = len(names) * (len(names) - 1) // 2 + (1 if opts.layer == "spans" and len(names) >= 3 else 0)
    pairs: list[PairResult] = []
    for i, a in enumerate(raters):
        for b in raters[i + 1 :]:
            pairs.append(compare_pair(a, b, opts, types, texts, semantic))
            if progress:
                progress(len(pairs), steps, f"{a.name} vs {b.name}")
    units = span_units(names, pairs, opts) if opts.layer == "spans" else None
    if progress and units is not None:
        progress(steps, steps, "multi-rater units")
    notes += [f"{p.a} and {p.b} share no document: not compared" for p in pairs if not p.documents]
    head["documents"] = sorted(set(compared).union(*(p.documents for p in pairs)))
    for p in pairs:
        ref, other = (p.a, p.b) if any(r.name == p.a and r.kind == "gold" for r in raters) else (p.b, p.a)
        by = {r.name: r for r in raters}
        unanswered = [d for d in p.documents if d not in by[other].sets]
        if unanswered:
            notes.append(f"{other} has no set on {len(unanswered)} of {ref}'s documents: counted as misses "
                         "(--answered-only leaves them out)")  # fmt: skip
    excluded = sum(p.spans.excluded_a + p.spans.excluded_b for p in pairs if p.spans is not None)
    if excluded:
        notes.append(f"{excluded} span(s) without a text mention (names only) are left out of span matching")
    type_rows = aggregate.per_type_rows(pairs)
    n_of = _raters.type_counts(raters, compared, opts.layer, opts)
    type_rows = [{**r, "n": n_of.get(r["name"], 0)} for r in type_rows]
    doc_rows = aggregate.per_document_rows(pairs)
    n_doc = _raters.document_counts(raters, head["documents"], opts.layer)
    doc_rows = [{**r, "n": n_doc.get(r["document"], 0)} for r in doc_rows]
    if units is not None:  # every rater at once, not pairs: alpha on the types of the document's units
        doc_rows = [{**r, "krippendorff_alpha": units.per_document.get(r["document"])} for r in doc_rows]
    rater_rows, one_sided = _raters.per_rater(raters, pairs, compared, opts.layer, texts, fetch_texts)
    suggested = _suggested(raters, head["documents"], opts, rater_rows, notes)
    body = {
        "summary": {**aggregate.summary(pairs, opts), "pair_measure": "f1"},
        "pairs": [aggregate.pair_entry(p, opts.layer) for p in pairs],
        "matrices": aggregate.matrices(names, pairs, opts.layer),
        "multirater": {**units.to_dict(), "bootstrap": units.to_dict()["bootstrap"] or None}
        if units
        else None,
        "per_type": {"measure": "mean_pairwise_f1", "rows": type_rows},
        "per_document": {"measure": "mean_pairwise_f1", "rows": doc_rows},
        "per_rater": rater_rows,
        "suggestions": suggested,
        "one_sided": one_sided,
        "lowest": {
            "documents": aggregate.lowest(doc_rows, opts.lowest),
            "types": aggregate.lowest(type_rows, opts.lowest),
        },
        "confusion": aggregate.confusion(pairs),
    }
    head["policy"] = _policy(opts, units, raters)
    return AgreementReport({**head, **body, "notes": notes}, opts, tuple(pairs), units=units)


def _order(body: dict[str, Any]) -> dict[str, Any]:
    keys = (
        "summary",
        "pairs",
        "matrices",
        "multirater",
        "per_type",
        "per_document",
        "per_rater",
        "suggestions",
        "one_sided",
        "lowest",
        "confusion",
        "categories",
    )
    return {k: body[k] for k in keys if k in body}


def _suggested(
    raters: Sequence[Rater],
    documents: Sequence[str],
    opts: AgreementOptions,
    rows: dict[str, Any],
    notes: list[str],
) -> dict[str, Any]:
    """How many compared items each rater accepted from suggestions (``corpusdb.recommend``): shared
    suggestions raise agreement, so the report says so (``from_suggestions`` in ``per_rater``, a
    note), and ``exclude_suggested`` leaves them out (then the counts are what was left out)."""
    docs = set(documents)
    per = {r.name: sum(n for d, n in (r.suggested or {}).items() if d in docs) for r in raters}
    for row in rows["rows"]:
        row["from_suggestions"] = per.get(row["name"], 0)
    if any(per.values()):
        said = ", ".join(f"{k} {v}" for k, v in per.items())
        notes.append(
            f"items accepted from suggestions, left out (--exclude-suggested): {said}"
            if opts.exclude_suggested
            else f"compared items accepted from suggestions (shared suggestions raise agreement; "
            f"--exclude-suggested leaves them out): {said}"
        )
    return {"excluded": opts.exclude_suggested, "per_rater": per, "total": sum(per.values())}
