"""Assignment (explicit, drawn, pre-annotated), submission against the schema, reopening."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import select

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.services.edits import Put
from corpusdb.store import db
from corpusdb.store.models import AuditEventRow
from corpusdb.workflow import SubmissionRefused

TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."


@pytest.fixture
def corpus(any_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=any_url)
    for n in ("ann1", "ann2", "ann3", "ann4"):
        c.add_annotator(n)
    c.add_annotator("lee", "lead")
    c.add_annotator("tagger", "system")
    c.add_documents([Document(f"d{i:02d}", TEXT) for i in range(12)])
    return c


def test_drawn_assignment_is_balanced_and_reproducible(corpus: Corpus, sqlite_url: str) -> None:
    res = corpus.assign(per_document=2, seed=7)
    assert len(res.created) == 24
    per_doc = Counter(s.document_external_id for s in res.created)
    assert set(per_doc.values()) == {2}
    assert set(res.load.values()) == {6}  # 24 sets over 4 annotators, evenly
    assert all(len({s.annotator for s in res.created if s.document_external_id == d}) == 2 for d in per_doc)
    # the same call on an identical project gives the same sets
    other = Corpus.create("q", "bb-2011", url=sqlite_url)
    for n in ("ann1", "ann2", "ann3", "ann4"):
        other.add_annotator(n)
    other.add_documents([Document(f"d{i:02d}", TEXT) for i in range(12)])
    again = other.assign(per_document=2, seed=7)
    pairs = lambda r: sorted((s.document_external_id, s.annotator) for s in r.created)  # noqa: E731
    assert pairs(again) == pairs(res)
    # topping up to 3 per document adds one each; nothing is duplicated
    more = corpus.assign(per_document=3, seed=7)
    assert len(more.created) == 12 and set(more.load.values()) == {9}


def test_explicit_and_only_unassigned(corpus: Corpus) -> None:
    res = corpus.assign(["d00", "d01"], ["ann1", "ann2"])
    assert len(res.created) == 4
    again = corpus.assign(["d00", "d02"], ["ann1"])
    assert [(s.document_external_id, s.annotator) for s in again.created] == [("d02", "ann1")]
    assert ("d00", "ann1", "already assigned") in again.skipped
    fresh = corpus.assign(annotators=["ann3"], only_unassigned=True)
    assert sorted(s.document_external_id for s in fresh.created) == [f"d{i:02d}" for i in range(3, 12)]
    with pytest.raises(NotFound):
        corpus.assign(["nope"], ["ann1"])
    with pytest.raises(InvalidInput):
        corpus.assign(["d00"], ["tagger"])  # a system does not get assignments
    with pytest.raises(UsageError):
        corpus.assign(per_document=5)
    with pytest.raises(PermissionDenied):
        corpus.as_user("ann1").assign(["d03"], ["ann1"])


def test_pre_annotations_seed_each_copy(corpus: Corpus) -> None:
    pred = Annotations(spans=(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),))
    p = corpus.create_set("d00", "tagger", kind="prediction", status="submitted", annotations=pred)
    res = corpus.assign(["d00", "d01"], ["ann1", "ann2"], seed_from="tagger")
    seeded = {(s.document_external_id, s.annotator): s for s in res.created}
    assert seeded[("d00", "ann1")].seeded_from == p.id and seeded[("d01", "ann1")].seeded_from is None
    assert any("no prediction" in why for _, _, why in res.skipped)
    mine = corpus.as_user("ann1").my_set("d00")
    assert mine.annotations.spans == pred.spans and mine.info.status == "assigned"
    with pytest.raises(InvalidInput):
        corpus.assign(["d02"], ["ann1"], seed_from="ann2")


def test_submit_checks_schema_and_locks_the_set(corpus: Corpus) -> None:
    corpus.assign(["d00"], ["ann1"])
    ann1 = corpus.as_user("ann1")
    s = ann1.my_set("d00").info
    r = ann1.edit_set(
        s.id, [Put(Span("T1", "Bacteria", ((0, 17),), "Bacillus subtilis"))], expected_version=s.version
    )
    assert r.info.status == "in_progress"
    assert [v.code for v in ann1.validate_set(s.id)] == ["unknown-entity-type"]
    with pytest.raises(SubmissionRefused) as exc:
        ann1.submit(s.id)
    assert exc.value.exit_code == 4 and [v.code for v in exc.value.violations] == ["unknown-entity-type"]
    good = Annotations(
        spans=(
            Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
            Span("T2", "Soil", ((27, 31),), "soil"),
        ),
        relations=(
            Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2"))),
        ),
    )
    cur = ann1.replace_set(s.id, good, expected_version=r.info.version)
    done = ann1.submit(s.id)
    assert done.status == "submitted" and done.version == cur.version + 1
    with pytest.raises(Conflict):
        ann1.submit(s.id)
    with pytest.raises(PermissionDenied, match="read-only"):
        ann1.edit_set(s.id, [Put(Span("T3", "Host", ((50, 58),), "chickens"))], expected_version=done.version)
    with pytest.raises(PermissionDenied):
        corpus.as_user("ann2").submit(s.id)


def test_force_and_reopen_are_recorded(corpus: Corpus) -> None:
    corpus.assign(["d00"], ["ann1"])
    ann1 = corpus.as_user("ann1")
    s = ann1.my_set("d00").info
    ann1.replace_set(
        s.id, Annotations(spans=(Span("T1", "Nope", ((0, 4),), "Baci"),)), expected_version=s.version
    )
    assert ann1.submit(s.id, force=True).status == "submitted"
    with pytest.raises(PermissionDenied):
        ann1.reopen(s.id, reason="please")
    lead = corpus.as_user("lee")
    with pytest.raises(InvalidInput):
        lead.reopen(s.id, reason=" ")
    back = lead.reopen(s.id, reason="the type Nope is not in the schema")
    assert back.status == "in_progress"
    with pytest.raises(Conflict):
        lead.reopen(s.id, reason="again")
    ann1.edit_set(
        s.id, [Put(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"))], expected_version=back.version
    )
    with db.read(corpus.engine) as conn:
        events = conn.execute(select(AuditEventRow.action, AuditEventRow.actor, AuditEventRow.detail)
                              .order_by(AuditEventRow.id)).all()  # fmt: skip
    submit = next(e for e in events if e[0] == "submit")
    assert submit[1] == "ann1" and submit[2]["forced"] is True and submit[2]["errors"] == 1
    reopen = next(e for e in events if e[0] == "reopen")
    assert reopen[1] == "lee" and reopen[2]["reason"] == "the type Nope is not in the schema"
