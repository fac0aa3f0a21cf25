"""Imports into the store and exports out of it, on small files written by the tests themselves.

Why own fixtures: the behaviour that matters (all or nothing, every error listed, lenient mode,
idempotent re-import, text clashes, blindness of exports) must be tested in a user's clone, without
../shared; tests/test_interchange_corpora.py adds the real corpora.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from sqlalchemy import func, select, update

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, FormatError, MissingPath, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, DocLabel, Document, Span
from corpusdb.interchange import ImportConflict, ImportRefused
from corpusdb.store.models import AnnotationSetRow, AnnotatorRow, DocumentRow, SpanRow

FIXTURES = Path(__file__).resolve().parent / "fixtures"

TEXT_A = "IL-2 binds the receptor."
TEXT_B = "p53 activates NF-kappa B in T cells."
ANN_A = "T1\tProtein 0 4\tIL-2\nT2\tProtein 15 23\treceptor\nR1\tBind Arg1:T1 Arg2:T2\t\n"
ANN_B = "T1\tProtein 0 3\tp53\nT2\tProtein 14 24\tNF-kappa B\nA1\tNegation T1\n"


def write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(body.encode("utf-8") if isinstance(body, str) else body)
    return root


def good_corpus(root: Path) -> Path:
    return write(
        root,
        {"a/doc-a.txt": TEXT_A, "a/doc-a.ann": ANN_A, "b/doc-b.txt": TEXT_B, "b/doc-b.ann": ANN_B},
    )


def tree(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.suffix in (".txt", ".ann", ".a1", ".a2")
    }


def counts(corpus: Corpus) -> tuple[int, int, int, int]:
    with corpus.engine.connect() as conn:
        return tuple(  # type: ignore[return-value]
            conn.execute(select(func.count()).select_from(t)).scalar_one()
            for t in (DocumentRow, AnnotationSetRow, SpanRow, AnnotatorRow)
        )


@pytest.fixture
def corpus(sqlite_url: str) -> Corpus:
    return Corpus.create("p", "ge-2011", url=sqlite_url)


def test_import_export_round_trip_keeps_folders(corpus: Corpus, tmp_path: Path) -> None:
    src = good_corpus(tmp_path / "src")
    rep = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert (rep.documents, rep.documents_added, rep.sets_created) == (2, 2, 1 * 2)
    assert rep.items["spans"] == 4 and rep.items["relations"] == 1
    assert rep.annotator_created and corpus.annotator("alice").role == "annotator"
    assert [s.status for s in corpus.sets(annotator="alice")] == ["submitted", "submitted"]
    out = corpus.export_brat(tmp_path / "out", "alice")
    assert out.documents == 2 and len(out.files) == 4
    assert tree(tmp_path / "out") == tree(src)
    flat = corpus.export_brat(tmp_path / "flat", "alice", flat=True)
    assert sorted(Path(f).name for f in flat.files) == ["doc-a.ann", "doc-a.txt", "doc-b.ann", "doc-b.txt"]
    assert corpus.document("doc-a").source == "src/a/doc-a.txt"


def test_a1_a2_and_every_line_type(any_url: str, tmp_path: Path) -> None:
    """The repository's standoff fixtures (every line type, .a1/.a2, notes, groundings, CRLF-free
    non-BMP text) come back byte for byte on SQLite and PostgreSQL."""
    corpus = Corpus.create("p", "ge-2011", url=any_url)
    src = tmp_path / "standoff"
    for name in ("bionlp", "every_line", "bb2011"):
        shutil.copytree(FIXTURES / "standoff" / name, src / name)
    rep = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert rep.documents == 4
    corpus.export_brat(tmp_path / "out", "alice")
    assert tree(tmp_path / "out") == tree(src)
    spans = {s.id: s for s in corpus.read_set(corpus.sets(document="every-line")[0].id).annotations.spans}
    assert [g.ref for g in spans["T5"].groundings] == ["Wikipedia:64488"]
    assert spans["T10"].fragments == ((109, 114), (115, 118), (118, 121))


def test_all_or_nothing_lists_every_error(corpus: Corpus, tmp_path: Path) -> None:
    src = good_corpus(tmp_path / "src")
    write(
        src,
        {
            "c/bad-1.txt": "abc def",
            "c/bad-1.ann": "T1\tProtein 0 3\tabd\nT2\tProtein 4 99\tdef\nR1\tBind Arg1:T1 Arg2:T9\n",
            "c/bad-2.txt": "xyz",
            "c/bad-2.ann": "X1\tstrange line\n",
            "c/orphan.ann": "",
        },
    )
    before = counts(corpus)
    with pytest.raises(ImportRefused) as err:
        corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert isinstance(err.value, FormatError) and err.value.exit_code == 4
    where = sorted((Path(p.file).name, p.line) for p in err.value.problems if p.severity == "error")
    assert where == [
        ("bad-1.ann", 1),
        ("bad-1.ann", 2),
        ("bad-1.ann", 3),
        ("bad-1.ann", 3),
        ("bad-2.ann", 1),
        ("orphan.ann", None),
    ]
    assert counts(corpus) == before  # no document, set, span or annotator


def test_lenient_imports_the_valid_documents(corpus: Corpus, tmp_path: Path) -> None:
    src = good_corpus(tmp_path / "src")
    write(src, {"c/bad.txt": "abc", "c/bad.ann": "T1\tProtein 0 3\tabd\n"})
    rep = corpus.import_brat(src, "alice", lenient=True, allow_unknown=True, force=True)
    assert rep.documents == 2 and rep.sets_created == 2
    assert [Path(r).name for r in rep.rejected] == ["bad.txt"]
    assert [Path(p.file).name for p in rep.problems] == ["bad.ann"]
    assert [d.external_id for d in corpus.documents()] == ["doc-a", "doc-b"]


def test_reimport_is_a_no_op_and_a_changed_set_needs_replace(corpus: Corpus, tmp_path: Path) -> None:
    src = good_corpus(tmp_path / "src")
    corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    before = counts(corpus)
    again = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert (again.documents_added, again.documents_existing, again.sets_created, again.sets_unchanged) == (
        0,
        2,
        0,
        2,
    )
    assert counts(corpus) == before
    # bob's import of the same texts reuses the documents
    bob = corpus.import_brat(src, "bob", allow_unknown=True, force=True)
    assert (bob.documents_added, bob.sets_created) == (0, 2)
    # a changed file for alice: refused (every clash listed), unless --replace
    (src / "a" / "doc-a.ann").write_text("T1\tProtein 0 4\tIL-2\n", encoding="utf-8")
    (src / "b" / "doc-b.ann").write_text("", encoding="utf-8")
    before = counts(corpus)
    with pytest.raises(ImportConflict) as err:
        corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert isinstance(err.value, Conflict) and err.value.exit_code == 6
    assert sorted(Path(p.file).name for p in err.value.problems) == ["doc-a.txt", "doc-b.txt"]
    assert counts(corpus) == before
    old = corpus.set_headers(document="doc-a", annotator="alice")[0]
    rep = corpus.import_brat(src, "alice", replace=True, status="in_progress", allow_unknown=True, force=True)
    assert (rep.sets_replaced, rep.sets_created, rep.sets_unchanged) == (2, 0, 0)
    new = corpus.set_headers(document="doc-a", annotator="alice")[0]
    assert new.id == old.id and new.version == old.version + 1 and new.status == "in_progress"
    alice = corpus.as_user("alice")
    assert [s.id for s in alice.read_set(new.id).annotations.spans] == ["T1"]
    alice.export_brat(tmp_path / "out")
    assert tree(tmp_path / "out") == tree(src)


def test_a_different_text_under_a_stored_id_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    corpus.import_brat(good_corpus(tmp_path / "src"), "alice", allow_unknown=True, force=True)
    other = write(tmp_path / "other", {"doc-a.txt": TEXT_A + " Changed.", "doc-a.ann": "", "new.txt": "x"})
    before = counts(corpus)
    with pytest.raises(ImportConflict, match="already stored with a different text"):
        corpus.import_brat(other, "bob", allow_unknown=True, force=True)
    assert counts(corpus) == before  # bob was not created either
    rep = corpus.import_brat(other, "bob", lenient=True, allow_unknown=True, force=True)
    assert rep.documents == 1 and [Path(r).name for r in rep.rejected] == ["doc-a.txt"]


def test_one_id_from_two_folders_is_refused(corpus: Corpus, tmp_path: Path) -> None:
    src = write(tmp_path / "src", {"x/d.txt": "one", "y/d.txt": "two"})
    with pytest.raises(ImportRefused, match="already read from"):
        corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    rep = corpus.import_brat(src, "alice", lenient=True, allow_unknown=True, force=True)
    assert rep.documents == 1 and corpus.document("d").text == "one"


def test_gold_prediction_and_options(corpus: Corpus, tmp_path: Path) -> None:
    src = good_corpus(tmp_path / "src")
    gold = corpus.import_brat(src, kind="gold", allow_unknown=True, force=True)
    assert gold.annotator is None and {s.kind for s in corpus.sets(kind="gold")} == {"gold"}
    assert all(s.annotator is None for s in corpus.sets(kind="gold"))
    corpus.import_brat(src, "tagger", kind="prediction", allow_unknown=True, force=True)
    assert corpus.annotator("tagger").role == "system"
    with pytest.raises(UsageError, match="omit --annotator"):
        corpus.import_brat(src, "alice", kind="gold", allow_unknown=True, force=True)
    with pytest.raises(UsageError, match="needs an annotator"):
        corpus.import_brat(src, allow_unknown=True, force=True)
    with pytest.raises(UsageError):
        corpus.import_brat(src, "alice", status="done", allow_unknown=True, force=True)
    corpus.export_brat(tmp_path / "gold", gold=True)
    assert tree(tmp_path / "gold") == tree(src)
    one = corpus.import_brat(
        src / "a" / "doc-a.txt", "carol", allow_unknown=True, force=True
    )  # a single document
    assert one.documents == 1
    with pytest.raises(MissingPath, match="missing: no such file or folder"):  # exit 7, as documented
        corpus.import_brat(tmp_path / "missing", "alice", allow_unknown=True, force=True)


def test_schema_mismatches_are_refused_or_warnings_and_stored(corpus: Corpus, tmp_path: Path) -> None:
    src = write(
        tmp_path / "src",
        {"d.txt": "abc def ghi", "d.ann": "T1\tGizmo 0 3\tabc\nT2\tGizmo 4 7\tdef\nT3\tProtein 8 11\tghi\n"
                                           "R1\tTouches Arg1:T1 Arg2:T3\nA1\tShiny T1\n"},
    )  # fmt: skip
    with pytest.raises(ImportRefused) as err:
        corpus.import_brat(src, "alice")
    assert len(err.value.problems) == 3 and "'Gizmo'" in str(err.value.problems[0])
    assert counts(corpus)[0] == 0
    rep = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    text = "\n".join(rep.schema_warnings)
    assert "2 span(s) of type 'Gizmo'" in text and "(first: d T1)" in text
    assert "'Touches'" in text and "'Shiny'" in text
    assert len(rep.schema_warnings) == 3
    stored = corpus.read_set(corpus.sets(annotator="alice")[0].id).annotations
    assert [s.type for s in stored.spans] == ["Gizmo", "Gizmo", "Protein"]


def test_reader_warnings_are_reported(corpus: Corpus, tmp_path: Path) -> None:
    src = write(tmp_path / "src", {"d.txt": "a\u00a0b c", "d.ann": "T1\tProtein 0 3\ta b\n"})
    rep = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert len(rep.warnings) == 1 and "d.ann:1: warning:" in rep.warnings[0]


def test_only_a_lead_imports(corpus: Corpus, tmp_path: Path) -> None:
    corpus.add_annotator("alice")
    with pytest.raises(PermissionDenied):
        corpus.as_user("alice").import_brat(
            good_corpus(tmp_path / "src"), "alice", allow_unknown=True, force=True
        )


# -- exports and blindness -----------------------------------------------------------------------


@pytest.fixture
def two_annotators(corpus: Corpus, tmp_path: Path) -> Corpus:
    src = good_corpus(tmp_path / "src")
    corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    corpus.import_brat(src, "bob", status="in_progress", allow_unknown=True, force=True)
    corpus.add_annotator("lead", "lead")
    return corpus


def test_an_annotator_exports_only_their_own_sets(two_annotators: Corpus, tmp_path: Path) -> None:
    alice = two_annotators.as_user("alice")
    rep = alice.export_brat(tmp_path / "mine")  # default: one's own sets
    assert rep.documents == 2 and rep.hidden == 0
    with pytest.raises(PermissionDenied, match="only their own"):
        alice.export_brat(tmp_path / "bob", "bob")
    with pytest.raises(PermissionDenied):
        alice.export_brat(tmp_path / "gold", gold=True)
    assert not (tmp_path / "bob").exists()


def test_a_lead_waits_until_every_set_is_submitted(two_annotators: Corpus, tmp_path: Path) -> None:
    lead = two_annotators.as_user("lead")
    with pytest.raises(PermissionDenied, match="hidden until every annotator"):
        lead.export_brat(tmp_path / "x", "alice")  # bob has not submitted: alice's sets stay hidden
    bob_doc_b = two_annotators.set_headers(document="doc-b", annotator="bob")[0]
    with two_annotators.engine.begin() as conn:  # bob submits doc-b only
        conn.execute(
            update(AnnotationSetRow).where(AnnotationSetRow.id == bob_doc_b.id).values(status="submitted")
        )
    rep = lead.export_brat(tmp_path / "y", "alice")
    assert rep.documents == 1 and rep.hidden == 1 and rep.warnings
    assert sorted(Path(f).name for f in rep.files) == ["doc-b.ann", "doc-b.txt"]
    with pytest.raises(UsageError, match="--annotator NAME"):
        two_annotators.export_brat(tmp_path / "z")  # the owner has no sets of their own
    with pytest.raises(NotFound):
        two_annotators.export_brat(tmp_path / "z", "nobody")
    with pytest.raises(NotFound, match="no document 'zzz'"):
        two_annotators.export_brat(tmp_path / "z", "alice", documents=["zzz"])


def test_export_refuses_to_overwrite_and_counts_what_brat_cannot_hold(
    two_annotators: Corpus, tmp_path: Path
) -> None:
    alice = two_annotators.as_user("alice")
    alice.export_brat(tmp_path / "out", documents=["doc-a"])
    with pytest.raises(Conflict, match="--overwrite"):
        alice.export_brat(tmp_path / "out")
    rep = alice.export_brat(tmp_path / "out", overwrite=True)
    assert rep.documents == 2
    two_annotators.add_document(Document("labelled", "abc"))
    two_annotators.create_set("labelled", "alice", annotations=Annotations(
        spans=(Span("T1", "Protein", ((0, 3),), "abc"),), labels=(DocLabel("relevance", "DR"),)))  # fmt: skip
    # what brat cannot hold is left out and said, counted (issue 22: each format writes what it can)
    rep = alice.export_brat(tmp_path / "new")
    assert "brat cannot express 1 document labels (left out)" in rep.warnings
    assert (tmp_path / "new" / "labelled.ann").read_text() == "T1\tProtein 0 3\tabc\n"


def _recording_read(task: tuple[str, int]) -> tuple[str, int]:
    """A chunk read that notes which task it reads (module level: readers get it by name)."""
    log, i = task
    with open(log, "a", encoding="ascii") as fh:
        fh.write(f"{i}\n")
    return task


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reader processes are forked on Linux only")
def test_readers_stay_a_bounded_window_ahead_of_the_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Streaming (issue #14): however many chunks an import has, readers (and the writer, when it
    reads instead of waiting) have started at most ``workers * AHEAD + STOLEN`` chunks beyond the one
    being written, and chunks come out in order, each once. A writer slower than its readers is
    simulated by pausing after each chunk; an unbounded read-ahead would have started every chunk by
    then."""
    import time

    from corpusdb.interchange import pipeline

    monkeypatch.setattr(pipeline, "read_chunk", _recording_read)
    log = tmp_path / "started.txt"
    log.touch()
    tasks = [(str(log), i) for i in range(40)]
    got = []
    for k, chunk in enumerate(pipeline.run(tasks, 2)):  # type: ignore[arg-type]
        got.append(chunk)
        time.sleep(0.02)  # the writer at work: readers may run ahead meanwhile, up to the bound
        started = log.read_text(encoding="ascii").split()
        assert len(started) <= k + 1 + 2 * pipeline.AHEAD + pipeline.STOLEN, (k, sorted(started))
    assert got == tasks  # in task order, each once
    assert sorted(map(int, log.read_text(encoding="ascii").split())) == list(range(40))  # each read once


