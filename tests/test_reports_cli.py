"""``corpusdb agree``: formats, files, the JSON schema's stable keys, and exit codes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from corpusdb.demo import sample_dir
from tests.test_reports_support import project_from_annotators

TOP_KEYS = [
    "schema",
    "project",
    "actor",
    "generated",
    "layer",
    "settings",
    "raters",
    "documents",
    "policy",
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
    "notes",
]


@pytest.fixture
def db(sqlite_url: str) -> str:
    project_from_annotators(sqlite_url, sample_dir(), ["Lisa", "Maria", "Max", "Peter"])
    return sqlite_url


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict:
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_json_schema_keys_are_stable(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(capsys, ["--db", db, "-f", "json", "agree", "--bootstrap", "100", "--seed", "1"])
    assert sorted(body) == sorted(TOP_KEYS) and body["schema"] == "corpusdb.agreement/1"
    assert set(body["settings"]) == {
        "layer",
        "raters",
        "gold",
        "predictions",
        "criterion",
        "jaccard",
        "types",
        "type_classes",
        "relation_mode",
        "derived_relations",
        "label",
        "ordinal",
        "level",
        "documents",
        "bootstrap",
        "unanswered",
        "exclude_suggested",
        "semantic",  # layer groundings' partial credit (issue #29); null otherwise
    }
    assert set(body["summary"]) == {
        "measure",
        "value",
        "n_pairs",
        "ci",
        "lowest_pair",
        "highest_pair",
        "pair_measure",
    }
    assert set(body["pairs"][0]) == {
        "a",
        "b",
        "documents",
        "overall",
        "per_type",
        "ci",
        "type_agreement",
        "excluded",
    }
    assert set(body["matrices"]) == {"f1", "precision", "recall", "type_kappa"}
    assert set(body["multirater"]) == {
        "coefficients",
        "categories",
        "units",
        "by_raters",
        "ambiguous",
        "policy",
        "bootstrap",
    }
    assert set(body["lowest"]) == {"documents", "types"}
    assert body["policy"]["one_sided"].startswith("one-to-one matching")
    assert body["summary"]["ci"]["n_resamples"] == 100
    same = _json(capsys, ["--db", db, "agree", "-f", "json", "--bootstrap", "100", "--seed", "1"])
    assert same["summary"] == body["summary"]


def test_options_reach_the_report(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    body = _json(
        capsys,
        [
            "--db",
            db,
            "-f",
            "json",
            "agree",
            "-a",
            "Lisa",
            "-a",
            "Max,Peter",
            "-c",
            "jaccard",
            "--jaccard",
            "0.8",
            "--merge",
            "LOC,ORG=place",
            "-d",
            "esp.train-doc-29,esp.train-doc-46",
            "--lowest",
            "1",
        ],
    )
    s = body["settings"]
    assert (s["criterion"], s["jaccard"], s["types"]) == ("jaccard", 0.8, "merged")
    assert s["type_classes"] == {"place": ["LOC", "ORG"]}
    assert [r["name"] for r in body["raters"]] == ["Lisa", "Max", "Peter"]
    assert body["documents"] == ["esp.train-doc-29", "esp.train-doc-46"]
    assert len(body["lowest"]["documents"]) == 1 and len(body["lowest"]["types"]) == 1
    assert "place" in body["pairs"][0]["per_type"]
    assert main(["--db", db, "agree", "-f", "markdown", "--matrix", "recall", "-a", "Lisa,Max"]) == 0
    md = capsys.readouterr().out
    assert "## Pairwise recall" in md and "*row = A (reference), column = B*" in md


def test_markdown_and_self_contained_html(
    db: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", db, "agree", "--format", "markdown"]) == 0
    md = capsys.readouterr().out
    assert md.startswith("# Inter-annotator agreement: iaa") and "## Pairwise F1" in md
    assert "## Policy" in md and "only_a (false negative" in md
    html, report = tmp_path / "report.html", tmp_path / "report.json"
    assert main(["--db", db, "agree", "--html", str(html), "--output", str(report)]) == 0
    assert json.loads(report.read_text(encoding="utf-8"))["schema"] == "corpusdb.agreement/1"
    page = html.read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>") and page.count("<svg") == 3
    for title in (
        "Pairwise F1",
        "Confusion of types: matched spans, and unmatched ones under (none)",
        "Per type",
        "Documents with the lowest agreement",
        "Types with the lowest agreement",
        "Policy",
    ):
        assert f"<h2>{title}</h2>" in page
    # nothing outside the file: one inline script (table sorting), no linked script, style or image
    assert page.count("<script") == 1 and "<script>" in page
    assert not re.search(r"<script [^>]*src|<link|src=\"http|href=\"http|url\((?!#)", page)
    assert "0.816" in page and "esp.train-doc-100" in page


def test_exit_codes(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["--db", db, "agree", "--criterion", "fuzzy"]) == 2
    )  # a value outside the choices is a usage error (issue #26)
    assert main(["--db", db, "agree", "--merge", "LOC"]) == 4
    assert main(["--db", db, "agree", "-a", "Lisa,Nobody"]) == 3
    assert main(["--db", db, "--as", "Lisa", "agree"]) == 4
    assert main(["--db", db, "--as", "Lisa", "agree", "-a", "Lisa,Max"]) == 5
    err = capsys.readouterr().err
    assert "double-blind" in err and "Traceback" not in err
    assert main(["--db", db, "agree", "--layer", "labels"]) == 4  # the sample has no document labels
    assert main(["--db", db, "agree", "--matrix", "bogus"]) == 4
