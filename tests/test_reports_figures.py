"""The agreement report's pictures say what their numbers say (issue 27)."""

from __future__ import annotations


def test_two_raters_get_no_matrix_picture_three_do() -> None:
    """A two-rater heatmap said less than its one number; from three raters the diagonal is grey and
    outside the colour scale (the scale spans the pairs' values)."""
    from corpusdb.reports import figures
    from corpusdb.reports.html import _figure
    from corpusdb.reports.tables import Section

    two = {"matrices": {"f1": {"names": ["a", "b"], "values": [[1.0, 0.8], [0.8, 1.0]]}}}
    sec = Section("Pairwise F1", ("x",), (), key="matrix")
    assert _figure(sec, two, "f1") == ""
    m3 = {"names": ["a", "b", "c"], "values": [[1.0, 0.80, 0.90], [0.80, 1.0, 0.85], [0.90, 0.85, 1.0]]}
    svg = figures.heatmap_svg(m3, "pairwise F1")
    assert "0.800" in svg and "0.900" in svg and "1.000" not in svg  # the diagonal is not labelled


def test_small_n_bars_say_so() -> None:
    from corpusdb.reports import figures

    rows = [{"name": "protein", "value": 0.9, "n": 120}, {"name": "RNA", "value": 1.0, "n": 2}]
    svg = figures.bars_svg(rows, "F1")
    assert "n = 2: too few to compare" in svg and "n = 120" not in svg


def test_pr_curve_names_auc_and_marks_the_operating_point() -> None:
    from corpusdb.evaluation.documents import interpolated_auc, pr_curve
    from corpusdb.reports import figures

    hits = [True, False, True, True, False]
    curve = pr_curve(hits, 4)
    auc = interpolated_auc(hits, 4)
    svg = figures.pr_curve_svg({"sysA": curve}, {"sysA": auc}, {"sysA": (0.75, 0.6)})
    assert f"sysA (AUC {auc:.3f})" in svg and "sysA: operating point" in svg


def test_systems_side_by_side_with_ci_whiskers() -> None:
    from corpusdb.reports import figures

    ci = {"f1": {"low": 0.5, "high": 0.9}}
    systems = [{"name": "one", "scores": [{"name": "all", "f1": 0.7, "ci": ci}]},
               {"name": "two", "scores": [{"name": "all", "f1": 0.6}]}]  # fmt: skip
    svg = figures.systems_svg(systems)
    assert "one" in svg and "two" in svg and svg.count("<svg") == 1
