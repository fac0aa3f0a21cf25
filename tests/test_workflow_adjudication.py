"""Conflicts with stable keys, auto-merge (unanimous and threshold), resolutions, provenance, re-merge."""

from __future__ import annotations

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, Argument, DocLabel, Document, Link, Relation, Span

TEXT = "IL-2 binds the IL-2 receptor alpha chain (IL-2Ra) in T cells but not IL-4."
#       0    5     11  15                   36    42      50  53 56    62   66  70


def sp(i: str, t: str, a: int, b: int) -> Span:
    return Span(i, t, ((a, b),), TEXT[a:b])


def bind(i: str, x: str, y: str, label: int | None = 1) -> Relation:
    return Relation(i, "bind", (Argument("Arg1", x), Argument("Arg2", y)), label=label)


ALICE = Annotations(
    spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 15, 40), sp("T3", "protein", 42, 48),
           sp("T4", "cell", 53, 60), sp("T5", "protein", 69, 73)),
    relations=(bind("R1", "T1", "T2"), bind("R2", "T1", "T5", label=-1)),
    links=(Link("L1", "abbreviation", "T2", "T3"),),
    labels=(DocLabel("topic", "binding"),),
)  # fmt: skip
BOB = Annotations(
    spans=(sp("T1", "protein", 0, 4), sp("T7", "protein", 15, 28), sp("T3", "protein", 42, 48),
           sp("T4", "cell", 56, 60), sp("T9", "protein", 69, 73)),
    relations=(bind("R5", "T9", "T1", label=0),),
    links=(Link("L1", "abbreviation", "T3", "T7"),),
    labels=(DocLabel("topic", "other"),),
)  # fmt: skip