def test_large_imports_read_in_worker_processes(
    any_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The chunked, multi-process path (taken from 1,000 documents on) on a small corpus: same
    result, same all-or-nothing, same re-import policy, on SQLite and PostgreSQL."""
    from corpusdb.interchange import pipeline

    monkeypatch.setattr(pipeline, "CHUNK", 2)
    monkeypatch.setattr(pipeline, "PARALLEL_FROM", 1)
    if sys.platform.startswith("linux"):
        assert pipeline.workers_for(5) >= 1
    assert pipeline.chunk_size(6) == 2  # three chunks for the six documents below
    corpus = Corpus.create("p", "ge-2011", url=any_url)
    src = good_corpus(tmp_path / "src")
    for name in ("bionlp", "every_line", "bb2011"):
        shutil.copytree(FIXTURES / "standoff" / name, src / name)
    rep = corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    assert (rep.documents, rep.sets_created) == (6, 6)
    corpus.export_brat(tmp_path / "out", "alice")
    assert tree(tmp_path / "out") == tree(src)
    assert corpus.import_brat(src, "alice", allow_unknown=True, force=True).sets_unchanged == 6
    # an error in the last chunk: chunks already written are rolled back
    write(src, {"zz/zz-bad.txt": "abc", "zz/zz-bad.ann": "T1\tProtein 0 3\tabd\n"})
    before = counts(corpus)
    with pytest.raises(ImportRefused) as err:
        corpus.import_brat(src, "bob", allow_unknown=True, force=True)
    assert [Path(p.file).name for p in err.value.problems] == ["zz-bad.ann"]
    assert counts(corpus) == before
    (src / "zz" / "zz-bad.ann").write_text("T1\tProtein 0 3\tabc\n", encoding="utf-8")
    (src / "a" / "doc-a.ann").write_text("T1\tProtein 0 4\tIL-2\n", encoding="utf-8")
    with pytest.raises(ImportConflict):
        corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    rep = corpus.import_brat(src, "alice", replace=True, allow_unknown=True, force=True)
    assert (rep.sets_created, rep.sets_replaced, rep.sets_unchanged) == (1, 1, 5)
    corpus.export_brat(tmp_path / "out2", "alice")
    assert tree(tmp_path / "out2") == tree(src)


def test_document_hashes_from_the_readers_are_the_texts_sha256(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The readers hash each text for the writer (which no longer re-hashes): what is stored is the
    text's sha256, through worker processes as in-process, and a stored id with another text is still
    refused."""
    import hashlib

    from corpusdb.interchange import pipeline

    monkeypatch.setattr(pipeline, "CHUNK", 1)
    monkeypatch.setattr(pipeline, "PARALLEL_FROM", 1)
    src = good_corpus(tmp_path / "src")
    write(src, {"c/doc-c.txt": "β-catenin — not detected.", "c/doc-c.ann": "T1\tProtein 0 9\tβ-catenin\n"})
    corpus.import_brat(src, "alice", allow_unknown=True, force=True)
    with corpus.engine.connect() as conn:
        stored = conn.execute(select(DocumentRow.external_id, DocumentRow.text, DocumentRow.sha256)).all()
    assert sorted(ext for ext, _, _ in stored) == ["doc-a", "doc-b", "doc-c"]
    for _ext, text, sha in stored:
        assert sha == hashlib.sha256(text.encode("utf-8")).hexdigest()
    (src / "b" / "doc-b.txt").write_text(TEXT_B.replace("p53", "p21"), encoding="utf-8")
    (src / "b" / "doc-b.ann").write_text("T1\tProtein 0 3\tp21\n", encoding="utf-8")
    with pytest.raises(ImportConflict):
        corpus.import_brat(src, "bob", allow_unknown=True, force=True)


def test_upsert_documents_uses_given_hashes_and_computes_missing_ones(corpus: Corpus) -> None:
    """``upsert_documents(..., hashes)``: a None hash is computed; an id stored with another text is
    a Conflict whichever way its hash came."""
    import hashlib

    from corpusdb.services.documents import sha256_text, upsert_documents
    from corpusdb.store import db

    docs = [Document("d1", TEXT_A), Document("d2", TEXT_B)]
    with db.write(corpus.engine) as conn:
        added = upsert_documents(conn, corpus.project_id, docs, [sha256_text(TEXT_A), None])
    assert added.added == 2
    with corpus.engine.connect() as conn:
        rows = dict(conn.execute(select(DocumentRow.external_id, DocumentRow.sha256)).all())
    assert rows == {
        "d1": hashlib.sha256(TEXT_A.encode()).hexdigest(),
        "d2": hashlib.sha256(TEXT_B.encode()).hexdigest(),
    }
    with pytest.raises(Conflict), db.write(corpus.engine) as conn:
        upsert_documents(conn, corpus.project_id, [Document("d1", TEXT_B)], [sha256_text(TEXT_B)])


def test_upsert_documents_with_the_callers_lookup(corpus: Corpus) -> None:
    """``upsert_documents(..., stored=...)``: documents the caller found stored keep their ids and are
    not inserted again, the rest are added, and a stored id with another text is still a Conflict."""
    from corpusdb.interchange import store
    from corpusdb.services.documents import sha256_text, upsert_documents
    from corpusdb.store import db

    with db.write(corpus.engine) as conn:
        first = upsert_documents(conn, corpus.project_id, [Document("d1", TEXT_A)])
    with db.write(corpus.engine) as conn:
        stored = store.stored_documents(conn, corpus.project_id, ["d1", "d2"])
        assert stored == {"d1": (first.ids["d1"], sha256_text(TEXT_A))}
        docs = [Document("d1", TEXT_A), Document("d2", TEXT_B)]
        added = upsert_documents(conn, corpus.project_id, docs, stored=stored)
    assert (added.added, added.unchanged, added.ids["d1"]) == (1, 1, first.ids["d1"])
    with corpus.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(DocumentRow)).scalar_one() == 2
    with pytest.raises(Conflict), db.write(corpus.engine) as conn:
        stored = store.stored_documents(conn, corpus.project_id, ["d1"])
        upsert_documents(conn, corpus.project_id, [Document("d1", TEXT_B)], stored=stored)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reader processes are forked on Linux only")
