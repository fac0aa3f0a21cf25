"""alpha_u and gamma over a project's spans (``Corpus.unitizing_agreement``, ``agree -m``).

References: Krippendorff (2004, p. 254) worked example of unitizing alpha, rebuilt as a project (the
published .8591 is from rounded intermediates; exact .85867, ../shared/reference README 2.1);
pygamma-agreement on real data (bratiaa's four annotators, shipped as the demo), run when it is
installed, and its figures pinned (pygamma-agreement 0.5.x, CombinedCategoricalDissimilarity(1, 1, 1))
so the check holds without it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from corpusdb.agreement.gamma import best_alignment_disorder
from corpusdb.api import Corpus
from corpusdb.basics.records import Document, Span
from corpusdb.cli.main import app
from corpusdb.demo import build_demo
from corpusdb.reports.loading import load_raters
from corpusdb.reports.options import AgreementOptions
from corpusdb.services.edits import Put

# Krippendorff 2004, p. 254: continuum [150, 450); (begin, length, observer, category)
K2004 = [(225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"), (400, 20, 1, "c"),
         (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"), (300, 50, 1, "k")]  # fmt: skip
TYPES = {"c": "protein", "k": "gene"}
# pygamma-agreement's best-alignment disorder on the demo's esp.train-doc-29, four annotators
PYGAMMA_DOC29_DISORDER = 0.08182404


@pytest.fixture
def k2004(sqlite_url: str) -> Corpus:
    c = Corpus.create("k", "biorelex-1.0", url=sqlite_url)
    for n in ("obs0", "obs1"):
        c.add_annotator(n)
    c.add_documents([Document("doc", "x" * 300)])  # the continuum, shifted to start at 0
    c.assign(["doc"], ["obs0", "obs1"])
    for obs in (0, 1):
        me = c.as_user(f"obs{obs}")
        s = me.my_set("doc").info
        spans = [Span(f"T{i}", TYPES[cat], ((b - 150, b - 150 + n),), "x" * n)
                 for i, (b, n, o, cat) in enumerate(K2004) if o == obs]  # fmt: skip
        me.edit_set(s.id, [Put(sp) for sp in spans], expected_version=s.version)
        me.submit(s.id)
    return c


def test_alpha_u_of_krippendorff_2004_through_a_project(k2004: Corpus) -> None:
    body = k2004.unitizing_agreement("alpha_u")
    assert body["schema"] == "corpusdb.unitizing/1" and body["raters"] == ["obs0", "obs1"]
    assert body["value"] == pytest.approx(0.8587, abs=5e-5)  # the book: .8591 from rounded D_o, D_e
    per = {r["category"]: r["value"] for r in body["per_category"]}
    assert per["protein"] == pytest.approx(0.7286, abs=5e-5) and per["gene"] == 1.0
    assert "merged" in body["options"]["overlaps"]


def test_alpha_u_from_the_cli_json_and_text(k2004: Corpus, sqlite_url: str) -> None:
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "-m", "alpha_u", "-f", "json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["value"] == pytest.approx(0.8587, abs=5e-5)
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "-m", "alpha_u"])
    assert r.exit_code == 0, r.output
    assert "Krippendorff's unitizing alpha (alpha_u): 0.8587" in r.output
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "-m", "kappa_u"])
    assert r.exit_code != 0 and "alpha_u, gamma" in str(r.exception)


def test_a_lone_unit_costs_delta_empty_whatever_the_number_of_annotators() -> None:
    # three annotators, one unit: the best alignment is its singleton, disorder delta_empty / (1/3)
    # (pygamma's convention; counting the pair of empty units as 0 gave 2.0 before the fix)
    assert best_alignment_disorder([("a", 0, 5, "x")], annotators=["a", "b", "c"]) == pytest.approx(3.0)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite:///{tmp_path_factory.mktemp('demo') / 'demo.sqlite'}"
    build_demo(url)
    return url


def _doc29_units(url: str) -> list[tuple[str, int, int, str]]:
    c = Corpus.open(url=url)
    with c._read() as conn:
        raters = load_raters(conn, c.project_id, c.actor, AgreementOptions.build(layer="relations"), None)
    doc = "esp.train-doc-29"
    return [(r.name, b, e, sp.type) for r in raters for sp in r.sets[doc].spans for b, e in sp.fragments]


def test_gamma_best_alignment_matches_pygamma_on_real_data(demo: str) -> None:
    units = _doc29_units(demo)
    assert len({u[0] for u in units}) == 4
    assert best_alignment_disorder(units) == pytest.approx(PYGAMMA_DOC29_DISORDER, abs=1e-7)


def test_gamma_against_pygamma_installed(demo: str) -> None:
    pa = pytest.importorskip("pygamma_agreement", reason="pygamma-agreement is an optional test oracle")
    from pyannote.core import Segment

    from corpusdb.agreement.gamma import gamma_agreement

    units = _doc29_units(demo)
    cont = pa.Continuum()
    for a, b, e, cat in units:
        cont.add(a, Segment(b, e), cat)
    diss = pa.CombinedCategoricalDissimilarity(alpha=1, beta=1, delta_empty=1)
    assert best_alignment_disorder(units) == pytest.approx(cont.get_best_alignment(diss).disorder, abs=1e-6)
    theirs = cont.compute_gamma(diss, n_samples=30).gamma
    ours = gamma_agreement(units, n_samples=30, seed=0).gamma
    assert ours == pytest.approx(theirs, abs=0.01)  # both sample the expected disorder


def test_gamma_from_the_cli_with_a_seeded_document_sample(demo: str, tmp_path: Path) -> None:
    out = tmp_path / "gamma.html"
    args = ["--db", demo, "agree", "-m", "gamma", "--sample-documents", "2", "--seed", "3",
            "--gamma-samples", "5", "-f", "json", "--html", str(out)]  # fmt: skip
    r = CliRunner().invoke(app, args)
    assert r.exit_code == 0, r.output
    body = json.loads(r.stdout)
    assert len(body["documents"]) == 2 and body["sample"] == {"documents": 2, "seed": 3}
    assert body["options"]["samples"] == 5 and body["options"]["delta_empty"] == 1.0
    assert "dissimilarity" in body["options"] and "sampler" in body["options"]
    vals = [r["value"] for r in body["per_document"]]
    assert body["value"] == pytest.approx(sum(vals) / 2) and all(0.5 < v <= 1 for v in vals)
    again = json.loads(CliRunner().invoke(app, args).stdout)
    assert again["documents"] == body["documents"] and again["value"] == body["value"]  # seeded
    html = out.read_text(encoding="utf-8")
    assert "<svg" in html and "Mathet" in html and str(tmp_path) not in html


def test_alpha_u_per_document_over_every_annotator_sortable(demo: str, tmp_path: Path) -> None:
    """Issue 27: per-document agreement across all annotators (not pairs), sortable: each document's
    own alpha_u over the four annotators equals the engine on that document's continuum alone."""
    from corpusdb.agreement.unitizing import unitizing_alpha_spans

    c = Corpus.open(url=demo)
    body = c.unitizing_agreement("alpha_u")
    assert len(body["raters"]) == 4
    rows = {r["document"]: r for r in body["per_document"]}
    assert list(rows) == body["documents"]  # JSON: document order
    doc = "esp.train-doc-29"
    with c._read() as conn:
        raters = load_raters(conn, c.project_id, c.actor, AgreementOptions.build(layer="relations"), None)
    length = len(c.document(doc).text)
    want = unitizing_alpha_spans([(length, {r.name: r.sets[doc].spans for r in raters})],
                                 observers=[r.name for r in raters])  # fmt: skip
    assert rows[doc]["value"] == pytest.approx(want.alpha, abs=1e-12) and rows[doc]["units"] > 0
    assert any(r["value"] is not None and r["value"] < 1 for r in rows.values())
    # sorted by value from the CLI: lowest first in the text table; HTML has the figure and a sortable table
    out = tmp_path / "au.html"
    r = CliRunner().invoke(
        app, ["--db", demo, "agree", "-m", "alpha_u", "--sort", "value", "--html", str(out)]
    )
    assert r.exit_code == 0, r.output
    table = r.output.split("alpha_u (all raters)")[1].strip().splitlines()[1:]  # after the header
    shown = [float(line.split("\t")[1]) for line in table if line.split("\t")[1] != "–"]
    assert shown == sorted(shown) and len(shown) >= 2
    html = out.read_text(encoding="utf-8")
    assert "alpha_u per document (all raters)" in html and html.count('class="sortable"') == 2
    r = CliRunner().invoke(app, ["--db", demo, "agree", "-m", "alpha_u", "--sort", "size"])
    assert r.exit_code != 0 and "document, value" in str(r.exception) + r.output


def test_every_document_has_alpha_over_all_its_raters(demo: str) -> None:
    """Issue 27: the pairwise report's documents also get one coefficient over every rater at once:
    Krippendorff's alpha on the types of the document's multi-rater units, which is exactly the
    multi-rater alpha of ``agree -d <that document>``; the HTML table shows it beside the pairs."""
    c = Corpus.open(url=demo)
    body = c.agreement("spans").body
    rows = body["per_document"]["rows"]
    assert len(body["raters"]) == 4 and all("krippendorff_alpha" in r for r in rows)
    assert any(r["krippendorff_alpha"] is not None and r["krippendorff_alpha"] < 1 for r in rows)
    for r in rows:
        alone = c.agreement("spans", documents=[r["document"]]).body["multirater"]
        want = alone["coefficients"].get("krippendorff_alpha", {}).get("value") if alone else None
        if want is None:
            assert r["krippendorff_alpha"] is None
        else:
            assert r["krippendorff_alpha"] == pytest.approx(want, abs=1e-12), r["document"]
    from corpusdb.reports.tables import documents_section

    sec = documents_section(body)
    assert sec is not None and sec.headers[-1] == "alpha (all raters)" and "every rater at once" in sec.note
