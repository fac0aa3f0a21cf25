"""Reports name exactly what they computed (issue 27): per-category Fleiss' kappa is named by the
category, not its column index; the label summary says its pairs are Cohen's kappa."""

from __future__ import annotations

import json

import pytest

from corpusdb.cli.main import main
from tests.test_reports_labels import _project


def test_per_category_kappa_is_named_by_its_category(sqlite_url: str) -> None:
    body = _project(sqlite_url).agreement("labels").to_dict()
    per = body["multirater"]["per_category"]["fleiss_kappa"]
    assert {c: v["name"] for c, v in per.items()} == {c: f"fleiss_kappa[{c}]" for c in ("DR", "PR", "NR")}
    s = body["summary"]
    assert s["measure"] == "krippendorff_alpha" and s["pair_measure"] == "cohen_kappa"
    assert s["lowest_pair"]["measure"] == "cohen_kappa" == s["highest_pair"]["measure"]


def test_the_cli_json_and_text_name_them(sqlite_url: str, capsys) -> None:  # type: ignore[no-untyped-def]
    _project(sqlite_url)
    assert main(["--db", sqlite_url, "agree", "-l", "labels", "-f", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert "fleiss_kappa[0]" not in json.dumps(body)
    assert body["multirater"]["per_category"]["fleiss_kappa"]["PR"]["name"] == "fleiss_kappa[PR]"
    assert main(["--db", sqlite_url, "agree", "-l", "labels"]) == 0
    text = capsys.readouterr().out
    assert "Krippendorff's alpha" in text and "(Cohen's kappa)" in text


BRATIAA = __import__("pathlib").Path(__file__).resolve().parents[1] / "corpusdb" / "sample" / "bratiaa"


def test_evaluate_ner_semeval_schemes_and_overlap_named(capsys) -> None:  # type: ignore[no-untyped-def]
    from corpusdb.agreement.spans import semeval_counts

    assert (
        main(["-f", "json", "evaluate", "ner", "-c", "semeval", str(BRATIAA / "Lisa"), str(BRATIAA / "Max")])
        == 0
    )
    body = json.loads(capsys.readouterr().out)
    rows = {s["name"]: s for s in body["systems"][0]["scores"]}
    assert set(rows) == {"strict", "exact", "partial (half credit)", "type"}
    # the same figures as the SemEval counts (which agree with nervaluate) over every document
    refs, preds = _folder_spans(BRATIAA / "Lisa"), _folder_spans(BRATIAA / "Max")
    pooled = semeval_counts({d: (refs[d], preds.get(d, [])) for d in refs})
    for scheme, name in (
        ("strict", "strict"),
        ("exact", "exact"),
        ("partial", "partial (half credit)"),
        ("ent_type", "type"),
    ):
        assert rows[name]["precision"] == pytest.approx(pooled[scheme]["precision"]), name
        assert rows[name]["recall"] == pytest.approx(pooled[scheme]["recall"]), name
    assert pooled["partial"]["PAR"] > 0  # half credit is exercised
    # corpusdb's own any-overlap criterion is reported as "overlap", also when asked by its old name
    assert (
        main(["-f", "json", "evaluate", "ner", "-c", "partial", str(BRATIAA / "Lisa"), str(BRATIAA / "Max")])
        == 0
    )
    assert json.loads(capsys.readouterr().out)["options"]["criterion"] == "overlap"


def _folder_spans(folder):  # type: ignore[no-untyped-def]
    from importers.standoff import read_directory

    return {d.document.external_id: list(d.annotations.spans) for d in read_directory(folder)}
