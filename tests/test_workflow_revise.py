"""Revisable gold (issue #15): decisions changed or undone until gold is finished, every revision kept
in the history, edits recorded as ``edited`` with before/after, finishing as an explicit checked step."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from sqlalchemy import text

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, StaleVersion
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.store import db, migrate
from corpusdb.workflow.revise import GoldNotFinished
from importers.standoff import read_document
from tests.conftest import shared_path

TEXT = "Bacillus subtilis lives in the gut of mice and in soil."


def sp(i: str, t: str, words: str, nth: int = 0) -> Span:
    a = TEXT.index(words)
    for _ in range(nth):
        a = TEXT.index(words, a + 1)
    return Span(i, t, ((a, a + len(words)),), words)


def loc(i: str, bact: str, where: str) -> Relation:
    return Relation(i, "Localization", (Argument("Bacterium", bact), Argument("Localization", where)))


ALICE = Annotations(
    spans=(sp("T1", "Bacterium", "Bacillus subtilis"), sp("T2", "HostPart", "gut"), sp("T3", "Host", "mice"),
           sp("T4", "Soil", "soil")),
    relations=(loc("R1", "T1", "T2"),),
)  # fmt: skip
BOB = Annotations(
    spans=(sp("T1", "Bacterium", "Bacillus subtilis"), sp("T2", "Host", "gut"), sp("T3", "Host", "mice"),
           sp("T4", "Water", "soil")),
    relations=(loc("R1", "T1", "T2"),),
)  # fmt: skip
GUT = "span:31-34"
SOIL = "span:50-54"
REL = "relation:Localization(Bacterium=span:0-17,Localization=span:31-34)"


@pytest.fixture
def corpus(any_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=any_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("lena", "lead")
    c.add_documents([Document("d1", TEXT)])
    c.create_set("d1", "alice", status="submitted", annotations=ALICE)
    c.create_set("d1", "bob", status="submitted", annotations=BOB)
    return c


def gold_span(c: Corpus, words: str) -> Span:
    return next(s for s in c.gold("d1").annotations.spans if s.text == words)


def test_keys_of_the_fixture(corpus: Corpus) -> None:
    [dc] = corpus.as_user("judy").conflicts("d1")
    assert {x.key: x.differs for x in dc.conflicts} == {GUT: ("type",), SOIL: ("type",)}


def test_a_decision_is_revised_keeping_the_gold_id_and_the_history(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    first = judy.resolve("d1", SOIL, take="alice")
    second = judy.resolve("d1", SOIL, take="bob", reason="it is water-logged soil", revise=True)
    assert second.gold_item_id == first.gold_item_id  # what points at the item keeps pointing at it
    assert gold_span(judy, "soil").type == "Water"
    history = [d for d in judy.decisions("d1") if d.item_id == first.gold_item_id]
    assert [(d.method, d.superseded_by) for d in history] == [
        ("adjudicated", second.decision.id),
        ("adjudicated", None),
    ]
    assert [s["annotator"] for s in history[1].sources] == ["bob"] and history[1].in_force
    # the conflict shows the decision in force
    [dc] = judy.conflicts("d1", include_resolved=True)
    soil = next(x for x in dc.conflicts if x.key == SOIL)
    assert soil.decision is not None and soil.decision.id == second.decision.id
    # refusing it now takes the item out; taking a version again puts a fresh one
    judy.resolve("d1", SOIL, reject=True, revise=True)
    assert not any(s.text == "soil" for s in judy.gold("d1").annotations.spans)
    judy.resolve("d1", SOIL, take="alice", revise=True)
    assert gold_span(judy, "soil").type == "Soil"


def test_an_edit_is_recorded_as_edited_with_before_and_after(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    env = sp("x", "Environment", "soil")
    r = judy.resolve("d1", SOIL, item=env, take="alice", reason="soil is an environment here")
    assert r.decision.method == "edited"
    d = next(d for d in judy.decisions("d1") if d.id == r.decision.id)
    assert d.method == "edited" and [(s["annotator"], s["local_id"]) for s in d.sources] == [("alice", "T4")]
    assert d.before is not None and d.after is not None
    assert (d.before["type"], d.after["type"], d.after["id"]) == ("Soil", "Environment", r.gold_item_id)
    # without naming the source: the closest version (same boundaries) is the one it was edited from
    r2 = judy.resolve("d1", GUT, item=sp("x", "Environment", "gut"))
    d2 = next(d for d in judy.decisions("d1") if d.id == r2.decision.id)
    assert d2.method == "edited" and d2.before is not None and d2.before["type"] in ("HostPart", "Host")
    # an item equal to a source's version is a take, not an edit
    r3 = judy.resolve("d1", GUT, item=sp("x", "Host", "gut"), revise=True)
    d3 = next(d for d in judy.decisions("d1") if d.id == r3.decision.id)
    assert (
        d3.method == "adjudicated" and [s["annotator"] for s in d3.sources] == ["bob"] and d3.before is None
    )


def test_undo_reopens_the_conflict_and_takes_dependents_out(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    [dc] = judy.conflicts("d1", include_resolved=True)
    assert next(x for x in dc.conflicts if x.key == REL).decision is None  # waits for the gut span
    judy.resolve("d1", GUT, take="alice")
    gold = judy.gold("d1").annotations
    gut = gold_span(judy, "gut").id
    [rel] = gold.relations
    assert rel.args[1].ref == gut  # the agreed relation followed its span into gold
    undo = judy.undo_decision("d1", GUT, reason="not sure yet")
    assert undo.decision.method == "undone" and undo.undone == (rel.id,) and undo.gold_item_id is None
    gold = judy.gold("d1").annotations
    assert gold.relations == () and not any(s.text == "gut" for s in gold.spans)
    [dc] = judy.conflicts("d1")
    by_key = {x.key: x for x in dc.conflicts}
    assert by_key[GUT].decision is None and by_key[GUT].blocked is None  # open again
    assert REL not in by_key  # agreed, merged again once its span is decided
    history = judy.decisions("d1")
    undone = [d for d in history if d.method == "undone"]
    assert {d.item_id for d in undone} == {gut, rel.id}
    assert all(
        d.superseded_by is not None for d in history if d.item_id in (gut, rel.id) and d.method != "undone"
    )
    assert next(d for d in undone if d.item_id == rel.id).reason.endswith(f"it rested on {gut}")
    # deciding again brings the relation back (on the new decision)
    judy.resolve("d1", GUT, take="bob")
    [rel2] = judy.gold("d1").annotations.relations
    assert rel2.args[1].ref == gold_span(judy, "gut").id
    judy.resolve("d1", SOIL, reject=True)
    assert judy.undo_decision("d1", SOIL).undone == ()  # a refusal undone: nothing leaves gold
    with pytest.raises(Conflict, match="not decided"):
        judy.undo_decision("d1", SOIL)
    with pytest.raises(NotFound):
        judy.undo_decision("d1", "span:1-2")


def test_gold_items_edited_added_removed_by_hand(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    judy.resolve("d1", GUT, take="alice")
    gut = gold_span(judy, "gut")
    mice = gold_span(judy, "mice")
    e = judy.edit_gold("d1", mice.id, Span("x", "Host", mice.fragments, "mice", attributes={}), reason="same")
    assert e.decision.method == "edited" and e.gold_item_id == mice.id
    e = judy.edit_gold("d1", gut.id, Span("x", "Environment", gut.fragments, "gut"))
    assert gold_span(judy, "gut").type == "Environment" and gold_span(judy, "gut").id == gut.id
    d = next(d for d in judy.decisions("d1") if d.id == e.decision.id)
    assert (d.before["type"], d.after["type"]) == ("HostPart", "Environment")  # type: ignore[index]
    assert [s["annotator"] for s in d.sources] == ["alice"]  # the decision it revises named alice's
    with pytest.raises(InvalidInput, match="schema"):
        judy.edit_gold("d1", gut.id, Span("x", "NoSuchType", gut.fragments, "gut"))
    added = judy.add_gold("d1", sp("whatever", "Host", "mice", 0), reason="a second Host mention")
    assert added.gold_item_id not in (gut.id, mice.id) and added.decision.before is None
    assert next(s for s in judy.gold("d1").annotations.spans if s.id == added.gold_item_id).type == "Host"
    with pytest.raises(InvalidInput, match="not a gold item"):
        judy.add_gold("d1", loc("R9", "T99", gut.id))
    removed = judy.remove_gold("d1", gut.id, reason="a habitat, not part of a host")
    [rel_id] = removed.undone
    gold = judy.gold("d1").annotations
    assert gut.id not in {s.id for s in gold.spans} and gold.relations == ()
    d = next(d for d in judy.decisions("d1") if d.id == removed.decision.id)
    assert d.method == "edited" and d.after is None and d.before["id"] == gut.id  # type: ignore[index]
    [dc] = judy.conflicts("d1", include_resolved=True)
    by_key = {x.key: x for x in dc.conflicts}
    assert by_key[GUT].decision is not None and by_key[GUT].decision.id == removed.decision.id
    assert by_key[REL].blocked and "refused" in by_key[REL].blocked  # its argument is out of gold
    with pytest.raises(NotFound):
        judy.remove_gold("d1", "T999")
    assert rel_id


def test_finish_is_checked_then_freezes_gold_until_a_lead_reopens_it(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    check = judy.check_gold("d1")
    # one count, as `conflicts` gives it: two conflicts to decide, and the agreed relation waits on one
    [dc] = judy.conflicts("d1")
    assert (dc.open, dict(dc.waiting)) == (2, {REL: GUT})
    assert set(check.open) == {GUT, SOIL} and check.waiting == ((REL, GUT),) and not check.ok
    assert dict(check.blocked) == {REL: f"{GUT} has no gold item yet: resolve it (or run the merge) first"}
    with pytest.raises(GoldNotFinished) as exc:
        judy.finish_gold("d1")
    assert set(exc.value.check.open) == {GUT, SOIL}
    assert str(exc.value) == f"cannot finish the gold of d1: 2 open + 1 waiting on a span: decide {GUT} first"
    assert judy.gold("d1").info.status == "in_progress"
    judy.resolve("d1", GUT, take="alice")
    last = judy.resolve("d1", SOIL, take="bob")
    assert last.open == 0 and judy.gold("d1").info.status == "in_progress"  # not finished by itself
    with pytest.raises(Conflict, match="not finished"):
        corpus.as_user("lena").release("v0", agreement=False)
    assert judy.check_gold("d1").ok
    done = judy.finish_gold("d1")
    gold = judy.gold("d1")
    assert done.finished and gold.info.status == "submitted"
    for attempt in (
        lambda: judy.resolve("d1", SOIL, take="alice"),
        lambda: judy.undo_decision("d1", SOIL),
        lambda: judy.edit_gold("d1", gold.annotations.spans[0].id, gold.annotations.spans[0]),
        lambda: judy.add_gold("d1", sp("x", "Host", "mice")),
        lambda: judy.remove_gold("d1", gold.annotations.spans[0].id),
        lambda: judy.finish_gold("d1"),
    ):
        with pytest.raises(Conflict, match="finished"):
            attempt()
    assert corpus.as_user("lena").release("v1", agreement=False).counts
    # corrections still work on finished gold; a lead may unfinish it
    lena = corpus.as_user("lena")
    lena.reopen(gold.info.id, reason="soil type is disputed after all")
    assert judy.gold("d1").info.status == "in_progress"
    judy.undo_decision("d1", SOIL)
    assert set(judy.check_gold("d1").open) == {SOIL}


def test_a_revision_that_lost_a_race_is_stale(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    judy.resolve("d1", SOIL, take="alice")
    seen = judy.gold("d1").info.version
    other = Corpus.open("p", engine=db.make_engine(str(corpus.engine.url.render_as_string(hide_password=False))),
                        user="lena")  # fmt: skip
    other.resolve("d1", SOIL, take="bob", expected_version=seen, revise=True)
    with pytest.raises(StaleVersion):
        judy.resolve("d1", SOIL, reject=True, expected_version=seen, revise=True)
    with pytest.raises(StaleVersion):
        judy.undo_decision("d1", SOIL, expected_version=seen)
    with pytest.raises(StaleVersion):
        judy.finish_gold("d1", expected_version=seen)
    assert gold_span(judy, "soil").type == "Water"  # the winner's revision is intact


def test_upgrade_from_0007_keeps_decisions_in_force(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'old.sqlite'}"
    engine = db.make_engine(url)
    migrate.upgrade(engine, "0007")
    with db.write(engine) as conn:
        conn.execute(
            text(
                "INSERT INTO project (name, schema_name, created) VALUES ('old', 'bb-2011', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO document (project_id, external_id, text, sha256, source, created) VALUES (1, 'd', 'x', 'h', '', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO annotation_set (document_id, kind, status, guideline_version, version, created, "
                "updated) VALUES (1, 'gold', 'in_progress', 1, 1, CURRENT_TIMESTAMP, CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(text("INSERT INTO decision (gold_set_id, item_kind, item_local_id, method, sources, created) "
                          "VALUES (1, 'span', 'T1', 'adjudicated', '[]', CURRENT_TIMESTAMP)"))  # fmt: skip
    migrate.upgrade(engine)
    with db.write(engine) as conn:
        row = conn.execute(text("SELECT method, superseded_by_id, before, after FROM decision")).one()
        assert tuple(row) == ("adjudicated", None, None, None)
        conn.execute(
            text(
                "INSERT INTO decision (gold_set_id, item_kind, item_local_id, method, sources, created, "
                "before, after) VALUES (1, 'span', 'T1', 'edited', '[]', CURRENT_TIMESTAMP, '{}', '{}')"
            )
        )
        conn.execute(text("UPDATE decision SET superseded_by_id = 2 WHERE id = 1"))  # fmt: skip
    with pytest.raises(Exception, match=r"(?i)check"), db.write(engine) as conn:
        conn.execute(text("INSERT INTO decision (gold_set_id, item_kind, item_local_id, method, created) "
                          "VALUES (1, 'span', 'T2', 'guessed', CURRENT_TIMESTAMP)"))  # fmt: skip
    migrate.downgrade(engine, "0007")  # the history collapses to what is in force, edits as adjudicated
    with engine.connect() as conn:
        assert [tuple(r) for r in conn.execute(text("SELECT item_local_id, method FROM decision"))] == [
            ("T1", "adjudicated")
        ]


@pytest.mark.shared
def test_boundary_dispute_on_bacteria_biotope_2011_is_one_conflict(sqlite_url: str) -> None:
    """BB 2011 BTID-10084 as alice (the reference) and bob, who marks the first multi-word Bacterium
    shorter: one conflict with both versions; relations on either alternative are one item; taking
    one decides it; the agreement figure is what one missed and one extra span give."""
    base = shared_path("data", "bionlp-st-2011-bb-train")
    ref = read_document(base / "BTID-10084.txt")
    ann = ref.annotations
    long = next(s for s in ann.spans if s.type == "Bacterium" and " " in s.text)
    a = long.fragments[0][0]
    short = replace(long, fragments=((a, a + long.text.index(" ")),), text=long.text.split(" ")[0])
    bob = replace(ann, spans=tuple(short if s.id == long.id else s for s in ann.spans))
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_documents([ref.document])
    doc = ref.document.external_id
    c.create_set(doc, "alice", status="submitted", annotations=ann)
    c.create_set(doc, "bob", status="submitted", annotations=bob)
    judy = c.as_user("judy")
    [dc] = judy.conflicts(doc)
    [x] = dc.conflicts  # one dispute, not "alice's span absent for bob" plus "bob's absent for alice"
    assert x.key == f"span:{a}-{short.fragments[0][1]}" and x.differs == ("boundaries",)
    assert [(v.item.text, [s.annotator for s in v.sources]) for v in x.variants] == [  # type: ignore[union-attr]
        (long.text, ["alice"]),
        (short.text, ["bob"]),
    ]
    judy.merge()
    res = judy.resolve(doc, x.key, take="bob")
    assert res.open == 0
    gold = judy.gold(doc).annotations
    assert short.text in [s.text for s in gold.spans if s.fragments == short.fragments]
    assert not [s for s in gold.spans if s.fragments == long.fragments]  # not both
    assert len(gold.relations) == len(ann.relations)  # relations on the dispute followed it
    # measurement is untouched: exact span F1 counts the dispute as one miss and one extra
    n = len(ann.spans)
    f1 = c.agreement("spans", criterion="exact").to_dict()["summary"]["value"]
    assert f1 == pytest.approx(2 * (n - 1) / (2 * (n - 1) + 2))


def test_undo_takes_a_link_cluster_resting_on_the_span_out(any_url: str) -> None:
    """BioRelEx-like: the abbreviation cluster both annotators drew follows its spans into gold, and
    leaves gold (its decision undone) when one of its spans' decision is undone."""
    from tests.test_workflow_adjudication import ALICE as BX_ALICE
    from tests.test_workflow_adjudication import BOB as BX_BOB
    from tests.test_workflow_adjudication import TEXT as BX_TEXT

    c = Corpus.create("bx", "biorelex-1.0", url=any_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_documents([Document("s1", BX_TEXT)])
    c.create_set("s1", "alice", status="submitted", annotations=BX_ALICE)
    c.create_set("s1", "bob", status="submitted", annotations=BX_BOB)
    c.merge()
    c.resolve("s1", "span:15-28", take="alice")
    [cluster] = c.gold("s1").annotations.entities
    res = c.undo_decision("s1", "span:15-28")
    assert cluster.id in res.undone and c.gold("s1").annotations.entities == ()
    assert any(d.method == "undone" and d.item_id == cluster.id for d in c.decisions("s1"))
    c.resolve("s1", "span:15-28", take="bob")  # decided again: the agreed cluster follows once more
    [again] = c.gold("s1").annotations.entities
    assert again.extra["link_type"] == "abbreviation" and len(again.members) == 2
    removed = c.remove_gold("s1", again.id, reason="not an abbreviation")
    assert removed.decision.item_kind == "entity" and c.gold("s1").annotations.entities == ()
    link = next(x for x in c.conflicts("s1", include_resolved=True)[0].conflicts if x.kind == "entity")
    assert link.decision is not None and link.decision.id == removed.decision.id  # decided: taken out


def test_undo_of_one_refusal_leaves_another_alone(corpus: Corpus) -> None:
    judy = corpus.as_user("judy")
    judy.merge()
    first = judy.resolve("d1", GUT, reject=True)
    judy.resolve("d1", SOIL, reject=True)
    judy.undo_decision("d1", SOIL)
    [dc] = judy.conflicts("d1", include_resolved=True)
    by_key = {x.key: x for x in dc.conflicts}
    assert by_key[SOIL].decision is None
    assert by_key[GUT].decision is not None and by_key[GUT].decision.id == first.decision.id
    assert [d.superseded_by is None for d in judy.decisions("d1") if d.id == first.decision.id] == [True]
