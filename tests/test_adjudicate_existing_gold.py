"""Adjudication merges into an existing gold set: what gold already holds is never added twice."""

from __future__ import annotations

from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, DocLabel, Document, Link, Relation, Span

TEXT = "IL-2 binds the IL-2 receptor alpha chain (IL-2Ra) in T cells."


def sp(i: str, t: str, a: int, b: int) -> Span:
    return Span(i, t, ((a, b),), TEXT[a:b])


GOLD = Annotations(
    spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 15, 40), sp("T3", "protein", 42, 48)),
    relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1),),
    links=(Link("L1", "abbreviation", "T2", "T3"),),
    labels=(DocLabel("topic", "binding"),),
)
# the annotators use other local ids for the same items, and add one item gold lacks
ANN = Annotations(
    spans=(sp("T7", "protein", 0, 4), sp("T8", "protein", 15, 40), sp("T9", "protein", 42, 48),
           sp("T10", "cell", 53, 60)),
    relations=(Relation("R4", "bind", (Argument("Arg1", "T7"), Argument("Arg2", "T8")), label=1),),
    links=(Link("L2", "abbreviation", "T8", "T9"),),
    labels=(DocLabel("topic", "binding"),),
)  # fmt: skip


def _corpus(url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_documents([Document("s1", TEXT)])
    c.create_set("s1", None, kind="gold", status="submitted", annotations=GOLD)
    c.create_set("s1", "alice", status="submitted", annotations=ANN)
    c.create_set("s1", "bob", status="submitted", annotations=ANN)
    return c


def test_merge_into_imported_gold_adds_only_what_is_new(any_url: str) -> None:
    c = _corpus(any_url)
    [res] = c.merge()
    gold = c.gold("s1").annotations
    # the gold items keep their ids; only the cell span is new
    assert sorted((s.id, s.fragments) for s in gold.spans) == [
        ("T1", ((0, 4),)), ("T2", ((15, 40),)), ("T3", ((42, 48),)), ("T4", ((53, 60),)),
    ]  # fmt: skip
    assert [(r.id, [a.ref for a in r.args]) for r in gold.relations] == [("R1", ["T1", "T2"])]
    assert [(lk.id, lk.source, lk.target) for lk in gold.links] == [("L1", "T2", "T3")]
    assert gold.labels == GOLD.labels
    assert res.added == {"unanimous": 1} and res.existing == 6 and res.open == 0
    # every agreed unit has a decision, onto the existing gold item, with both sources
    decided = {(d.item_kind, d.item_id): sorted(s["annotator"] for s in d.sources) for d in c.decisions("s1")}
    assert decided == {
        ("span", "T1"): ["alice", "bob"], ("span", "T2"): ["alice", "bob"], ("span", "T3"): ["alice", "bob"],
        ("span", "T4"): ["alice", "bob"], ("relation", "R1"): ["alice", "bob"],
        ("entity", "L1"): ["alice", "bob"], ("label", "topic"): ["alice", "bob"],
    }  # fmt: skip
    assert c.review() == []
    # a second run changes nothing
    version = c.gold("s1").info.version
    n_decisions = len(c.decisions("s1"))
    [again] = c.merge()
    assert again.added == {} and again.existing == 0 and again.kept == 7
    assert c.gold("s1").annotations == gold and c.gold("s1").info.version == version
    assert len(c.decisions("s1")) == n_decisions


def test_bb_2011_gold_and_two_equal_annotators(tmp_path: Path, shared_data: Path) -> None:
    """The issue's case: gold imported with --kind gold, two annotators equal to it, adjudicate."""
    from corpusdb.cli.main import main

    bb = shared_data / "bionlp-st-2011-bb-train"
    db = str(tmp_path / "bb.sqlite")
    base = ["--db", db]
    assert main([*base, "init", "bb", "--schema", "bb-2011"]) == 0
    assert main([*base, "annotator", "add", "a", "b"]) == 0
    assert main([*base, "import", "brat", str(bb), "--kind", "gold"]) == 0
    assert main([*base, "import", "brat", str(bb), "-a", "a"]) == 0
    assert main([*base, "import", "brat", str(bb), "-a", "b"]) == 0
    for _ in range(2):  # a second run changes nothing
        assert main([*base, "adjudicate"]) == 0
        out = tmp_path / f"out{_}"
        assert main([*base, "export", "brat", str(out), "--gold"]) == 0
        for a2 in sorted(bb.glob("*.a2")):
            assert (out / a2.name).read_bytes() == a2.read_bytes(), a2.name
    assert (bb / "BTID-10080.a2").read_text().count("\n") == 40
    c = Corpus.open(url=f"sqlite:///{db}")
    assert c.review() == []
    assert all(r.added == {} and r.open == 0 for r in c.merge())


def test_identical_gold_items_are_each_claimed_once(sqlite_url: str) -> None:
    """GENIA has identical spans under two ids; a relation may point at either. Each gold item is the
    merge target of one unit, so nothing is added and relations keep pointing where they did."""
    twin = Annotations(
        spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 0, 4), sp("T3", "protein", 15, 40)),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T2"), Argument("Arg2", "T3")), label=1),),
    )
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    for who in ("alice", "bob"):
        c.add_annotator(who)
    c.add_documents([Document("s1", TEXT)])
    c.create_set("s1", None, kind="gold", status="submitted", annotations=twin)
    for who in ("alice", "bob"):
        c.create_set("s1", who, status="submitted", annotations=twin)
    [res] = c.merge()
    assert res.added == {} and res.open == 0
    assert c.gold("s1").annotations == twin
    assert sorted(d.item_id for d in c.decisions("s1")) == ["R1", "T1", "T2", "T3"]
