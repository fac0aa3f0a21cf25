"""Coefficients on published examples (inlined with their citations, so they run without ../shared),
degenerate inputs, bad inputs, engine equality and properties."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corpusdb.agreement import (
    AgreementInputError,
    bennett_s,
    brennan_prediger,
    cohen_kappa,
    contingency_table,
    fleiss_kappa,
    gwet_ac,
    gwet_ac1,
    krippendorff_alpha,
    krippendorff_alpha_counts,
    krippendorff_alpha_table,
    label_agreement,
    per_category_alpha,
    per_category_fleiss,
    per_category_kappa,
    percent_agreement,
    ratings_to_counts,
    scott_pi,
    specific_agreement,
    unitizing_alpha,
    unitizing_alpha_spans,
)
from corpusdb.agreement.alpha import alpha_from_coincidences, coincidences_from_counts
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Span

NAN = math.nan
# Krippendorff (2011) "Computing Krippendorff's alpha-reliability", data C; also Krippendorff (2004) p. 230.
KRIPP_C = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
    [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
]
# Fleiss (1971) / Gwet (2014) distrib.6raters: 15 patients, 6 raters, 5 diagnoses.
FLEISS_1971 = [
    [0, 0, 0, 6, 0],
    [0, 3, 0, 0, 3],
    [0, 1, 4, 0, 1],
    [0, 0, 0, 0, 6],
    [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0],
    [0, 0, 4, 0, 2],
    [2, 0, 3, 1, 0],
    [2, 0, 0, 4, 0],
    [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0],
    [1, 1, 0, 4, 0],
    [0, 3, 3, 0, 0],
    [1, 0, 0, 5, 0],
    [0, 2, 0, 3, 1],
]


# --- published values ---------------------------------------------------------------------------


def test_artstein_poesio_2008_example_2() -> None:
    """A&P (2008) p. 568: pi .7995, kappa .8013, S .82; alpha .8005 (printed .800 from rounding)."""
    t = [[46, 0, 0], [6, 32, 6], [0, 0, 10]]
    assert scott_pi(t).value == pytest.approx(0.7995, abs=1e-4)
    assert cohen_kappa(t).value == pytest.approx(0.8013, abs=1e-4)
    assert bennett_s(t).value == pytest.approx(0.82, abs=1e-9)
    assert krippendorff_alpha_table(t).value == pytest.approx(0.8005, abs=1e-4)
    # the identity alpha = 1 - (1 - pi)(2n - 1)/(2n) for two coders without missing values
    n = 100
    assert krippendorff_alpha_table(t).value == pytest.approx(
        1 - (1 - scott_pi(t).value) * (2 * n - 1) / (2 * n)
    )


def test_sas_weighted_kappa_with_se_z_p() -> None:
    """SAS PROC FREQ (statsmodels' test suite): weighted kappa .4701, ASE .1457, CI, z 3.2971."""
    k = cohen_kappa([[0, 4, 1], [0, 8, 0], [0, 1, 5]], "linear")
    assert (k.value, k.se, k.ci_low, k.ci_high) == pytest.approx((0.4701, 0.1457, 0.1845, 0.7558), abs=5e-5)
    assert k.details["se0"] == pytest.approx(0.1426, abs=5e-5)
    assert (k.z, k.p) == pytest.approx((3.2971, 0.001), abs=5e-5)


def test_irrcac_cont3x3abstractors_with_standard_errors() -> None:
    """Gwet (2014) / R irrCAC README: values, SEs and t-based CIs."""
    t = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
    assert cohen_kappa(t).se == pytest.approx(0.05891072, abs=5e-8)
    s = scott_pi(t)
    assert (s.value, s.se) == pytest.approx((0.7962397, 0.05905473), abs=5e-8)
    assert (s.ci_low, s.ci_high) == pytest.approx((0.679, 0.913), abs=5e-4)
    g = gwet_ac1(t)
    assert (g.value, g.se) == pytest.approx((0.8493305, 0.04321747), abs=5e-8)
    assert krippendorff_alpha_table(t).value == pytest.approx(0.7972585, abs=5e-8)
    assert percent_agreement(t).se == pytest.approx(0.03128898, abs=5e-8)


def test_gwet_hand_example_and_weighted_ac2() -> None:
    """DKPro Gwet2008Test hand example (AC1 .8658, pe .255); irrCAC fixture cohen1960 p.45 AC2 .63855."""
    g = gwet_ac1([[8, 1], [0, 1]])
    assert (g.value, g.expected) == pytest.approx((0.8658, 0.255), abs=5e-5)
    assert gwet_ac1([[88, 14, 18], [10, 40, 10], [2, 6, 12]], "quadratic").value == pytest.approx(
        0.63855, abs=5e-5
    )


def test_krippendorff_c_data_all_levels_and_do_de() -> None:
    for level, want in (("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849), ("ratio", 0.797)):
        assert krippendorff_alpha(KRIPP_C, level).value == pytest.approx(want, abs=5e-4)
    res = krippendorff_alpha(KRIPP_C, "interval")
    assert (res.details["Do"], res.details["De"]) == pytest.approx((0.433, 2.872), abs=5e-4)


def test_per_category_alpha_krippendorff_1980() -> None:
    """Krippendorff (1980) p. 139 data, per-category alpha .381/.711/.717/.764."""
    data = [[1, 1, 2, 4, 1, 2, 1, 3, 2], [1, 2, 2, 4, 4, 2, 2, 3, 2], [1, 2, 2, 4, 4, 2, 3, 3, 2]]
    got = {k: round(v.value, 3) for k, v in per_category_alpha(data).items()}
    assert got == {1: 0.381, 2: 0.711, 3: 0.717, 4: 0.764}


def test_fleiss_1971_with_fnl_and_gwet_se() -> None:
    f = fleiss_kappa(FLEISS_1971)
    assert f.value == pytest.approx(0.4139265, abs=5e-7)
    assert f.se == pytest.approx(0.08119291, abs=5e-7)  # Gwet's SE, irrCAC
    assert f.z == pytest.approx(f.value / f.details["se0"])
    assert gwet_ac(FLEISS_1971).value == pytest.approx(0.4448007, abs=5e-7)
    assert brennan_prediger(FLEISS_1971).value == pytest.approx(0.4388889, abs=5e-7)
    alpha = krippendorff_alpha_counts(FLEISS_1971, "nominal", se="gwet_dist")
    assert (alpha.value, alpha.se) == pytest.approx((0.4204384, 0.08243228), abs=5e-7)


def test_fleiss_wikipedia_example_and_fnl_se0() -> None:
    """Wikipedia "Fleiss' kappa" worked example: P .378, Pe .213, kappa .210; SE0 by Fleiss, Nee &
    Landis (1979) = .01696507 (R irr's formula)."""
    counts = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    f = fleiss_kappa(counts)
    assert (f.value, f.observed, f.expected) == pytest.approx((0.210, 0.378, 0.213), abs=5e-4)
    assert f.details["se0"] == pytest.approx(0.01696507, abs=5e-8)
    assert fleiss_kappa(counts, method="randolph").value == pytest.approx(0.22252747, abs=5e-8)


def test_fleiss_per_category_is_dichotomised_fleiss() -> None:
    """kappa_j = 1 - sum x_ij (m - x_ij) / (N m (m-1) p_j q_j) equals statsmodels' Fleiss kappa on the
    data dichotomised as j / not j; SE0 = sqrt(2 / (N m (m-1))) (Fleiss 1971)."""
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    c = np.array(FLEISS_1971, dtype=float)
    per = per_category_fleiss(c)
    for j in range(5):
        p = c[:, j].sum() / c.sum()
        formula = 1 - (c[:, j] * (6 - c[:, j])).sum() / (15 * 6 * 5 * p * (1 - p))
        assert per[j].value == pytest.approx(formula)
        assert per[j].value == pytest.approx(sm_fleiss(np.stack([c[:, j], 6 - c[:, j]], axis=1)))
    assert per[0].details["se0"] == pytest.approx(math.sqrt(2 / (15 * 6 * 5)))


def test_fleiss_with_missing_ratings_matches_irrcac() -> None:
    """irrCAC raw4raters (= Krippendorff's C data as subjects x raters): Fleiss .76117, AC1 .77544."""
    rows = [list(col) for col in zip(*KRIPP_C, strict=True)]
    counts, cats = ratings_to_counts(rows)
    assert fleiss_kappa(counts, categories=cats).value == pytest.approx(0.76117, abs=5e-5)
    assert gwet_ac(counts, categories=cats).value == pytest.approx(0.77544, abs=5e-5)
    assert "se0" not in fleiss_kappa(counts).details  # unequal raters: no FNL SE


def test_per_category_kappa_and_specific_agreement() -> None:
    t = np.array([[20, 10], [20, 50]])
    per = per_category_kappa(t, ["STAT", "IReq"])
    # for two categories each dichotomy is the table itself
    assert per["STAT"].value == pytest.approx(cohen_kappa(t).value)
    p = t / t.sum()
    k = 0
    formula = (
        2
        * (p[k, k] - p[k].sum() * p[:, k].sum())
        / (p[k].sum() + p[:, k].sum() - 2 * p[k].sum() * p[:, k].sum())
    )
    assert per["STAT"].value == pytest.approx(formula)
    assert specific_agreement(t, ["STAT", "IReq"])["STAT"] == pytest.approx(40 / 70)


def test_unitizing_krippendorff_2004() -> None:
    units = [
        (225, 70, 0, "c"),
        (370, 30, 0, "c"),
        (220, 80, 1, "c"),
        (355, 20, 1, "c"),
        (400, 20, 1, "c"),
        (180, 60, 0, "k"),
        (300, 50, 0, "k"),
        (180, 60, 1, "k"),
        (300, 50, 1, "k"),
    ]
    res = unitizing_alpha(units, continuum_begin=150, continuum_length=300)
    assert res.alpha == pytest.approx(0.8591, abs=5e-4)
    assert res.per_category["c"].do == pytest.approx(0.0144, abs=5e-5)
    assert res.per_category["c"].de == pytest.approx(0.0532, abs=5e-5)
    assert res.per_category["k"].alpha == 1.0
    d = res.to_dict()
    assert d["per_category"]["c"]["alpha"] == pytest.approx(0.7286, abs=5e-4)


def test_unitizing_spans_identical_observers_give_one() -> None:
    spans = [Span("T1", "Protein", ((0, 4),), ""), Span("T2", "Gene", ((10, 14), (20, 24)), "")]
    res = unitizing_alpha_spans([(30, {"A": spans, "B": spans})])
    assert res.alpha == 1.0
    with pytest.raises(AgreementInputError, match="overlapping"):
        unitizing_alpha(
            [(0, 5, 0, "x"), (3, 5, 0, "x"), (0, 5, 1, "x")], continuum_begin=0, continuum_length=10
        )


# --- degenerate and bad inputs -------------------------------------------------------------------------


def test_one_category_everywhere_is_documented_not_nan() -> None:
    t = [[10, 0], [0, 0]]
    for f in (cohen_kappa, scott_pi, krippendorff_alpha_table):
        res = f(t)
        assert res.value is None and res.degenerate and "undefined" in res.note
        assert res.to_dict()["value"] is None
    res = krippendorff_alpha([[1, 1, 1], [1, 1, 1]], "nominal")
    assert res.value is None and "no variation" in res.note
    assert fleiss_kappa([[3, 0], [3, 0]]).value is None


def test_constant_coder_gives_kappa_zero_with_a_note() -> None:
    """DKPro testMissingVariance: coder 1 constant -> kappa exactly 0, alpha slightly negative."""
    a = [1] * 13
    b = [1] * 11 + [2, 3]
    t, _ = contingency_table(a, b)
    k = cohen_kappa(t)
    assert k.value == 0.0 and "single category" in k.note
    assert krippendorff_alpha([a, b], "nominal").value == pytest.approx(-0.0204082, abs=1e-6)


def test_nothing_pairable() -> None:
    res = krippendorff_alpha([[1, NAN, 2], [NAN, 3, NAN]], "nominal")
    assert res.value is None and "pairable" in res.note
    assert fleiss_kappa([[1, 0], [0, 1]]).value is None
    assert cohen_kappa([[0, 0], [0, 0]]).note


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: cohen_kappa([[1, 2, 3]]), "square"),
        (lambda: cohen_kappa([[1, -2], [3, 4]]), "non-negative"),
        (lambda: cohen_kappa([[1, 2], [3, 4]], "cubic"), "unknown weights"),
        (lambda: cohen_kappa([[1, 2], [3, 4]], [[1, 0], [0, 0.5]]), "diagonal"),
        (lambda: krippendorff_alpha(KRIPP_C, "cardinal"), "level_of_measurement"),
        (lambda: krippendorff_alpha([["a", "b"], ["b", "a"]], "interval"), "numeric"),
        (lambda: fleiss_kappa([[1, 2]], method="cohen"), "method"),
        (lambda: contingency_table([1, 2], [1]), "different numbers"),
        (lambda: scott_pi([[1, 2], [3, 4]], confidence=1.5), "confidence"),
    ],
)
def test_bad_input_raises_one_precise_error(call: object, match: str) -> None:
    with pytest.raises(AgreementInputError, match=match) as exc:
        call()  # type: ignore[operator]
    assert isinstance(exc.value, InvalidInput) and isinstance(exc.value, ValueError)


