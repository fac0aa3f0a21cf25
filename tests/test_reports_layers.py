"""Several layers at once (``Corpus.agreements``) and which layers have items (``Corpus.agreement_items``).

Why: the lead view reports spans, relations and links; it asks first which layers anybody annotated
(a count in the database, through the blindness gate) and reads the sets once for the relation and link
layers. The reports must stay exactly those ``Corpus.agreement`` gives layer by layer.

Data: the TUI sample (alice and bob on d1, a relation each) for the counts and blindness; BioNLP-ST 2016
BB-event dev (real relations and links) against a copy that lost some, for the shared read.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from sqlalchemy import event

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations
from tests.conftest import shared_path
from tests.test_reports_support import project_from_sets
from tui.sample import build_sample


def _same(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "generated"}


def _items(sets: list[Annotations]) -> dict[str, int]:
    """What ``agreement_items`` should count, from the sets' own records."""
    return {
        "spans": sum(len(a.spans) for a in sets),
        "relations": sum(len(a.relations) for a in sets),
        "links": sum(len(a.links) + len(a.entities) for a in sets),
        "labels": sum(len(a.labels) for a in sets),
    }


def test_items_pass_the_blindness_gate(any_url: str) -> None:
    """Before anyone submits, bob's spans and relation on d1 are counted for bob alone: not for alice,
    not for the lead nor the adjudicator (the document is not complete)."""
    owner = build_sample(any_url)
    bob = owner.as_user("bob")
    bobs = _items([bob.my_set("d1").annotations])
    assert bobs["spans"] == 2 and bobs["relations"] == 1
    assert bob.agreement_items() == bobs
    for who in ("alice", "lena", "carol"):
        assert owner.as_user(who).agreement_items() == {"spans": 0, "relations": 0, "links": 0, "labels": 0}
    assert owner.agreement_items()["spans"] == 0  # the owner acts as a lead


def test_items_once_submitted(any_url: str) -> None:
    owner = build_sample(any_url, submitted=True)
    sets = {n: owner.as_user(n).my_set("d1").annotations for n in ("alice", "bob")}
    both = _items(list(sets.values()))
    assert both["relations"] == 2 and both["links"] == 0
    for who in ("lena", "carol"):
        assert owner.as_user(who).agreement_items() == both
    assert owner.as_user("alice").agreement_items() == _items([sets["alice"]])  # her own, never bob's


def test_agreements_are_the_layer_by_layer_reports_on_the_sample(any_url: str) -> None:
    owner = build_sample(any_url, submitted=True)
    lena = owner.as_user("lena")
    got = lena.agreements(["spans", "relations", "links"], criterion="exact", bootstrap=200, seed=3)
    assert list(got) == ["spans", "relations", "links"]
    for layer, report in got.items():
        one = lena.agreement(layer, criterion="exact", bootstrap=200, seed=3)
        assert _same(report.to_dict()) == _same(one.to_dict())
    with pytest.raises(InvalidInput, match="at least two raters"):  # an annotator compares with nobody
        owner.as_user("alice").agreements(["relations", "links"])


@pytest.fixture(scope="module")
def bb() -> tuple[list, dict, dict]:
    """BB 2016 dev as parsed, and a copy without every third relation and every other document's links."""
    path = shared_path("data", "bionlp-st-2016-bb-event", "BioNLP-ST-2016_BB-event_dev")
    from importers.standoff import read_directory

    parsed = read_directory(path)
    gold = {p.document.external_id: p.annotations for p in parsed}
    copy = {
        d: replace(a, relations=a.relations[1::3] + a.relations[2::3], links=a.links if i % 2 else ())
        for i, (d, a) in enumerate(gold.items())
    }
    return [p.document for p in parsed], gold, copy


def _statements(corpus: Corpus, table: str) -> list[str]:
    """Collect the SQL statements that read ``table`` (checked after the calls)."""
    seen: list[str] = []

    @event.listens_for(corpus.engine, "before_cursor_execute")
    def _record(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if f"FROM {table}" in statement:
            seen.append(statement)

    return seen


@pytest.mark.shared
def test_one_read_for_relations_and_links_on_a_real_corpus(any_url: str, bb: tuple) -> None:
    docs, gold, copy = bb
    corpus = project_from_sets(any_url, "bb-2019", docs, {"a_gold": gold, "b_copy": copy})
    items = corpus.agreement_items()
    assert items == _items(list(gold.values()) + list(copy.values()))
    assert items["relations"] > 0 and items["links"] > 0
    seen = _statements(corpus, "link ")
    single = corpus.agreement("relations", bootstrap=100, seed=1)
    reads_one = len(seen)
    assert reads_one >= 1  # the relation layer reads the full records, links among them
    got = corpus.agreements(["spans", "relations", "links"], bootstrap=100, seed=1)
    assert len(seen) - reads_one == reads_one  # relations and links together: the same reads as one layer
    assert _same(got["relations"].to_dict()) == _same(single.to_dict())
    for layer in ("spans", "links"):
        assert _same(got[layer].to_dict()) == _same(corpus.agreement(layer, bootstrap=100, seed=1).to_dict())
    links = got["links"].to_dict()["pairs"][0]["overall"]
    assert links["only_a"] > 0 and links["only_b"] == 0  # the copy lost links, made none
