"""Interval and ratio Krippendorff's alpha from the CLI (issue 27: "interval alpha exists only in
Python"): ``agree -l labels --level interval|ratio`` on a numeric document label reproduces the
published values of ../shared/reference (Krippendorff 2011 data C; Krippendorff 1980 p.139), and
``-B`` gives its document-bootstrap interval."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from corpusdb.basics.records import Annotations, DocLabel, Document
from corpusdb.cli.main import main
from tests.test_reports_support import project_from_sets

VECTORS = Path(__file__).resolve().parents[1] / ".." / "shared" / "reference" / "agreement_vectors.json"
SCHEMA = """[schema]
name = "scores"
title = "A numeric score per document"
[[entity]]
name = "Evidence"
[[document_label]]
name = "score"
values = [{ value = "5" }, { value = "4" }, { value = "3" }, { value = "2" }, { value = "1" }]
"""


def _vector(vid: str) -> dict:  # type: ignore[type-arg]
    if not VECTORS.exists():
        pytest.skip(f"../shared/reference is missing ({VECTORS}): the published values live there")
    return next(v for v in json.loads(VECTORS.read_text(encoding="utf-8")) if v["id"] == vid)


def _project(url: str, tmp_path: Path, data: list[list[int | None]]) -> None:
    schema = tmp_path / "scores.toml"
    schema.write_text(SCHEMA, encoding="utf-8")
    n = len(data[0])
    docs = [Document(f"u{i + 1:02d}", f"Unit {i + 1}.") for i in range(n)]
    sets = {
        f"obs{k + 1}": {
            docs[i].external_id: Annotations(labels=(DocLabel("score", str(v)),))
            for i, v in enumerate(row)
            if v is not None
        }
        for k, row in enumerate(data)
    }
    project_from_sets(url, str(schema), docs, sets)


def _agree(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> dict:  # type: ignore[type-arg]
    assert main(["--db", url, "-f", "json", "agree", "-l", "labels", *extra]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("vid", "levels"),
    [("kripp_C_4obs_12units", ("nominal", "ordinal", "interval", "ratio")),
     ("kripp1980_p139_3coders_9units", ("nominal", "interval", "ratio"))],
)  # fmt: skip
def test_every_level_from_the_cli_is_the_published_value(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], vid: str, levels: tuple[str, ...]
) -> None:
    v = _vector(vid)
    _project(sqlite_url, tmp_path, v["data"]["reliability_data"])
    for level in levels:
        body = _agree(sqlite_url, capsys, "--level", level)
        alpha = body["multirater"]["coefficients"]["krippendorff_alpha"]
        assert body["summary"]["value"] == alpha["value"]
        assert body["summary"]["level"] == level and body["settings"]["level"] == level
        assert alpha["details"]["level"] == level
        # the schema lists 5..1 (not numeric order): ordinal must follow the schema's order reversed
        # gives the same alpha (ordinal distance is symmetric under reversal), interval/ratio the values
        assert alpha["value"] == pytest.approx(v["expected"][level], abs=v["tolerance"]), level
        assert alpha["value"] == pytest.approx(v["computed"][level], abs=1e-7), level
    if "interval_Do" in v["expected"]:
        body = _agree(sqlite_url, capsys, "--level", "interval")
        d = body["multirater"]["coefficients"]["krippendorff_alpha"]["details"]
        assert d["Do"] == pytest.approx(v["expected"]["interval_Do"], abs=5e-4)
        assert d["De"] == pytest.approx(v["expected"]["interval_De"], abs=5e-4)


def test_interval_alpha_has_its_bootstrap_interval_and_text_names_the_level(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    v = _vector("kripp_C_4obs_12units")
    _project(sqlite_url, tmp_path, v["data"]["reliability_data"])
    body = _agree(sqlite_url, capsys, "--level", "interval", "-B", "500", "--seed", "7")
    ci = body["summary"]["ci"]
    alpha = body["summary"]["value"]
    assert ci is not None and ci["n_resamples"] == 500 and ci["seed"] == 7
    assert ci["ci_low"] <= alpha <= ci["ci_high"] and ci["ci_high"] <= 1.0
    assert ci["estimate"] == pytest.approx(alpha, abs=1e-9)  # the bootstrap's statistic is interval alpha
    again = _agree(sqlite_url, capsys, "--level", "interval", "-B", "500", "--seed", "7")
    assert again["summary"]["ci"] == ci  # seeded
    ratio = _agree(sqlite_url, capsys, "--level", "ratio", "-B", "200")
    assert ratio["summary"]["ci"]["estimate"] == pytest.approx(v["computed"]["ratio"], abs=1e-7)
    assert main(["--db", sqlite_url, "agree", "-l", "labels", "--level", "interval"]) == 0
    out = capsys.readouterr().out
    assert "Krippendorff's alpha (interval): 0.849" in out and "(interval)" in out


def test_interval_needs_numbers_and_ordinal_does_not_contradict(
    sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    docs = [Document(f"d{i}", "x") for i in range(3)]
    sets = {
        a: {d.external_id: Annotations(labels=(DocLabel("relevance", "DR"),)) for d in docs} for a in "ab"
    }
    project_from_sets(sqlite_url, "trec-relevance", docs, sets)
    assert main(["--db", sqlite_url, "agree", "-l", "labels", "--level", "interval"]) != 0
    assert "'DR' is not a number" in capsys.readouterr().err
    assert main(["--db", sqlite_url, "agree", "-l", "labels", "--level", "ratio", "--ordinal"]) == 2
    assert "contradict" in capsys.readouterr().err
    assert main(["--db", sqlite_url, "agree", "-l", "labels", "--level", "metric"]) == 2
    assert "level must be one of nominal, ordinal, interval, ratio" in capsys.readouterr().err


def test_python_api_level_equals_the_engine(sqlite_url: str, tmp_path: Path) -> None:
    from corpusdb.agreement import krippendorff_alpha

    v = _vector("kripp1980_p139_3coders_9units")
    _project(sqlite_url, tmp_path, v["data"]["reliability_data"])
    from corpusdb.api import Corpus

    corpus = Corpus.open(url=sqlite_url)
    data = np.array(v["data"]["reliability_data"], dtype=float)
    rep = corpus.agreement("labels", level="ratio").to_dict()
    assert rep["summary"]["value"] == pytest.approx(krippendorff_alpha(data, "ratio").value, abs=1e-12)
