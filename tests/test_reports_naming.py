"""Reports name exactly what they computed (issue 27): per-category Fleiss' kappa is named by the
category, not its column index; the label summary says its pairs are Cohen's kappa."""

from __future__ import annotations

import json

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
