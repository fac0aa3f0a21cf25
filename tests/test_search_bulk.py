"""Acting on every hit (SQLite and PostgreSQL): an annotator's bulk annotation in her own sets, one
undo step; a lead's bulk gold correction, one correction per hit, listed in the next release's
change log. On the bundled sample's real texts (seven CoNLL-2002 Spanish news documents)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Span
from corpusdb.demo import sample_dir
from corpusdb.search.bulk import BulkAnnotation
from corpusdb.services.edits import Put
from importers.standoff import read_directory


@pytest.fixture
def project(any_url: str) -> Corpus:
    """The sample's texts, assigned to alice and bob (nothing annotated yet), judy adjudicates."""
    c = Corpus.create("news", "conll-ner", url=any_url)
    c.add_documents(p.document for p in read_directory(sample_dir() / "Lisa"))
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.assign(None, ["alice", "bob"])
    return c


def madrid(c: Corpus) -> list[tuple[str, int, int]]:
    return [(h.document, h.start, h.stop) for h in c.search("Madrid", limit=None).hits]


def test_an_annotator_annotates_every_hit_in_her_own_sets_as_one_undo_step(project: Corpus) -> None:
    alice, bob = project.as_user("alice"), project.as_user("bob")
    places = madrid(alice)
    docs = sorted({d for d, _, _ in places})
    assert len(docs) >= 3  # the sample names Madrid in several documents
    # one document already has one of them as LOC; another is submitted (read-only): left alone
    first, done = docs[0], docs[1]
    info = alice.my_set(first).info
    a, b = next((s, e) for d, s, e in places if d == first)
    alice.edit_set(info.id, [Put(Span("T1", "LOC", ((a, b),), "Madrid"))], expected_version=info.version,
                   history="do", description="by hand")  # fmt: skip
    alice.submit(alice.my_set(done).info.id, force=True)
    got = alice.search_annotate("Madrid", "LOC")
    assert isinstance(got, BulkAnnotation) and got.already == 1
    assert [d for d, _ in got.skipped] == [done]
    n_done = sum(1 for d, _, _ in places if d == done)
    assert got.total == len(places) - 1 - n_done
    found = [(h.document, h.start, h.stop) for h in alice.search("type:LOC annotator:alice", limit=None).hits]
    assert found == [p for p in places if p[0] != done]
    assert all(h.text == "Madrid" for h in alice.search("type:LOC", limit=None).hits)
    assert bob.search("type:*").hits == ()  # bob's sets untouched
    # one undo entry per set, tagged with the bulk id: the TUI's u undoes that document's part
    for _d, sid, n in got.added:
        top = alice.edit_history(sid).undo[-1]
        assert f"[bulk {got.bulk_id}]" in top.description and len(top.changes) == n
    # undone as one step: every set it touched, nothing else (alice's own edit stays)
    undone = alice.search_undo(got.bulk_id)
    assert undone.undone and sorted(undone.added) == sorted(got.added)
    assert [(h.document, h.start) for h in alice.search("type:LOC", limit=None).hits] == [(first, a)]
    with pytest.raises(NotFound, match=f"no bulk annotation {got.bulk_id}"):
        alice.search_undo(got.bulk_id)
    # redo is the TUI's, per set: the undo moved each entry to the redo stack
    assert all(alice.edit_history(sid).redo for _, sid, _ in got.added)


def test_a_later_edit_blocks_the_bulk_undo_and_nothing_is_undone(project: Corpus) -> None:
    alice = project.as_user("alice")
    got = alice.search_annotate("Madrid", "LOC")
    d, sid, _ = got.added[-1]
    info = alice.read_set(sid).info
    alice.edit_set(sid, [Put(Span("T99", "PER", ((0, 1),), alice.document(d).text[:1]))],
                   expected_version=info.version, history="do", description="later")  # fmt: skip
    before = len(alice.search("type:LOC", limit=None).hits)
    with pytest.raises(Conflict, match="a later edit is on top"):
        alice.search_undo(got.bulk_id)
    assert len(alice.search("type:LOC", limit=None).hits) == before


