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
