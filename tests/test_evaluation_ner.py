"""bio-NER criteria with partial credit, core terms, type merges and GENETAG-style alternatives."""

from __future__ import annotations

import pytest

from corpusdb.agreement.spans import compare_spans
from corpusdb.basics.records import Span
from corpusdb.evaluation.counts import EvaluationInputError
from corpusdb.evaluation.ner import RefSpan, score_ner
from importers.standoff import read_directory
from tests.conftest import shared_path

TEXT = "Levels of the p21ras proteins rose, and human p53 protein levels fell in HeLa cells."


def sp(i: str, t: str, s: str) -> Span:
    start = TEXT.index(s)
    return Span(i, t, ((start, start + len(s)),), s)


def fr(s: str) -> tuple[tuple[int, int], ...]:
    start = TEXT.index(s)
    return ((start, start + len(s)),)


def counts(scores: dict, name: str = "all") -> tuple[float, float, float]:
    s = scores[name]
    return (s.tp, s.fn, s.fp)


def test_fragment_gives_per_token_credit() -> None:
    ref = {"d": [sp("T1", "protein", "p21ras proteins")]}
    pred = {"d": [sp("P1", "protein", "p21ras")]}
    texts = {"d": TEXT}
    assert counts(score_ner(ref, pred, criterion="exact")) == (0, 1, 1)
    assert counts(score_ner(ref, pred, criterion="approximate")) == (1, 0, 0)
    # tokens "p21ras" "proteins" vs "p21ras": 1 of 2 -> credit 1/2 on both sides
    assert counts(score_ner(ref, pred, criterion="fragment", texts=texts)) == (0.5, 0.5, 0.5)
    with pytest.raises(EvaluationInputError, match="text of document 'd'"):
        score_ner(ref, pred, criterion="fragment")


def test_genetag_alternatives_count_once() -> None:
    ref = {
        "d": [
            RefSpan(
                sp("T1", "protein", "the p21ras proteins"), alternatives=(fr("p21ras proteins"), fr("p21ras"))
            )
        ]
    }
    pred = {"d": [sp("P1", "protein", "p21ras"), sp("P2", "protein", "p21ras proteins")]}
    # both predictions are acceptable, but the reference mention is found once: the other is an fp
    assert counts(score_ner(ref, pred, criterion="exact")) == (1, 0, 1)


def test_core_term_matching() -> None:
    ref = {"d": [RefSpan(sp("T1", "protein", "human p53 protein"), core=fr("p53"))]}
    assert counts(score_ner(ref, {"d": [sp("P", "protein", "p53 protein")]}, criterion="core")) == (1, 0, 0)
    assert counts(score_ner(ref, {"d": [sp("P", "protein", "p53 protein levels")]}, criterion="core")) == (
        0,
        1,
        1,
    )
    assert counts(score_ner(ref, {"d": [sp("P", "protein", "human")]}, criterion="core")) == (0, 1, 1)


def test_type_modes_and_per_type_counts() -> None:
    ref = {"d": [sp("T1", "protein", "p53"), sp("T2", "cell_line", "HeLa cells")]}
    pred = {"d": [sp("P1", "DNA", "p53"), sp("P2", "cell_line", "HeLa cells")]}
    req = score_ner(ref, pred)
    assert (
        counts(req) == (1, 1, 1) and counts(req, "protein") == (0, 1, 0) and counts(req, "DNA") == (0, 0, 1)
    )
    assert counts(score_ner(ref, pred, types="ignored")) == (2, 0, 0)
    merged = score_ner(ref, pred, types="merged", classes={"macromolecule": ["protein", "DNA", "RNA"]})
    assert counts(merged) == (2, 0, 0) and counts(merged, "macromolecule") == (1, 0, 0)
    # unanswered document: a miss by default
    assert counts(score_ner({**ref, "e": ref["d"]}, pred, types="ignored")) == (2, 2, 0)
    assert counts(score_ner({**ref, "e": ref["d"]}, pred, types="ignored", answered_only=True)) == (2, 0, 0)


@pytest.mark.shared
@pytest.mark.parametrize("criterion", ["exact", "left", "right", "partial", "approximate"])
def test_binary_criteria_agree_with_the_agreement_engine(criterion: str) -> None:
    """Same counts as the agreement engine's one-to-one matching on a real corpus (Lisa vs Max)."""
    root = shared_path("data", "bratiaa-example-project")
    lisa = {p.document.external_id: p.annotations.spans for p in read_directory(root / "Lisa")}
    maxx = {p.document.external_id: p.annotations.spans for p in read_directory(root / "Max")}
    docs = sorted(set(lisa) & set(maxx))
    ours = score_ner({d: lisa[d] for d in docs}, {d: maxx[d] for d in docs}, criterion=criterion)
    theirs = compare_spans({d: (lisa[d], maxx[d]) for d in docs}, criterion).overall
    assert counts(ours) == (theirs.matched, theirs.only_a, theirs.only_b)