@pytest.fixture
def corpus(any_url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=any_url)
    for n in ("alice", "bob", "carol"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("tagger", "system")
    c.add_documents([Document("s1", TEXT, group_key="PMID:1")])
    c.create_set("s1", "alice", status="submitted", annotations=ALICE)
    c.create_set("s1", "bob", status="submitted", annotations=BOB)
    return c


def keys(c: Corpus, **kw) -> dict[str, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    [dc] = c.conflicts("s1", **kw)
    return {x.key: x.differs for x in dc.conflicts}


def test_conflicts_have_stable_keys_and_counts(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    [dc] = judy.conflicts("s1")
    assert [s.annotator for s in dc.sources] == ["alice", "bob"]
    got = {x.key: x.differs for x in dc.conflicts}
    assert got == {
        # overlapping alternatives of the two sources (15-40 against 15-28, 53-60 against 56-60) are one
        # boundary dispute each, keyed by the first alternative, not two presence disputes
        "span:15-28": ("boundaries",),
        "span:53-60": ("boundaries",),
        "relation:bind(span:0-4,span:15-28)": ("presence",),  # alice's, on her alternative
        "relation:bind(span:0-4,span:69-73)": ("label",),  # undirected: Arg1/Arg2 swapped is the same
        "label:topic": ("value",),
    }
    # the abbreviation cluster is an entity (one cluster model), and it agrees
    assert dict(dc.counts) == {"span": 2, "relation": 2, "link": 0, "label": 1, "entity": 0}
    # T1, T3, IL-4 agree, and so does the abbreviation cluster once its ends are one unit each
    assert dc.open == 5 and dc.agreed == 4
    span = next(x for x in dc.conflicts if x.key == "span:15-28")
    assert [(v.item.fragments, [s.annotator for s in v.sources]) for v in span.variants] == [
        (((15, 40),), ["alice"]),
        (((15, 28),), ["bob"]),
    ]
    lab = next(x for x in dc.conflicts if x.key == "relation:bind(span:0-4,span:69-73)")
    assert [(v.item.label, [s.annotator for s in v.sources]) for v in lab.variants] == [
        (-1, ["alice"]),
        (0, ["bob"]),
    ]
    # the same keys from another process, and from the queue
    again = Corpus.open("p", engine=corpus.engine, user="judy")
    assert keys(again) == got
    [q] = judy.adjudication_queue()
    assert (q.document, q.sets, q.conflicts, q.open, q.has_gold) == ("s1", 2, 5, 5, False)


def test_criterion_groups_boundary_disputes(corpus: Corpus) -> None:
    got = keys(corpus, criterion="partial")
    assert got["span:15-28"] == ("boundaries",)  # one dispute, two versions
    assert got["span:53-60"] == ("boundaries",)
    assert "span:15-40" not in got
    assert not [k for k in got if k.startswith("link:")]  # the clusters now agree
    typed = keys(corpus, criterion="partial", types="required")
    assert typed["span:15-28"] == ("boundaries",)


def test_merge_resolve_and_provenance(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    [m] = judy.merge()
    assert (m.added, m.kept, m.open) == ({"unanimous": 3}, 0, 5)
    gold = judy.gold("s1")
    assert [(s.id, s.text) for s in gold.annotations.spans] == [
        ("T1", "IL-2"),
        ("T2", "IL-2Ra"),
        ("T3", "IL-4"),
    ]
    assert gold.info.annotator is None and gold.info.kind == "gold" and gold.info.status == "in_progress"
    # a relation cannot be taken before its argument spans have gold items
    with pytest.raises(Conflict, match="resolve it first"):
        judy.resolve("s1", "relation:bind(span:0-4,span:15-28)", take="alice")
    # taking one alternative decides the boundary dispute: the other cannot be taken as well
    r = judy.resolve("s1", "span:15-28", take="alice", reason="the full receptor chain")
    assert r.gold_item_id == "T4" and r.decision.method == "adjudicated" and r.open == 4
    judy.resolve("s1", "relation:bind(span:0-4,span:15-28)", take="alice")
    edited = bind("x", "T1", "T3", label=1)  # neither alice's -1 nor bob's 0: an edit of bob's version
    e = judy.resolve(
        "s1", "relation:bind(span:0-4,span:69-73)", item=edited, take="bob", reason="it does bind"
    )
    assert e.decision.method == "edited" and (e.decision.before["label"], e.decision.after["label"]) == (0, 1)  # type: ignore[index]
    judy.resolve("s1", "span:53-60", take="alice")
    last = judy.resolve("s1", "label:topic", item=DocLabel("topic", "binding"), reason="it is about binding")
    assert last.open == 0
    # deciding the last conflict does not finish gold: the adjudicator does, explicitly
    assert judy.gold("s1").info.status == "in_progress"
    revised = judy.resolve("s1", "label:topic", take="bob", revise=True)  # a revision, not a refusal
    assert revised.decision.method == "adjudicated" and judy.gold("s1").annotations.labels == (
        DocLabel("topic", "other"),
    )
    judy.resolve(
        "s1", "label:topic", item=DocLabel("topic", "binding"), reason="it is about binding", revise=True
    )
    with pytest.raises(NotFound):
        judy.resolve("s1", "span:1-2", take="bob")
    check = judy.check_gold("s1")  # the test's label is not in the schema: like submit, it refuses
    assert check.open == () and [v.code for v in check.violations if v.severity == "error"] and not check.ok
    with pytest.raises(Conflict, match="schema error"):
        judy.finish_gold("s1")
    assert judy.gold("s1").info.status == "in_progress"
    assert judy.finish_gold("s1", force=True).finished
    with pytest.raises(Conflict, match="finished"):
        judy.resolve("s1", "label:topic", take="bob")
    gold = judy.gold("s1")
    assert gold.info.status == "submitted"
    rel = {r.id: r for r in gold.annotations.relations}
    assert rel["R1"].args == (Argument("Arg1", "T1"), Argument("Arg2", "T4"))  # rewritten to gold ids
    assert rel["R2"].label == 1
    # the agreed abbreviation cluster followed its ends into gold
    # (an entity, the one cluster model: of its members' type, drawn in brat as the links were)
    assert [(e.type, set(e.members), e.extra["link_type"]) for e in gold.annotations.entities] == [
        ("protein", {"T4", "T2"}, "abbreviation")
    ]
    assert [s.text for s in gold.annotations.spans if s.fragments[0][0] in (15, 53, 56)] == [
        "IL-2 receptor alpha chain",
        "T cells",
    ]
    assert gold.annotations.labels == (DocLabel("topic", "binding"),)
    history = judy.decisions("s1")
    assert [(d.method, d.superseded_by is not None) for d in history if d.item_kind == "label"] == [
        ("adjudicated", True),  # binding (taken as alice's version, unchanged)
        ("adjudicated", True),  # bob's "other"
        ("adjudicated", False),  # binding again
    ]
    decs = [d for d in history if d.in_force]
    assert {d.method for d in decs} == {"unanimous", "adjudicated", "edited"}  # the link was edited
    d4 = next(d for d in decs if d.item_id == "T4")
    assert d4.decided_by == "judy" and d4.reason == "the full receptor chain"
    assert [(s["annotator"], s["local_id"]) for s in d4.sources] == [("alice", "T2")]
    assert [d for d in decs if d.item_id == ""] == []  # no alternative had to be refused
    unan = next(d for d in decs if d.item_id == "T1")
    assert sorted(s["annotator"] for s in unan.sources) == ["alice", "bob"]
    # merging again changes nothing: every decision is kept
    [m2] = judy.merge()
    assert (m2.added, m2.kept, m2.open) == ({}, 9, 0)  # finished gold: nothing touched
    assert judy.gold("s1").annotations == gold.annotations
    [dc] = judy.conflicts("s1")
    assert dc.conflicts == () and dc.open == 0
    [dc_all] = judy.conflicts("s1", include_resolved=True)
    assert len(dc_all.conflicts) == 9 and all(x.resolved for x in dc_all.conflicts)


def test_resolve_input_errors(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    with pytest.raises(UsageError):
        judy.resolve("s1", "span:15-28")
    with pytest.raises(UsageError):
        judy.resolve("s1", "span:15-28", take="alice", reject=True)
    with pytest.raises(NotFound, match="not a source"):
        judy.resolve("s1", "span:15-28", take="carol")
    with pytest.raises(InvalidInput):
        judy.resolve("s1", "span:15-28", item=DocLabel("topic", "x"))
    with pytest.raises(InvalidInput, match="not a gold item"):
        judy.resolve("s1", "relation:bind(span:0-4,span:15-28)", item=bind("R", "T1", "T99"))
    with pytest.raises(PermissionDenied):
        corpus.as_user("alice").resolve("s1", "span:15-28", take="alice")


def test_threshold_majority_and_remerge_after_more_annotators(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    judy.resolve("s1", "span:15-28", take="alice")  # the boundary dispute: alice's 15-40
    # a third annotator joins: the document is hidden again until carol submits
    c = corpus.create_set("s1", "carol")
    with pytest.raises(PermissionDenied, match="carol"):
        judy.conflicts("s1")
    assert judy.adjudication_queue() == []
    carol = Annotations(
        spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 15, 28), sp("T3", "protein", 42, 48),
               sp("T4", "cell", 53, 60)),
        relations=(bind("R1", "T1", "T3"),),
    )  # fmt: skip
    corpus.replace_set(c.id, carol)
    corpus.as_user("carol").submit(c.id)
    [m] = judy.merge(threshold=2)
    gold = judy.gold("s1").annotations
    texts = {s.text for s in gold.spans}
    assert "IL-2 receptor alpha chain" in texts  # judy's earlier decision on the dispute is kept...
    assert "IL-2 receptor" not in texts  # ...and bob and carol's alternative is not taken as well
    assert "T cells" in texts and "cells" not in texts  # alice and carol (2 of 3) on 53-60 against 56-60
    assert m.kept == 5  # T1, T3, IL-4, the abbreviation (unanimous before) and judy's 15-40
    decs = judy.decisions("s1")
    maj = next(d for d in decs if d.method == "majority" and d.item_id and d.item_kind == "span")
    assert sorted(s["annotator"] for s in maj.sources) == ["alice", "carol"]
    # 2 of 3 have no bind(IL-2, IL-2Ra) relation of carol's: refused by majority
    refused = [d for d in decs if d.method == "majority" and not d.item_id]
    assert any(s.get("local_id") == "R1" and s["annotator"] == "carol" for d in refused for s in d.sources)


def test_predictions_are_sources_too(corpus: Corpus) -> None:
    pred = Annotations(spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 15, 40)))
    corpus.create_set("s1", "tagger", kind="prediction", annotations=pred)
    judy = corpus.as_user("judy")
    [dc] = judy.conflicts("s1", sources=["alice", "tagger"])
    assert [(s.annotator, s.kind) for s in dc.sources] == [("alice", "annotation"), ("tagger", "prediction")]
    assert "span:15-40" not in {x.key for x in dc.conflicts}  # the system agrees with alice there
    [m] = judy.merge(sources=["alice", "tagger"])
    assert m.added == {"unanimous": 2}
    d = next(d for d in judy.decisions("s1") if d.item_id == "T2")
    assert sorted(s["kind"] for s in d.sources) == ["annotation", "prediction"]
