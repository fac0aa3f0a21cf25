"""Document-level figures and significance, on cases computed by hand in the comments."""

from __future__ import annotations

import numpy as np
import pytest

from corpusdb.evaluation.counts import EvaluationInputError
from corpusdb.evaluation.documents import (
    Judgement,
    interpolated_auc,
    normalise_pair,
    score_ranked,
    score_triage,
    triage_utility,
)
from corpusdb.evaluation.significance import bootstrap_ci, paired_test, rows_of

REF = {"d1": True, "d2": True, "d3": False, "d4": True, "d5": False, "d6": False}
PRED = {"d1": Judgement(True, 0.9), "d2": Judgement(False, 0.2), "d3": Judgement(True, 0.8),
        "d4": Judgement(True, 0.7), "d5": Judgement(False, 0.1)}  # fmt: skip


def test_triage_by_hand() -> None:
    # tp d1 d4, fp d3, fn d2, tn d5 and the unanswered d6 (a miss: said negative)
    r = score_triage(REF, PRED)
    f = r.figures
    assert (f["tp"], f["fp"], f["fn"], f["tn"]) == (2, 1, 1, 2)
    assert f["precision"] == pytest.approx(2 / 3) and f["recall"] == pytest.approx(2 / 3)
    assert f["accuracy"] == pytest.approx(4 / 6) and f["specificity"] == pytest.approx(2 / 3)
    assert f["mcc"] == pytest.approx((2 * 2 - 1 * 1) / 9)
    assert f["utility"] == pytest.approx((20 * 2 - 1) / (20 * 3))  # 0.65
    # ranking of the documents said positive: d1 (rel), d3 (not), d4 (rel); 3 relevant:
    # precision 1, 1/2, 2/3 -> interpolated 1, 2/3, 2/3 -> AUC (1 + 2/3) / 3
    assert f["auc_ipr"] == pytest.approx(5 / 9)
    assert r.unanswered == ["d6"]
    only = score_triage(REF, PRED, answered_only=True).figures
    assert only["tn"] == 1 and only["accuracy"] == pytest.approx(3 / 5)


def test_triage_utility_is_trec_2004s() -> None:
    assert triage_utility(tp=10, fp=30, all_positive=20) == pytest.approx((200 - 30) / 400)
    assert triage_utility(tp=20, fp=0, all_positive=20) == 1.0
    assert triage_utility(0, 5, 0) is None


def test_interpolated_auc_by_hand() -> None:
    assert interpolated_auc([True, True], 2) == 1.0
    assert interpolated_auc([False, True], 1) == 0.5
    assert interpolated_auc([True, False, True, False], 3) == pytest.approx(5 / 9)
    assert interpolated_auc([], 2) == 0.0
    assert interpolated_auc([True], 0) is None


def test_ranked_items_per_document_by_hand() -> None:
    ref = {"A": {"P1", "P2", "P3"}, "B": {"Q1"}, "C": {"R1"}}
    pred = {"A": [("P1", 0.9), ("X", 0.8), ("P2", 0.7), ("Y", 0.6)], "B": [("Q1", 0.5), ("Z", 0.95)]}
    r = score_ranked(ref, pred)
    f = r.figures
    assert (f["tp"], f["fn"], f["fp"]) == (3, 2, 3)
    assert f["f1"] == pytest.approx(6 / 11)
    # per document AUC: A 5/9, B 1/2 (Z first), C 0 (unanswered: a miss) -> macro 19/54
    assert f["auc_ipr"]["macro"] == pytest.approx(19 / 54)
    # pooled by confidence: Z P1 X P2 Y Q1 -> interpolated precision 1/2 everywhere, 3 hits of 5
    assert f["auc_ipr"]["micro"] == pytest.approx(0.3)
    cut = score_ranked(ref, pred, cutoff=2).figures
    assert (cut["tp"], cut["fn"], cut["fp"]) == (2, 3, 2)  # A keeps P1, X
    only = score_ranked(ref, pred, answered_only=True).figures
    assert only["fn"] == 1 and only["auc_ipr"]["macro"] == pytest.approx((5 / 9 + 0.5) / 2)
    assert score_ranked(ref, pred, beta=2).figures["f2"] == pytest.approx(5 * 0.5 * 0.6 / (4 * 0.5 + 0.6))
    ci = r.bootstrap(300, seed=1)["auc_ipr_macro"]
    assert ci["low"] <= 19 / 54 <= ci["high"]
    with pytest.raises(EvaluationInputError):
        score_ranked(ref, pred, cutoff=0)


def test_pairs_are_undirected() -> None:
    ref = {"A": {normalise_pair("P2", "P1")}}
    r = score_ranked(ref, {"A": [(normalise_pair("P1", "P2"), 1.0)]})
    assert r.figures["tp"] == 1 and r.figures["fp"] == 0


def test_bootstrap_interval_is_reproducible_and_brackets_the_estimate() -> None:
    rng = np.random.default_rng(3)
    rows = rng.integers(0, 6, size=(40, 3)).astype(float)
    point = 2 * rows[:, 0].sum() / (2 * rows[:, 0].sum() + rows[:, 1].sum() + rows[:, 2].sum())
    ci = bootstrap_ci(rows, "f1", resamples=500, seed=1)
    assert ci.low < point < ci.high
    assert ci == bootstrap_ci(rows, "f1", resamples=500, seed=1)
    assert bootstrap_ci(np.array([[3.0, 1.0, 0.0]] * 5), "precision", resamples=50).low == 1.0


def test_paired_tests() -> None:
    one = np.array([[3.0, 1.0, 1.0]])
    other = np.array([[1.0, 3.0, 3.0]])
    # one document: swapping it only flips the sign, every shuffle is as extreme -> p = 1
    assert paired_test(one, other, resamples=99).p_value == 1.0
    good = np.array([[5.0, 0.0, 0.0]] * 30)
    bad = np.array([[1.0, 4.0, 4.0]] * 30)
    ar = paired_test(good, bad, resamples=999, seed=2)
    assert ar.method == "approximate_randomization" and ar.difference == pytest.approx(1 - 0.2)
    assert ar.p_value < 0.01
    bs = paired_test(good, bad, method="paired_bootstrap", resamples=500, seed=2)
    assert bs.p_value == 0.0
    same = paired_test(good, good, resamples=99)
    assert same.difference == 0.0 and same.p_value == 1.0
    assert rows_of({"x": [1, 2, 3]}, ["x", "y"]).tolist() == [[1, 2, 3], [0, 0, 0]]


def test_every_triage_figure_gets_a_bootstrap_interval() -> None:
    ref = {f"d{i}": i % 3 != 0 for i in range(60)}
    pred = {f"d{i}": Judgement(i % 4 != 0, (i * 7) % 11 / 10) for i in range(60)}
    r = score_triage(ref, pred)
    ci = r.bootstrap(300, seed=4)
    assert set(ci) == {"precision", "recall", "f1", "accuracy", "specificity", "mcc", "utility", "auc_ipr"}
    for k, v in ci.items():
        assert v["low"] <= r.figures[k] <= v["high"], k
    assert ci == r.bootstrap(300, seed=4)


def test_vectorised_auc_equals_the_definition() -> None:
    from corpusdb.evaluation.documents import _auc_array

    rng = np.random.default_rng(0)
    for _ in range(20):
        hits = rng.random(15) < 0.4
        total = int(hits.sum()) + int(rng.integers(0, 3))
        assert _auc_array(hits, total) == pytest.approx(interpolated_auc(hits.tolist(), total))