# --- engines and properties -------------------------------------------------------------------------------


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_coincidence_engine_equals_krippendorff_package(level: str) -> None:
    rng = np.random.default_rng(7)
    data = rng.integers(1, 6, size=(3, 400)).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    ref = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    ours = krippendorff_alpha(data, level, engine="coincidence", se=None, chunk=37)
    assert ours.details["engine"] == "coincidence"
    assert ours.value == pytest.approx(ref, abs=1e-10)
    assert krippendorff_alpha(data, level, engine="krippendorff").value == pytest.approx(ref, abs=1e-12)


def test_coincidences_are_chunk_invariant() -> None:
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 3, size=(1000, 4))
    o1 = coincidences_from_counts(counts, chunk=1000)
    o2 = coincidences_from_counts(counts, chunk=7)
    assert np.allclose(o1, o2)
    assert alpha_from_coincidences(o1, 1 - np.eye(4))[0] == pytest.approx(
        krippendorff.alpha(value_counts=counts, level_of_measurement="nominal")
    )


labels = st.lists(st.sampled_from(["a", "b", "c"]), min_size=4, max_size=40)


@settings(max_examples=40, deadline=None)
@given(labels)
def test_identical_coders_agree_perfectly(x: list[str]) -> None:
    t, _ = contingency_table(x, x)
    if len(set(x)) < 2:
        assert cohen_kappa(t).value is None  # documented degenerate case
        return
    for f in (cohen_kappa, scott_pi, bennett_s, gwet_ac1, percent_agreement):
        assert f(t).value == pytest.approx(1.0)
    assert krippendorff_alpha([x, x], "nominal").value == pytest.approx(1.0)
    assert fleiss_kappa(ratings_to_counts([[v, v, v] for v in x])[0]).value == pytest.approx(1.0)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("abc"), st.sampled_from("abc")), min_size=3, max_size=40))
