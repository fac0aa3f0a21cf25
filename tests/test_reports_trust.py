"""Agreement reports that never pretend (issue #10.11-13): merges are applied or refused, --gold
without gold is refused, documents gold has and a rater has not count as misses (or, when asked,
are left out) and the report says which, kappa CIs stay within [-1, 1], one alpha per pair under
--ordinal, and relation label agreement is called so."""

from __future__ import annotations

import json

import numpy as np
import pytest

from corpusdb.agreement.coefficients import cohen_kappa
from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, NotFound
from corpusdb.basics.records import Annotations, DocLabel, Document, Span
from corpusdb.cli.main import main

TEXT = "Bacillus subtilis lives in soil near Paris."
B = Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis")
H = Span("T2", "Habitat", ((27, 31),), "soil")
G = Span("T3", "Geographical", ((37, 42),), "Paris")


def _bb(url: str, *, gold_docs: int = 4, alice_docs: int = 4) -> Corpus:
    c = Corpus.create("bb", "bb-2011", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_documents([Document(f"d{i}", TEXT) for i in range(4)])
    for i in range(4):
        c.create_set(f"d{i}", "bob", status="submitted", annotations=Annotations(spans=(B, H)))
        if i < alice_docs:
            c.create_set(f"d{i}", "alice", status="submitted", annotations=Annotations(spans=(B, H, G)))
        if i < gold_docs:
            c.create_set(
                f"d{i}", None, kind="gold", status="submitted", annotations=Annotations(spans=(B, H, G))
            )
    return c


def test_gold_without_gold_is_refused(sqlite_url: str) -> None:
    c = _bb(sqlite_url, gold_docs=0)
    with pytest.raises(NotFound, match="--gold: no gold sets"):
        c.agreement(gold=True)
    assert c.agreement().to_dict()["raters"] == [
        {"name": "alice", "kind": "annotation", "documents": 4},
        {"name": "bob", "kind": "annotation", "documents": 4},
    ]


def test_a_merge_of_an_unknown_type_is_refused(sqlite_url: str) -> None:
    c = _bb(sqlite_url)
    with pytest.raises(InvalidInput, match="'Wter'"):
        c.agreement(merges=["Habitat,Wter=Place"])
    merged = c.agreement(merges=["Habitat,Geographical=Place"], raters=["alice", "bob"])
    assert merged.to_dict()["settings"]["type_classes"] == {"Place": ["Habitat", "Geographical"]}


def test_unanswered_documents_count_as_misses_against_gold(sqlite_url: str) -> None:
    """bob has sets on 4 documents, alice on 2; gold on all 4. Before: alice was scored on her 2
    documents only (F1 1.0) under a header saying "all documents"."""
    c = _bb(sqlite_url, alice_docs=2)
    rep = c.agreement(raters=["alice", "gold"])
    body = rep.to_dict()
    pair = body["pairs"][0]
    assert pair["documents"] == 4
    assert (pair["overall"]["matched"], pair["overall"]["only_b"]) == (
        6,
        6,
    )  # gold's 6 items on d2, d3 missed
    assert pair["overall"]["f1"] == pytest.approx(2 * 6 / (2 * 6 + 6))
    assert body["settings"]["unanswered"] == "misses"
    assert "gold's items there are misses" in body["policy"]["documents"]
    assert any("alice has no set on 2 of gold's documents: counted as misses" in n for n in body["notes"])
    answered = c.agreement(raters=["alice", "gold"], unanswered="skipped").to_dict()
    assert answered["pairs"][0]["documents"] == 2 and answered["pairs"][0]["overall"]["f1"] == 1.0
    assert answered["settings"]["unanswered"] == "skipped"
    assert "gold's items there are misses" not in answered["policy"]["documents"]
    # Between two annotators nothing changes: they are compared where both answered.
    assert c.agreement(raters=["alice", "bob"]).to_dict()["pairs"][0]["documents"] == 2


def test_every_output_says_which_documents_count(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    _bb(sqlite_url, alice_docs=2)
    db = ["--db", sqlite_url]
    assert main([*db, "agree", "-a", "alice,gold"]) == 0
    text = capsys.readouterr().out
    assert (
        "4 documents compared (all documents; a document gold has and a rater has no set for counts as misses)"
        in text
    )
    assert main([*db, "agree", "-a", "alice,gold", "--answered-only", "-f", "markdown"]) == 0
    md = capsys.readouterr().out
    assert "2 documents compared (all documents; each pair on the documents both answered)" in md
    assert main([*db, "-f", "json", "agree", "-a", "alice,gold", "--answered-only"]) == 0
    assert json.loads(capsys.readouterr().out)["settings"]["unanswered"] == "skipped"


def _triage(url: str) -> Corpus:
    c = Corpus.create("t", "trec-relevance", url=url)
    values = {
        "ann1": ["DR", "PR", "NR", "DR", "PR", "NR", "DR", "NR"],
        "ann2": ["PR", "DR", "NR", "DR", "NR", "NR", "DR", "PR"],
    }
    c.add_documents([Document(f"d{i}", f"abstract {i}") for i in range(8)])
    for name, vals in values.items():
        c.add_annotator(name)
        for i, v in enumerate(vals):
            c.create_set(
                f"d{i}", name, status="submitted", annotations=Annotations(labels=(DocLabel("relevance", v),))
            )
    return c


def test_label_merges_are_applied_or_refused(sqlite_url: str) -> None:
    c = _triage(sqlite_url)
    plain = c.agreement("labels").to_dict()
    merged = c.agreement("labels", merges=["DR,PR=REL"]).to_dict()
    assert merged["categories"] == ["REL", "NR"]
    assert merged["settings"]["type_classes"] == {"REL": ["DR", "PR"]}
    # DR/PR disagreements (d0, d1) become agreements: more agreement than without the merge.
    pa = merged["pairs"][0]["coefficients"]["percent_agreement"]["value"]
    assert pa == pytest.approx(6 / 8) and pa > plain["pairs"][0]["coefficients"]["percent_agreement"]["value"]
    with pytest.raises(InvalidInput, match="'Wter'"):
        c.agreement("labels", merges=["DR,Wter=REL"])


def test_ordinal_gives_one_alpha_per_pair(sqlite_url: str) -> None:
    body = _triage(sqlite_url).agreement("labels", ordinal=True).to_dict()
    pair_alpha = body["pairs"][0]["coefficients"]["krippendorff_alpha"]["value"]
    assert pair_alpha == pytest.approx(body["summary"]["value"])
    assert body["matrices"]["krippendorff_alpha"]["values"][0][1] == pytest.approx(body["summary"]["value"])


def test_kappa_ci_is_capped_at_one() -> None:
    k = cohen_kappa(np.array([[5, 1], [0, 4]]))
    assert k.details["ci_high_uncapped"] > 1.0  # what statsmodels/SAS print
    assert k.ci_high == 1.0 and k.ci_low is not None and k.ci_low < k.value


def test_gold_named_annotator_of_an_old_database_stays_apart(sqlite_url: str) -> None:
    """A database from before the name was reserved may have an annotator called gold."""
    import sqlite3

    c = _bb(sqlite_url)
    path = sqlite_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE annotator SET name = 'gold' WHERE name = 'alice'")
    raters = {r["name"]: r["kind"] for r in c.agreement(gold=True).to_dict()["raters"]}
    assert raters == {"gold:annotation": "annotation", "bob": "annotation", "gold": "gold"}
