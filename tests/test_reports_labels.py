"""Document-label agreement with four raters and missing judgments (TREC-style DR/PR/NR)."""

from __future__ import annotations

import json
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
from statsmodels.stats.inter_rater import cohens_kappa

from corpusdb.agreement import fleiss_kappa, gwet_ac, krippendorff_alpha, ratings_to_counts
from corpusdb.basics.records import Annotations, DocLabel, Document
from corpusdb.cli.main import main
from tests.test_reports_support import project_from_sets

RATERS = ("ann1", "ann2", "ann3", "ann4")
# 14 abstracts; None: that rater did not judge the document
JUDGMENTS = [
    ("DR", "DR", "DR", "DR"),
    ("DR", "PR", "DR", None),
    ("NR", "NR", "NR", "NR"),
    ("NR", "NR", "PR", "NR"),
    ("PR", "PR", None, "PR"),
    ("NR", "NR", "NR", None),
    ("DR", "DR", "PR", "DR"),
    ("NR", None, "NR", "NR"),
    ("PR", "NR", "DR", "NR"),
    ("NR", "NR", "NR", "NR"),
    ("DR", "DR", "DR", "PR"),
    (None, "NR", "NR", "NR"),
    ("NR", "PR", "NR", "NR"),
    ("NR", None, None, "DR"),
]
CATS = ["DR", "PR", "NR"]  # the schema's order


def _project(url: str):  # type: ignore[no-untyped-def]
    docs = [Document(f"PMID-{i + 100}", f"Abstract number {i}.") for i in range(len(JUDGMENTS))]
    sets = {
        r: {
            docs[i].external_id: Annotations(labels=(DocLabel("relevance", row[k]),))
            for i, row in enumerate(JUDGMENTS)
            if row[k] is not None
        }
        for k, r in enumerate(RATERS)
    }
    return project_from_sets(url, "trec-relevance", docs, sets)


def test_label_report_equals_the_engine_and_independent_oracles(any_url: str) -> None:
    import krippendorff

    corpus = _project(any_url)
    rep = corpus.agreement("labels", bootstrap=200, seed=3)
    body = rep.to_dict()
    assert body["settings"]["label"] == "relevance" and body["categories"] == CATS
    ratings = [list(r) for r in JUDGMENTS]
    counts, _ = ratings_to_counts(ratings, CATS)
    coeffs = body["multirater"]["coefficients"]
    assert coeffs["fleiss_kappa"]["value"] == fleiss_kappa(counts, categories=CATS).value
    assert coeffs["gwet_ac1"]["value"] == gwet_ac(counts, categories=CATS).value
    data = np.array([[np.nan if r[k] is None else CATS.index(r[k]) for r in JUDGMENTS] for k in range(4)])
    assert coeffs["krippendorff_alpha"]["value"] == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="nominal"), abs=1e-12
    )
    assert coeffs["krippendorff_alpha"]["value"] == krippendorff_alpha(data, "nominal").value
    assert body["summary"]["measure"] == "krippendorff_alpha"
    assert body["summary"]["ci"]["n_resamples"] == 200
    # pairwise Cohen's kappa = statsmodels on the documents both judged
    for p, (i, j) in zip(body["pairs"], combinations(range(4), 2), strict=True):
        both = [(r[i], r[j]) for r in JUDGMENTS if r[i] is not None and r[j] is not None]
        table = np.zeros((3, 3))
        for x, y in both:
            table[CATS.index(x), CATS.index(y)] += 1
        assert p["documents"] == len(both) and p["table"] == table.astype(int).tolist()
        want = cohens_kappa(table, return_results=False)
        assert p["coefficients"]["cohen_kappa"]["value"] == pytest.approx(want, abs=1e-12)
        assert body["matrices"]["cohen_kappa"]["values"][i][j] == p["coefficients"]["cohen_kappa"]["value"]
    # the document raters disagree on most comes first; per-category kappa is the engine's
    first, second = body["lowest"]["documents"][:2]
    assert first["document"] == "PMID-113" and first["value"] == 0.0 and first["n_raters"] == 2
    assert second["document"] == "PMID-108" and second["value"] == 1 / 6
    assert second["ratings"] == {"ann1": "PR", "ann2": "NR", "ann3": "DR", "ann4": "NR"}
    assert {r["name"] for r in body["per_type"]["rows"]} == set(CATS)
    assert body["confusion"]["orientation"] == "pooled_symmetric"


def test_two_raters_ordinal_and_the_cli(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _project(sqlite_url)
    assert (
        main(["--db", sqlite_url, "-f", "json", "agree", "-l", "labels", "-a", "ann1,ann2", "--ordinal"]) == 0
    )
    body = json.loads(capsys.readouterr().out)
    assert body["settings"]["ordinal"] is True
    assert {"cohen_kappa", "scott_pi", "bennett_s"} <= set(body["multirater"]["coefficients"])
    out = tmp_path / "labels.html"
    assert main(["--db", sqlite_url, "agree", "--layer", "labels", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") == 3 and "Confusion of labels" in html and "PMID-108" in html
    assert "Fleiss" in capsys.readouterr().out