def test_swapping_coders_changes_nothing(pairs: list[tuple[str, str]]) -> None:
    a, b = [p[0] for p in pairs], [p[1] for p in pairs]
    t1, _ = contingency_table(a, b, "abc")
    t2, _ = contingency_table(b, a, "abc")
    for f in (cohen_kappa, scott_pi, bennett_s, gwet_ac1, krippendorff_alpha_table):
        v1, v2 = f(t1).value, f(t2).value
        assert (v1 is None and v2 is None) or v1 == pytest.approx(v2)
    r1 = krippendorff_alpha([a, b], "nominal").value
    r2 = krippendorff_alpha([b, a], "nominal").value
    assert (r1 is None and r2 is None) or r1 == pytest.approx(r2)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.sampled_from("abc"), min_size=3, max_size=30), st.sampled_from("abc"))
def test_constant_coder_is_zero_or_documented(x: list[str], c: str) -> None:
    t, _ = contingency_table([c] * len(x), x, "abc")
    k = cohen_kappa(t)
    if len(set(x)) == 1 and x[0] == c:
        assert k.value is None and k.note
    else:
        assert k.value == pytest.approx(0.0, abs=1e-12) and k.note


def test_label_agreement_trec_style_with_missing() -> None:
    ratings = [
        ["DR", "DR", "PR"],
        ["NR", "NR", None],
        ["PR", "DR", "PR"],
        ["NR", "NR", "NR"],
        ["DR", "DR", "DR"],
        [None, "PR", "PR"],
    ]
    res = label_agreement(
        ratings, annotators=["ann", "bob", "cy"], categories=["NR", "PR", "DR"], ordered=True, n_resamples=200
    )
    assert res.coefficients["krippendorff_alpha"].details["level"] == "ordinal"
    assert res.pairwise is not None and res.pairwise.names == ("ann", "bob", "cy")
    assert res.pairwise.values[0][0] == pytest.approx(1.0)
    nominal = label_agreement(ratings, n_resamples=200, seed=1)
    assert nominal.coefficients["fleiss_kappa"].value == pytest.approx(
        fleiss_kappa(ratings_to_counts(ratings)[0]).value
    )
    ci = nominal.bootstrap["fleiss_kappa"]
    assert ci.ci_low is not None and ci.ci_low <= ci.estimate <= ci.ci_high
    assert set(nominal.per_category["fleiss_kappa"]) == {"DR", "NR", "PR"}
    assert nominal.to_dict()["coefficients"]["fleiss_kappa"]["name"] == "fleiss_kappa"


@pytest.mark.parametrize(
    "module",
    ["alpha", "coefficients", "multirater", "spans", "unitizing", "weights", "labels"],
)
def test_docstring_examples_reproduce_published_values(module: str) -> None:
    """The modules' doctests (published examples) run with the normal test suite."""
    import doctest
    import importlib

    mod = importlib.import_module(f"corpusdb.agreement.{module}")
    result = doctest.testmod(mod, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0
