"""The store through the Python API, on a real SQLite file and a real PostgreSQL server."""

from __future__ import annotations

import sqlite3
import threading

import pytest
from sqlalchemy import Connection, func, select, text
from sqlalchemy.exc import IntegrityError

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, StaleVersion
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Document,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
)
from corpusdb.services.edits import Put, Remove, dependents
from corpusdb.store import db
from corpusdb.store.models import DocumentRow, SpanRow

TEXT = "IL-2 binds the IL-2 receptor alpha chain (IL-2Ra) in T cells 𝛼 but not IL-4."


def rich_annotations() -> Annotations:
    """One of everything the store holds: discontinuous spans, attributes, groundings, relations
    with labels and tags, an event with an event argument and a trigger, links, notes, labels."""
    return Annotations(
        spans=(
            Span(
                "T1",
                "protein",
                ((0, 4),),
                "IL-2",
                attributes={"mutant": True},
                groundings=(Grounding("uniprot:P60568", "IL2", "N1"),),
            ),
            Span("T2", "protein", ((15, 19), (29, 40)), "IL-2 alpha chain", attributes={"state": True}),
            Span("T3", "protein", ((42, 48),), "IL-2Ra", extra={"file": "a1"}),
            Span("T4", "cell", ((53, 60),), "T cells"),
            Span("T5", "protein", ((61, 62),), "𝛼"),
            Span("T6", "protein", ((71, 75),), "IL-4"),
            Span("T7", "protein", (), "interleukin 2"),  # a name without a mention (BioRelEx)
            Span("T8", "trigger", ((5, 10),), "binds"),
        ),
        relations=(
            Relation(
                "R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1, tags=("title",)
            ),
            Relation(
                "R2",
                "bind",
                (Argument("Arg1", "T1"), Argument("Arg2", "T6")),
                label=-1,
                tags=("hypothesis", "implicit"),
            ),
            Relation(
                "E1",
                "Binding",
                (Argument("Theme", "T1"), Argument("Theme2", "T2")),
                trigger="T8",
                kind="event",
            ),
            Relation(
                "E2",
                "Positive_regulation",
                (Argument("Theme", "E1"),),
                kind="event",
                attributes={"Negation": True},
            ),
        ),
        links=(
            Link("L1", "abbreviation", "T2", "T3"),
            Link("*1", "synonym", "T1", "T7", group="*1"),
            Link("*2", "synonym", "T1", "T5", group="*1"),
        ),
        notes=(Note("#1", "AnnotatorNotes", "T4", " keep leading space"),),
        labels=(DocLabel("relevance", "DR"),),
        extra={"standoff": {"final_newline": False}},
    )