def test_reader_processes_by_import_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """None below ``PARALLEL_FROM`` documents; then one per ``DOCUMENTS_PER_READER`` documents, at
    least one, at most one per core and four (a mid-sized import such as GENIA reads with one); at a
    lower priority only when the readers and the writer outnumber the cores."""
    from corpusdb.interchange import pipeline

    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda _pid: set(range(8)))
    assert pipeline.workers_for(pipeline.PARALLEL_FROM - 1) == 0
    assert pipeline.workers_for(1_167) == 1
    assert pipeline.workers_for(2 * pipeline.DOCUMENTS_PER_READER) == 2
    assert pipeline.workers_for(100_000) == 4
    assert not pipeline.lowered(4)  # four readers and the writer on eight cores: each has a core
    monkeypatch.setattr(pipeline.os, "sched_getaffinity", lambda _pid: {0, 1})
    assert pipeline.workers_for(10_000) == 2
    assert pipeline.workers_for(1_167) == 1
    # two cores: a lone reader keeps its normal priority (nothing else starves it), two would take
    # the writer's core and run lower
    assert not pipeline.lowered(1)
    assert pipeline.lowered(2)


def test_an_api_import_loads_no_terminal_library(tmp_path: Path, sqlite_url: str) -> None:
    """``import_brat`` checks the annotator's name without ``corpusdb.basics.terminal``: loading Rich cost an
    import ~30 ms (issue #14); only printing needs it."""
    import subprocess

    Corpus.create("p", "ge-2011", url=sqlite_url)
    src = good_corpus(tmp_path / "src")
    probe = (
        "import sys\nfrom corpusdb.api import Corpus\n"
        f"c = Corpus.open('p', url={sqlite_url!r})\n"
        f"r = c.import_brat({str(src)!r}, 'alice', allow_unknown=True, force=True)\n"
        "print(r.sets_created, 'rich' in sys.modules, 'corpusdb.basics.terminal' in sys.modules)\n"
    )
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["2", "False", "False"]


def test_the_collector_is_paused_from_the_listing_on(
    corpus: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are listed (and the readers loaded) with the cyclic collector paused, as the rest of
    the import: a full collection there walked the whole program's heap; it runs again afterwards."""
    import gc

    from corpusdb.interchange import sources

    seen: list[bool] = []
    real = sources.brat_source

    def listing(*args: object, **kwargs: object) -> sources.Source:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(sources, "brat_source", listing)
    assert gc.isenabled()
    corpus.import_brat(good_corpus(tmp_path / "src"), "alice", allow_unknown=True, force=True)
    assert seen == [False]
    assert gc.isenabled()
