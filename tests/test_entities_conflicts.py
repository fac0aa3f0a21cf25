"""Conflicts and gold on entities: one conflict per disputed cluster or relation, never per edge,
and none from the order in which names, mentions, clusters or interactions were listed."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from importers.biorelex import read_biorelex
from tests.test_agreement_entities import RAW, figures, shuffled


def _project(url: str, tmp_path: Path, a: list[dict[str, Any]], b: list[dict[str, Any]]) -> Corpus:
    corpus = Corpus.create("bx", "biorelex-1.0", url=url)
    for name, data in (("alice", a), ("bob", b)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data, indent=1))
        corpus.import_biorelex(path, name)
    return corpus


def _open(corpus: Corpus) -> dict[str, list[Any]]:
    return {dc.document: list(dc.conflicts) for dc in corpus.conflicts()}


def test_reordered_copies_have_no_conflict_and_merge_into_the_same_gold(any_url: str, tmp_path: Path) -> None:
    rev = copy.deepcopy(RAW)
    for s in rev:  # the case: names reversed inside every cluster
        for c in s["entities"]:
            c["names"] = dict(reversed(list(c["names"].items())))
    corpus = _project(any_url, tmp_path, RAW, shuffled(rev, random.Random(5)))
    assert _open(corpus) == {"entities.0": [], "entities.1": []}
    merged = corpus.merge()
    assert all(r.open == 0 for r in merged)
    gold = corpus.gold("entities.0").annotations
    assert len(gold.entities) == 4 and len(gold.relations) == 4  # duplicates with other labels kept
    assert all(a.ref in {e.id for e in gold.entities} for r in gold.relations for a in r.args)
    # gold, written as BioRelEx and read back, scores 1.0 against the original on every layer
    out = tmp_path / "gold.json"
    corpus.export_biorelex(out, gold=True)
    back = {d.document.external_id: d.annotations for d in read_biorelex(out)}
    orig = {d.document.external_id: d.annotations for d in read_biorelex(tmp_path / "alice.json")}
    f = figures(orig, back)
    assert f["relations_strict"] == (8, 0, 0) and f["pairwise"] == (8, 0, 0)
    assert f["groundings"]["span_exact"] == (12, 0, 0)


def test_a_disputed_membership_is_one_conflict(
    any_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    b = copy.deepcopy(RAW)
    b[0]["entities"][1]["names"].pop("activin")  # bob: the nested "activin" is an entity of its own
    b[0]["entities"].append({"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False,
                             "grounding": None, "names": {"activin": {"is_mentioned": True, "mentions": [[28, 35]]}}})  # fmt: skip
    corpus = _project(any_url, tmp_path, RAW, shuffled(b, random.Random(1)))
    found = _open(corpus)
    assert found["entities.1"] == []
    [c] = found["entities.0"]
    assert (c.kind, c.key) == ("entity", "entity:span:0-7")
    assert "members" in c.differs and "duplicate" in c.differs  # bob holds two clusters there
    shown = [v.display for v in c.variants]
    assert any("activin@28-35" in t and "Activin@0-7" in t for t in shown)  # alice's one cluster
    # the relations on the Activin entity are not disputed: they name the same entity unit
    assert main(["--db", any_url, "conflicts", "entities.0"]) == 0
    out = capsys.readouterr().out
    assert "entity:span:0-7" in out and "relation:" not in out


def test_a_duplicate_interaction_only_one_annotator_made_is_one_conflict(
    any_url: str, tmp_path: Path
) -> None:
    b = copy.deepcopy(RAW)
    b[1]["interactions"].pop(2)  # bob lacks the negated repeat [3, 2] -1 of [2, 3] 1
    b[0]["interactions"][3]["label"] = 0  # and calls the self-interaction speculative
    corpus = _project(any_url, tmp_path, RAW, shuffled(b, random.Random(2)))
    found = _open(corpus)
    [rep] = found["entities.1"]
    assert rep.kind == "relation" and rep.differs == ("presence",)
    assert rep.key.startswith("relation:bind(entity:span:") and rep.key.endswith("#2")
    [self_pair] = found["entities.0"]
    assert self_pair.differs == ("label",)
    ent = "entity:span:57-61"  # ALK4's cluster, named by its first mention
    assert self_pair.key == f"relation:bind({ent},{ent})"


def test_resolving_a_cluster_lets_its_relations_into_gold(sqlite_url: str, tmp_path: Path) -> None:
    b = copy.deepcopy(RAW)
    b[0]["entities"][1]["names"].pop("activin")
    b[0]["entities"].append({"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False,
                             "grounding": None, "names": {"activin": {"is_mentioned": True, "mentions": [[28, 35]]}}})  # fmt: skip
    corpus = _project(sqlite_url, tmp_path, RAW, b)
    [res] = corpus.merge("entities.0")
    assert res.open == 1
    gold = corpus.gold("entities.0").annotations
    assert len(gold.entities) == 3 and len(gold.relations) == 2  # the two on the Activin cluster wait
    done = corpus.resolve("entities.0", "entity:span:0-7", take="alice", reason="one cluster")
    assert done.open == 0
    gold = corpus.gold("entities.0").annotations
    activin = next(e for e in gold.entities if len(e.members) == 2 and e.groundings)
    assert sorted(gold.span(m).text for m in activin.members) == ["Activin", "activin"]
    assert len(gold.relations) == 4 and sum(a.ref == activin.id for r in gold.relations for a in r.args) == 2


def test_an_equiv_cluster_is_one_unit_whatever_its_hub(sqlite_url: str) -> None:
    """brat Equiv sets: the same cluster drawn from another first member agrees; a member more is
    one conflict about the cluster; gold keeps it as one entity and writes one * line back."""
    from corpusdb.basics.records import Annotations, Document, Link, Span
    from importers.standoff import format_annotations

    text = "Bacillus subtilis (B. subtilis, BS) grows."
    spans = (Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
             Span("T2", "Bacterium", ((19, 30),), "B. subtilis"), Span("T3", "Bacterium", ((32, 34),), "BS"))  # fmt: skip
    star = (Link("*1.1", "Equiv", "T1", "T2", group="*1"), Link("*1.2", "Equiv", "T1", "T3", group="*1"))
    other_hub = (Link("*1.1", "Equiv", "T3", "T2", group="*1"), Link("*1.2", "Equiv", "T3", "T1", group="*1"))
    corpus = Corpus.create("bb", "bb-2011", url=sqlite_url)
    corpus.add_documents([Document("d", text), Document("e", text)])
    corpus.add_annotator("alice")
    corpus.add_annotator("bob")
    for doc, bob_links in (("d", other_hub), ("e", other_hub[:1])):
        corpus.create_set(doc, "alice", annotations=Annotations(spans, links=star), status="submitted")
        corpus.create_set(doc, "bob", annotations=Annotations(spans, links=bob_links), status="submitted")
    found = _open(corpus)
    assert found["d"] == []
    [c] = found["e"]  # bob's cluster lacks Bacillus subtilis: one conflict, not two edges
    assert (c.kind, c.key, c.differs) == ("entity", "entity:span:0-17", ("members",))  # one cluster model
    corpus.merge()
    gold = corpus.gold("d").annotations
    assert gold.links == () and [sorted(gold.span(m).text for m in e.members) for e in gold.entities] == [
        ["B. subtilis", "BS", "Bacillus subtilis"]
    ]
    lines = format_annotations(gold)["ann"].splitlines()
    assert [ln.split("\t")[1].split()[0] for ln in lines if ln.startswith("*")] == ["Equiv"]