@pytest.fixture
def corpus(any_url: str) -> Corpus:
    c = Corpus.create("p1", "biorelex-1.0", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("tagger", "system")
    c.add_documents(
        [
            Document(
                "1.0.train.166", TEXT, source="test", metadata={"url": None, "_line_": 3}, group_key="PMID:1"
            ),
            Document("doc-2", "Second document.", group_key="PMID:1", split="train"),
        ]
    )
    return c


def test_every_item_round_trips(corpus: Corpus) -> None:
    ann = rich_annotations()
    info = corpus.create_set("1.0.train.166", "alice", annotations=ann, status="submitted")
    back = corpus.as_user("alice").read_set(info.id)
    assert back.annotations == ann
    assert (
        back.info.annotator == "alice" and back.info.kind == "annotation" and back.info.status == "submitted"
    )
    assert back.info.created.tzinfo is not None


def test_span_rows_are_lean_and_ids_follow_positions(corpus: Corpus) -> None:
    """A contiguous span is stored without fragment JSON (NULL means ``[start, stop]``), others keep
    theirs; a second set written into tables that already hold rows gets its ids after theirs, with
    every reference (trigger, arguments, links) inside its own set."""
    ann = rich_annotations()
    corpus.create_set("1.0.train.166", "alice", annotations=ann)
    info = corpus.create_set("1.0.train.166", "bob", annotations=ann)
    with db.read(corpus.engine) as conn:
        stored = dict(
            conn.execute(text("SELECT local_id, fragments FROM span WHERE set_id = :s"), {"s": info.id}).all()
        )
        crossing = conn.execute(
            text(
                "SELECT count(*) FROM relation r JOIN relation_arg a ON a.relation_id = r.id "
                "LEFT JOIN span s ON s.id = a.span_id LEFT JOIN relation e ON e.id = a.arg_relation_id "
                "LEFT JOIN span t ON t.id = r.trigger_id "
                "WHERE coalesce(s.set_id, e.set_id) <> r.set_id OR t.set_id <> r.set_id"
            )
        ).scalar_one()
        link_crossing = conn.execute(
            text(
                "SELECT count(*) FROM link l JOIN span a ON a.id = l.source_id JOIN span b ON b.id = l.target_id "
                "WHERE a.set_id <> l.set_id OR b.set_id <> l.set_id"
            )
        ).scalar_one()
    assert stored["T1"] is None and stored["T4"] is None
    assert stored["T2"] in (
        "[[15,19],[29,40]]",
        [[15, 19], [29, 40]],
    )  # text on SQLite, decoded on PostgreSQL
    assert stored["T7"] in ("[]", [])
    assert crossing == 0 and link_crossing == 0
    assert corpus.as_user("bob").read_set(info.id).annotations == ann


def test_project_guidelines_annotators_documents_round_trip(corpus: Corpus) -> None:
    info = corpus.info()
    assert (info.name, info.schema_name, info.guideline_version) == ("p1", "biorelex-1.0", 1)
    assert corpus.schema().relation("bind").labels == "assertion"
    assert "BioRelEx" in corpus.guideline().text
    g2 = corpus.amend_guidelines(note="bind may be speculative in titles", text="New text")
    assert (g2.version, g2.note, g2.text) == (2, "bind may be speculative in titles", "New text")
    assert [g.version for g in corpus.guidelines()] == [1, 2]
    assert corpus.guideline(1).text != "New text"
    assert {(a.name, a.role) for a in corpus.annotators()} == {
        ("alice", "annotator"),
        ("bob", "annotator"),
        ("judy", "adjudicator"),
        ("tagger", "system"),
    }
    d = corpus.document("1.0.train.166")
    assert d.text == TEXT and d.group_key == "PMID:1" and d.metadata == {"url": None, "_line_": 3}
    assert len(d.sha256) == 64
    assert [x.external_id for x in corpus.documents(split="train")] == ["doc-2"]


def test_documents_are_idempotent_and_clash_on_new_text(corpus: Corpus) -> None:
    res = corpus.add_documents([Document("doc-2", "Second document."), Document("doc-3", "Third.")])
    assert (res.added, res.unchanged) == (1, 1)
    with pytest.raises(Conflict, match="doc-2"):
        corpus.add_documents([Document("doc-4", "Fourth."), Document("doc-2", "Changed text.")])
    with pytest.raises(NotFound):
        corpus.document("doc-4")  # nothing of the failed call was written


def test_sets_one_per_annotator_and_one_gold(corpus: Corpus) -> None:
    corpus.create_set("doc-2", "alice")
    with pytest.raises(Conflict):
        corpus.create_set("doc-2", "alice")
    corpus.create_set("doc-2", None, kind="gold")
    with pytest.raises(Conflict):
        corpus.create_set("doc-2", None, kind="gold")
    with pytest.raises(InvalidInput):
        corpus.create_set("doc-2", "bob", kind="nonsense")


def test_dangling_reference_is_refused_and_nothing_written(corpus: Corpus) -> None:
    bad = Annotations(
        spans=(Span("T1", "protein", ((0, 4),), "IL-2"),),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T9"))),),
    )
    with pytest.raises(InvalidInput, match="T9"):
        corpus.create_set("doc-2", "alice", annotations=bad)
    assert corpus.set_headers(document="doc-2") == []


def test_failed_write_rolls_back_midway(corpus: Corpus) -> None:
    """A transaction that fails after writing rows leaves none of them."""
    engine = corpus.engine
    with db.read(engine) as conn:
        before = conn.execute(select(func.count()).select_from(DocumentRow)).scalar_one()
    with pytest.raises(RuntimeError), db.write(engine) as conn:
        conn.execute(
            DocumentRow.__table__.insert().values(
                project_id=corpus.project_id, external_id="ghost", text="x", sha256="0" * 64, source=""
            )
        )
        assert conn.execute(select(func.count()).select_from(DocumentRow)).scalar_one() == before + 1
        raise RuntimeError("crash mid-way")
    with db.read(engine) as conn:
        assert conn.execute(select(func.count()).select_from(DocumentRow)).scalar_one() == before


def test_foreign_keys_are_enforced(corpus: Corpus) -> None:
    with pytest.raises(IntegrityError), db.write(corpus.engine) as conn:
        conn.execute(
            SpanRow.__table__.insert().values(
                set_id=999_999, local_id="T1", type="x", fragments=[[0, 1]], start=0, stop=1, text="x"
            )
        )


def test_optimistic_locking(corpus: Corpus) -> None:
    info = corpus.create_set("doc-2", "alice")
    alice = corpus.as_user("alice")
    span = Span("T1", "protein", ((0, 6),), "Second")
    r1 = alice.edit_set(info.id, [Put(span)], expected_version=info.version)
    assert r1.info.version == info.version + 1 and r1.info.status == "in_progress"
    # A second writer that read the old version loses, and the first writer's work stays.
    with pytest.raises(StaleVersion) as exc:
        alice.edit_set(info.id, [Remove("span", "T1")], expected_version=info.version)
    assert exc.value.actual == r1.info.version
    assert alice.read_set(info.id).annotations.spans == (span,)
    # Undo through the inverse, then redo through the inverse of the undo.
    r2 = alice.edit_set(info.id, r1.inverse, expected_version=r1.info.version)
    assert r2.annotations.spans == ()
    r3 = alice.edit_set(info.id, r2.inverse, expected_version=r2.info.version)
    assert r3.annotations.spans == (span,)


def test_edits_cascade_helper_and_refusal(corpus: Corpus) -> None:
    ann = rich_annotations()
    info = corpus.create_set("1.0.train.166", "alice", annotations=ann)
    alice = corpus.as_user("alice")
    with pytest.raises(InvalidInput, match="T1"):
        alice.edit_set(info.id, [Remove("span", "T1")], expected_version=info.version)
    deps = dependents(ann, "T1")
    assert {d.key for d in deps} >= {"R1", "R2", "E1", "E2", "*1", "*2"}
    res = alice.edit_set(info.id, [*deps, Remove("span", "T1")], expected_version=info.version)
    assert "T1" not in {s.id for s in res.annotations.spans}
    back = alice.edit_set(info.id, res.inverse, expected_version=res.info.version)
    assert back.annotations == Annotations(
        ann.spans, ann.relations, ann.links, ann.notes, ann.labels, back.annotations.extra
    )


def test_blindness_basics(corpus: Corpus) -> None:
    a = corpus.create_set(
        "doc-2", "alice", annotations=Annotations(spans=(Span("T1", "protein", ((0, 6),), "Second"),))
    )
    b = corpus.create_set("doc-2", "bob")
    alice, bob, judy = corpus.as_user("alice"), corpus.as_user("bob"), corpus.as_user("judy")
    assert [s.id for s in alice.sets()] == [a.id]
    with pytest.raises(PermissionDenied, match="not yours"):
        alice.read_set(b.id)
    with pytest.raises(PermissionDenied, match="hidden until"):
        judy.read_set(a.id)
    assert judy.sets() == []  # nothing readable before every set of the document is submitted
    assert {h.annotator for h in judy.set_headers()} == {"alice", "bob"}  # but progress is visible
    assert [h.annotator for h in bob.set_headers()] == ["bob"]
    with pytest.raises(PermissionDenied):
        bob.replace_set(a.id, Annotations())
    assert [d.external_id for d in alice.documents()] == ["doc-2"]
    with pytest.raises(PermissionDenied):
        alice.document("1.0.train.166")


def test_roles_are_enforced(corpus: Corpus) -> None:
    alice = corpus.as_user("alice")
    with pytest.raises(PermissionDenied):
        alice.add_annotator("mallory")
    with pytest.raises(PermissionDenied):
        alice.add_documents([Document("x", "y")])
    with pytest.raises(PermissionDenied):
        alice.amend_guidelines(note="sneaky", text="")
    with pytest.raises(PermissionDenied):
        alice.create_set("doc-2", None, kind="gold")
    with pytest.raises(NotFound):
        corpus.as_user("nobody")


def test_status_counts(corpus: Corpus) -> None:
    corpus.create_set("doc-2", "alice", status="submitted")
    corpus.create_set("doc-2", "bob")
    rep = corpus.status()
    assert rep.documents == 2
    assert rep.sets_by_kind_status == {"annotation": {"assigned": 1, "submitted": 1}}
    assert {a.name: (a.assigned, a.submitted) for a in rep.annotators}["alice"] == (0, 1)
    assert rep.documents_ready == 0
    only_mine = corpus.as_user("bob").status()
    assert [a.name for a in only_mine.annotators] == ["bob"]


def test_sqlite_pragmas_and_immediate_writes(sqlite_url: str) -> None:
    engine = db.make_engine(sqlite_url)
    with db.read(engine) as conn:
        assert conn.execute(text("PRAGMA foreign_keys")).scalar_one() == 1
        assert conn.execute(text("PRAGMA journal_mode")).scalar_one() == "wal"
        assert conn.execute(text("PRAGMA busy_timeout")).scalar_one() == db.BUSY_TIMEOUT_MS
    # While a write transaction is open, a second writer cannot even begin (BEGIN IMMEDIATE),
    # so it never fails half-way through its work.
    path = sqlite_url.removeprefix("sqlite:///")
    started = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with db.write(engine):
            started.set()
            release.wait(5)

    t = threading.Thread(target=hold)
    t.start()
    started.wait(5)
    other = sqlite3.connect(path, timeout=0.1, isolation_level=None)
    with pytest.raises(sqlite3.OperationalError, match="locked"):
        other.execute("BEGIN IMMEDIATE")
    other.execute("BEGIN")  # readers are not blocked (WAL)
    other.execute("SELECT count(*) FROM project").fetchone()
    other.execute("ROLLBACK")
    release.set()
    t.join()
    other.close()


def test_bulk_cache_is_raised_for_one_write_and_restored(sqlite_url: str) -> None:
    """An import's transaction gets a large page cache; the pooled connection gets its own back,
    after an error too."""
    engine = db.make_engine(sqlite_url)

    def cache(conn: Connection) -> int:
        return int(conn.exec_driver_sql("PRAGMA cache_size").scalar_one())

    with db.write(engine) as conn:
        before = cache(conn)
        with db.bulk_cache(conn):
            assert cache(conn) == -db.BULK_CACHE_KIB != before
        assert cache(conn) == before
        with pytest.raises(RuntimeError), db.bulk_cache(conn):
            raise RuntimeError("mid-import")
        assert cache(conn) == before


def test_history_records_actions_for_leads_only(corpus: Corpus) -> None:
    corpus.amend_guidelines(note="titles count", text="v2")
    info = corpus.create_set("doc-2", "alice", status="submitted")
    corpus.reopen(info.id, reason="missed the title")
    events = corpus.history()
    assert [e.action for e in events[:2]] == ["reopen", "create_set"]
    reopen = corpus.history(action="reopen")[0]
    assert reopen.target == str(info.id) and reopen.actor == "owner" and reopen.created.tzinfo is not None
    assert "missed the title" in str(dict(reopen.detail))
    assert corpus.history(action="amend_guidelines")[0].detail == {"note": "titles count"}
    assert corpus.as_user("judy").history(limit=1)[0].action == "reopen"
    with pytest.raises(PermissionDenied):
        corpus.as_user("alice").history()


def test_an_annotator_handle_cannot_become_someone_else(corpus: Corpus) -> None:
    alice = corpus.as_user("alice")
    with pytest.raises(PermissionDenied, match="may not act as another user"):
        alice.as_user("bob")
    with pytest.raises(PermissionDenied):
        alice.as_user(None)
    assert corpus.as_user("judy").actor.role == "adjudicator"
