"""Triage from document labels, and the one triage report both the TSV files and the store feed.

Why here: a corpus team keeps triage/relevance judgments as document labels (``relevance = DR``) in
gold sets, and a system's answers as the same label in its prediction sets. This module turns those
records into what :func:`corpusdb.evaluation.documents.score_triage` scores (a reference
``{doc: bool}`` and a run ``{doc: Judgement}``), and builds the ``corpusdb.evaluation/1`` body from a
reference and runs, so ``evaluate triage REF.tsv RUN.tsv`` and ``evaluate triage --gold -s SYSTEM``
give the same figures on the same data. Pure: records in, figures out.

A prediction's confidence is the first number found in the label's extra (``confidence``, then
``score``, then ``attributes.confidence`` / ``attributes.score``), else in the set's extra (same keys);
without one it is 0 (ties keep document order). A document whose set has no such label is unanswered.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from corpusdb.basics.records import Annotations, DocLabel
from corpusdb.evaluation.counts import EvaluationInputError
from corpusdb.evaluation.documents import TREC_UR, Judgement, score_triage

CONFIDENCE_KEYS = ("confidence", "score")


def parse_positive(values: str | Iterable[str]) -> frozenset[str]:
    """``"DR,PR"`` (or a list) as the set of label values that mean relevant; empty is an error."""
    items = values.split(",") if isinstance(values, str) else [x for v in values for x in v.split(",")]
    out = frozenset(v.strip() for v in items if v.strip())
    if not out:
        raise EvaluationInputError("give the label values that count as positive, e.g. --positive DR,PR")
    return out


def _label(ann: Annotations, name: str) -> DocLabel | None:
    return next((lb for lb in ann.labels if lb.name == name), None)


def _number_in(extra: Mapping[str, Any]) -> tuple[bool, Any]:
    attrs = extra.get("attributes")
    for src in (extra, attrs if isinstance(attrs, Mapping) else {}):
        for k in CONFIDENCE_KEYS:
            if k in src and src[k] is not None:
                return True, src[k]
    return False, None


def confidence_of(label: DocLabel, ann: Annotations, where: str) -> float:
    """The label's confidence (see the module docstring); ``where`` names the set in an error."""
    found, raw = _number_in(label.extra)
    if not found:
        found, raw = _number_in(ann.extra)
    if not found:
        return 0.0
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise EvaluationInputError(
            f"{where}: confidence {raw!r} of label {label.name!r} is not a number"
        ) from None
    if math.isnan(value):
        raise EvaluationInputError(f"{where}: confidence of label {label.name!r} is NaN")
    return value


def reference_from_labels(
    sets: Mapping[str, Annotations], label: str, positive: Collection[str]
) -> tuple[dict[str, bool], list[str]]:
    """Gold ``{doc: relevant}`` in document id order, and the documents whose gold lacks ``label``."""
    ref: dict[str, bool] = {}
    unlabelled: list[str] = []
    for doc in sorted(sets):
        lb = _label(sets[doc], label)
        if lb is None:
            unlabelled.append(doc)
        else:
            ref[doc] = lb.value in positive
    return ref, unlabelled


def run_from_labels(
    sets: Mapping[str, Annotations], label: str, positive: Collection[str], system: str
) -> dict[str, Judgement]:
    """A system's ``{doc: Judgement}``: said positive when its label's value is in ``positive``."""
    out: dict[str, Judgement] = {}
    for doc in sorted(sets):
        lb = _label(sets[doc], label)
        if lb is not None:
            out[doc] = Judgement(lb.value in positive, confidence_of(lb, sets[doc], f"{system} on {doc}"))
    return out


def triage_report(
    reference_name: str, reference: Mapping[str, bool], runs: Mapping[str, Mapping[str, Judgement]], *,
    beta: float = 1.0, ur: float = TREC_UR, answered_only: bool = False, bootstrap: int = 0, seed: int = 0,
    confidence: float = 0.95, test: str = "approximate_randomization", test_resamples: int = 10000,
    options: Mapping[str, Any] | None = None, notes: Sequence[str] = (),
    progress: Callable[[int, int, str], None] | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The ``corpusdb.evaluation/1`` body of the triage task: each run's figures, a ranking and paired
    tests on F1 (document rows of :func:`score_triage`, so the tests and CIs are the shared ones)."""
    from corpusdb.evaluation.report import build_report, system_entry

    entries: list[dict[str, Any]] = []
    for name, run in runs.items():
        r = score_triage(reference, run, beta=beta, ur=ur, answered_only=answered_only)
        docs = [d for d in reference if not (answered_only and d in r.unanswered)]
        entries.append(system_entry(name, {"triage": r.score}, documents=docs, unanswered=r.unanswered,
                                    figures=r.figures, curve=r.curve, figure_bootstrap=r.bootstrap))  # fmt: skip
    return build_report("triage", reference_name, list(reference), entries, headline="triage",
                        answered_only=answered_only, bootstrap=bootstrap, seed=seed, confidence=confidence,
                        test=test, test_resamples=test_resamples, options={"beta": beta, "ur": ur, **(options or {})},
                        notes=notes, progress=progress)  # fmt: skip