def test_bulk_annotation_refusals(project: Corpus) -> None:
    alice = project.as_user("alice")
    with pytest.raises(InvalidInput, match="no entity type"):
        alice.search_annotate("Madrid", "Place")
    with pytest.raises(UsageError, match="act as an annotator"):
        project.search_annotate("Madrid", "LOC")
    with pytest.raises(NotFound, match="no hit"):
        alice.search_annotate("Zaragozaxx", "LOC")
    with pytest.raises(PermissionDenied):
        alice.search_annotate("annotator:bob", "LOC")
    assert alice.search("type:*").hits == ()


def _gold_for_all(project: Corpus) -> None:
    """alice and bob both mark every Madrid as LOC and submit; judy merges gold and finishes it."""
    for who in ("alice", "bob"):
        me = project.as_user(who)
        me.search_annotate("Madrid", "LOC")
        for h in me.sets():
            me.submit(h.id, force=True)
    judy = project.as_user("judy")
    judy.merge()
    for q in judy.adjudication_queue():
        judy.finish_gold(q.document, force=True)


def test_a_lead_corrects_every_gold_hit_and_the_next_release_lists_each(
    project: Corpus, tmp_path: Path
) -> None:
    _gold_for_all(project)
    gold_before = project.search("annotator:gold type:LOC Madrid", limit=None).hits
    assert gold_before and all(h.set_kind == "gold" for h in gold_before)
    project.release("v1", outdir=tmp_path / "v1")
    judy = project.as_user("judy")
    fixed = judy.search_correct(
        "type:LOC Madrid", reason="guideline 2.1: the city as an organisation", set_type="ORG"
    )
    assert len(fixed) == len(gold_before)
    assert {(c.document, c.item_id) for c in fixed} == {(h.document, h.item) for h in gold_before}
    assert all(c.action == "change" and c.before["type"] == "LOC" and c.after["type"] == "ORG" for c in fixed)  # type: ignore[index]
    assert all(c.author == "judy" and c.after_release == "v1" for c in fixed)
    assert project.search("annotator:gold type:LOC").hits == ()
    assert len(project.search("annotator:gold type:ORG", limit=None).hits) == len(gold_before)
    # the annotators' own sets keep their LOC: a gold correction corrects gold only
    assert len(project.search("annotator:alice type:LOC", limit=None).hits) == len(gold_before)
    rel = project.release("v2", outdir=tmp_path / "v2")
    log = json.loads((tmp_path / "v2" / "changelog.json").read_text(encoding="utf-8"))
    listed = [
        c for c in log["corrections"] if c.get("reason") == "guideline 2.1: the city as an organisation"
    ]
    assert len(listed) == len(fixed)
    assert "guideline 2.1: the city as an organisation" in (tmp_path / "v2" / "CHANGELOG.md").read_text(
        encoding="utf-8"
    )
    assert rel.version == "v2"
    # deleting, and adding at places in the text, are corrections too
    gone = judy.search_correct(
        "type:ORG doc:" + gold_before[0].document, reason="not an entity here", delete=True
    )
    assert {c.action for c in gone} == {"delete"}
    added = judy.search_correct('"Atlético de Madrid"', reason="a club is an ORG", add_type="ORG")
    assert added and {c.action for c in added} == {"add"} and all(c.after["type"] == "ORG" for c in added)  # type: ignore[index]
    assert len(judy.corrections()) == len(fixed) + len(gone) + len(added)


def test_bulk_correction_refusals(project: Corpus) -> None:
    _gold_for_all(project)
    alice, judy = project.as_user("alice"), project.as_user("judy")
    with pytest.raises(PermissionDenied, match="correct gold"):
        alice.search_correct("type:LOC", reason="x", set_type="ORG")
    with pytest.raises(InvalidInput, match="needs a reason"):
        judy.search_correct("type:LOC", reason=" ", set_type="ORG")
    with pytest.raises(UsageError, match="say one correction"):
        judy.search_correct("type:LOC", reason="x", set_type="ORG", delete=True)
    with pytest.raises(UsageError, match="takes gold spans"):
        judy.search_correct("Madrid", reason="x", set_type="ORG")
    with pytest.raises(UsageError, match="places in the text"):
        judy.search_correct("type:LOC", reason="x", add_type="ORG")
    with pytest.raises(InvalidInput, match="no entity type"):
        judy.search_correct("type:LOC", reason="x", set_type="City")
    with pytest.raises(UsageError, match="name the author"):
        project.search_correct("type:LOC", reason="x", set_type="ORG")
    assert judy.corrections() == []
