"""A save behind a long import (SQLite): it waits, says why, and lands after the import (issue #10.7).

Before: the import held SQLite's write lock for the whole run and the annotator's save failed with
the raw "database is locked" after the busy timeout. The import below is a real import in another
thread with its own engine; its progress callback holds it inside its transaction until the save
has started waiting, so the test needs no sleeps and no timing.
"""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Document, Span
from corpusdb.services.edits import Put
from corpusdb.store import db, writers


def _brat_folder(root: Path, n: int) -> Path:
    root.mkdir()
    for i in range(n):
        (root / f"doc{i}.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
        (root / f"doc{i}.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    return root


def test_a_save_waits_behind_a_long_import_and_says_why(
    sqlite_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 100)  # each wait for the lock ends quickly
    lead = Corpus.create("bb", "bb-2011", url=sqlite_url)
    lead.add_annotator("alice")
    lead.add_documents([Document("mine", "Bacillus subtilis lives in soil.")])
    set_id = lead.create_set("mine", "alice").id
    folder = _brat_folder(tmp_path / "corpus", 300)

    importer = Corpus.open("bb", engine=db.make_engine(sqlite_url))
    alice = Corpus.open("bb", engine=db.make_engine(sqlite_url), user="alice")
    told: list[str] = []
    save_waits, import_holds = threading.Event(), threading.Event()
    stop = writers.on_wait(lambda message: (told.append(message), save_waits.set()))

    def hold(_phase: str, _done: int, _total: int | None) -> None:
        import_holds.set()
        save_waits.wait(60)  # keep the write lock until the save is queued behind it

    reports: list[object] = []
    worker = threading.Thread(
        target=lambda: reports.append(importer.import_brat(folder, "bob", progress=hold))
    )
    worker.start()
    try:
        assert import_holds.wait(60)
        version = alice.read_set(set_id).info.version  # reading is never blocked
        try:
            saved = alice.edit_set(set_id, [Put(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"))],
                                   expected_version=version)  # fmt: skip
        finally:
            save_waits.set()
        worker.join(120)
    finally:
        stop()
    assert told and told[0].startswith("waiting: an import of 300 documents from ")
    assert "is running" in told[0]
    assert saved.info.version == version + 1
    assert len(alice.read_set(set_id).annotations.spans) == 1
    assert reports and reports[0].documents == 300  # type: ignore[attr-defined]
    assert len(lead.sets(annotator="bob")) == 300  # the import is whole
    assert not Path(f"{db.sqlite_file(lead.engine)}-writer.json").exists()  # its note is gone


def test_without_a_long_writer_a_timed_out_save_is_one_line(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer stuck behind another (not an import) gets a one-line DatabaseError, exit 7, not the driver's text."""
    from corpusdb.basics.errors import DatabaseError

    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 50)
    lead = Corpus.create("bb", "bb-2011", url=sqlite_url)
    lead.add_documents([Document("d", "text")])
    other = Corpus.open("bb", engine=db.make_engine(sqlite_url))
    with db.write(lead.engine), pytest.raises(DatabaseError) as exc:  # an ordinary writer holds the lock
        other.add_annotator("carol")
    assert exc.value.exit_code == 7
    assert "nothing was saved, try again" in str(exc.value)
    assert "carol" not in [a.name for a in lead.annotators()]
