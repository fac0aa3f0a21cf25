"""Agreement by guideline version, by split and by annotator over time (``agree --by``), on a project
whose guidelines were amended half way: alice and bob disagree on one of the two documents made under
v1 and agree on both made under v2, so agreement rises after the amendment, and each annotator's
learning curve with windows of two documents goes 0.5 -> 1.0."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Document, Span
from corpusdb.cli.main import app
from corpusdb.services.edits import Put

TEXT = "IL-2 binds IL-2R in T cells."
IL2, IL2R = Span("T1", "protein", ((0, 4),), "IL-2"), Span("T1", "protein", ((11, 16),), "IL-2R")


@pytest.fixture
def amended(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_documents([Document(d, TEXT) for d in ("d1", "d2", "d3", "d4")])

    def annotate(docs: list[str], bob_differs: set[str]) -> None:
        c.assign(docs, ["alice", "bob"])
        for doc in docs:
            for who in ("alice", "bob"):
                me = c.as_user(who)
                s = me.my_set(doc).info
                span = IL2R if who == "bob" and doc in bob_differs else IL2
                me.edit_set(s.id, [Put(span)], expected_version=s.version)
                me.submit(s.id)

    annotate(["d1", "d2"], {"d2"})
    c.amend_guidelines(note="proteins: the receptor is its own mention")
    annotate(["d3", "d4"], set())
    return c


def test_agreement_rises_after_the_amendment(amended: Corpus) -> None:
    res = amended.agreement_by("guideline")
    rows = {r["group"]: r for r in res["rows"]}
    assert set(rows) == {1, 2}
    # v1: matched 1 (d1), only A 1, only B 1 (d2): P = R = F1 = 0.5; v2: both agree
    assert rows[1]["value"] == pytest.approx(0.5) and rows[1]["documents"] == 2
    assert rows[2]["value"] == pytest.approx(1.0)
    assert res["mixed_documents"] == 0


def test_learning_curve_per_annotator(amended: Corpus) -> None:
    res = amended.agreement_by("time", window=2)
    curve = [(r["annotator"], r["window"], r["first"], r["last"], r["value"]) for r in res["rows"]]
    assert curve == [("alice", 1, "d1", "d2", 0.5), ("alice", 2, "d3", "d4", 1.0),
                     ("bob", 1, "d1", "d2", 0.5), ("bob", 2, "d3", "d4", 1.0)]  # fmt: skip
    with pytest.raises(InvalidInput):
        amended.agreement_by("moon")


def test_by_split_and_the_cli(amended: Corpus, sqlite_url: str) -> None:
    res = amended.agreement_by("split")
    assert [(r["group"], r["documents"]) for r in res["rows"]] == [("(none)", 4)]
    assert res["rows"][0]["value"] == pytest.approx(0.75)  # 3 matched, 1 + 1 one-sided: P = R = 3/4
    r = CliRunner().invoke(app, ["--db", sqlite_url, "-f", "json", "agree", "--by", "guideline"])
    assert r.exit_code == 0, r.output
    assert [row["value"] for row in json.loads(r.output)["rows"]] == [0.5, 1.0]
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "--by", "time", "--window", "2"])
    assert r.exit_code == 0, r.output
    assert "alice" in r.output and "0.500" in r.output and "1.000" in r.output


def test_by_in_html_with_its_picture_and_in_markdown(amended: Corpus, sqlite_url: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Issue 27: ``--by`` in the HTML report too: the rise after the amendment drawn, the table sortable,
    every row the JSON's figure; the learning curve drawn one line per annotator."""
    from html.parser import HTMLParser

    page = tmp_path / "by.html"
    r = CliRunner().invoke(
        app, ["--db", sqlite_url, "agree", "--by", "guideline", "-B", "50", "--html", str(page)]
    )
    assert r.exit_code == 0, r.output
    html = page.read_text(encoding="utf-8")
    assert html.count("<svg") == 1 and "Agreement by guideline version: p" in html
    assert 'class="sortable"' in html and "guideline version" in html and str(tmp_path) not in html

    class Cells(HTMLParser):
        def __init__(self) -> None:
            super().__init__()
            self.cells: list[str] = []
            self._in = False

        def handle_starttag(self, tag: str, attrs: object) -> None:
            self._in = tag == "td"

        def handle_data(self, data: str) -> None:
            if self._in:
                self.cells.append(data)
                self._in = False

    p = Cells()
    p.feed(html)
    assert p.cells[:4] == ["1", "2", "2", "0.500"] and p.cells[6:10] == ["2", "2", "2", "1.000"]
    assert "v1" in html and "v2" in html  # the picture's axis names the versions
    out = tmp_path / "curve.html"
    r = CliRunner().invoke(
        app, ["--db", sqlite_url, "agree", "--by", "time", "--window", "2", "-o", str(out)]
    )
    assert r.exit_code == 0, r.output
    curve = out.read_text(encoding="utf-8")
    assert "learning curve" in curve and curve.count("<svg") == 1 and "alice" in curve and "bob" in curve
    r = CliRunner().invoke(app, ["--db", sqlite_url, "agree", "--by", "split", "-f", "markdown"])
    assert r.exit_code == 0, r.output
    assert (
        "| split | documents | compared | value | pairs | CI |" in r.output
        and "| (none) | 4 | 4 | 0.750 |" in r.output
    )
