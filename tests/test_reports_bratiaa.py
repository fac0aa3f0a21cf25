"""Exact span+type pairwise F1 through the database and the report equals bratiaa's on its own
example project (4 annotators, 7 Spanish news documents): 0.816 Maria–Max … 0.959 Lisa–Peter."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from corpusdb.demo import SAMPLE_ANNOTATORS, sample_dir
from tests.conftest import shared_path
from tests.test_reports_support import project_from_annotators

NAMES = list(SAMPLE_ANNOTATORS)  # Lisa, Maria, Max, Peter (bratiaa sorts them the same way)
# bratiaa 0.1.4's compute_total_f1_matrix on these files, to 3 decimals (the README's figures).
PUBLISHED = {
    ("Lisa", "Maria"): 0.946,
    ("Lisa", "Max"): 0.874,
    ("Lisa", "Peter"): 0.959,
    ("Maria", "Max"): 0.816,
    ("Maria", "Peter"): 0.909,
    ("Max", "Peter"): 0.838,
}
PUBLISHED_MEAN = 0.890


def _bratiaa(root: Path) -> dict[str, object] | None:
    """bratiaa's own figures on ``root`` (None when bratiaa is not installed)."""
    try:
        import bratiaa
    except ImportError:
        return None
    f1 = bratiaa.compute_f1_agreement(str(root))
    assert f1.annotators == NAMES
    m = f1.compute_total_f1_matrix()
    docs, _ = f1.mean_sd_per_document()
    labels, _ = f1.mean_sd_per_label()
    return {
        "pairs": {(a, b): float(m[i, j]) for (i, a), (j, b) in combinations(enumerate(NAMES), 2)},
        "mean": float(f1.mean_sd_total()[0]),
        "documents": {d.removesuffix(".ann"): float(v) for d, v in zip(f1.documents, docs, strict=True)},
        "labels": {lab: float(v) for lab, v in zip(f1.labels, labels, strict=True)},
    }


def _check(report: dict, root: Path) -> None:
    got = {(p["a"], p["b"]): p["overall"]["f1"] for p in report["pairs"]}
    oracle = _bratiaa(root)
    if oracle is None:  # a user's clone without the test extra: the published figures
        assert {k: round(v, 3) for k, v in got.items()} == PUBLISHED
        assert round(report["summary"]["value"], 3) == PUBLISHED_MEAN
        return
    assert got.keys() == oracle["pairs"].keys()  # type: ignore[union-attr]
    for k, v in got.items():
        assert v == pytest.approx(oracle["pairs"][k], abs=1e-12), k  # type: ignore[index]
    assert {k: round(v, 3) for k, v in got.items()} == PUBLISHED
    assert report["summary"]["value"] == pytest.approx(oracle["mean"], abs=1e-12)
    docs = {r["document"]: r["value"] for r in report["per_document"]["rows"]}
    assert docs == pytest.approx(oracle["documents"], abs=1e-12)  # bratiaa's per-document mean F1
    types = {r["name"]: r["value"] for r in report["per_type"]["rows"]}
    assert types == pytest.approx(oracle["labels"], abs=1e-12)  # and per-label mean F1


@pytest.mark.shared
def test_shared_bratiaa_project_through_db_and_report(any_url: str) -> None:
    root = shared_path("data", "bratiaa-example-project")
    corpus = project_from_annotators(any_url, root, NAMES)
    report = corpus.agreement("spans", criterion="exact", types="required").to_dict()
    _check(report, root)
    matrix = report["matrices"]["f1"]
    assert matrix["names"] == NAMES
    assert round(matrix["values"][1][2], 3) == 0.816 and round(matrix["values"][0][3], 3) == 0.959
    assert report["lowest"]["documents"][0]["document"] == "esp.train-doc-100"
    assert report["lowest"]["types"][0]["name"] == "LOC"


def test_bundled_sample_copy_without_shared(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same figures from the copy shipped in the package, through the CLI's JSON."""
    root = sample_dir()
    project_from_annotators(sqlite_url, root, NAMES)
    assert main(["--db", sqlite_url, "agree", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["schema"] == "corpusdb.agreement/1"
    _check(report, root)
    # the Markdown and the terminal report print the same figures, rounded
    out = tmp_path / "r.md"
    assert main(["--db", sqlite_url, "agree", "--output", str(out)]) == 0
    md = out.read_text(encoding="utf-8")
    assert "| Maria | Max | 7 | 311 | 93 | 47 | 0.869 | 0.770 | 0.816 |" in md
    assert main(["--db", sqlite_url, "agree"]) == 0
    text = capsys.readouterr().out
    assert "0.959" in text and "mean pairwise F1: 0.890" in text
