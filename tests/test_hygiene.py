"""Deleting a document, a set or a mistyped annotator: one transaction, a reason in the audit trail,
releases untouched (re-exported byte for byte), and refusals that keep gold's provenance."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Document
from corpusdb.cli.main import main


@pytest.fixture
def corpus(any_url: str, tmp_path: Path) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=any_url)
    src = tmp_path / "src"
    src.mkdir()
    for i in (1, 2):
        (src / f"d{i}.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
        (src / f"d{i}.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    c.import_brat(src, "alice")
    c.import_brat(src, "bob")
    c.merge()
    for d in ("d1", "d2"):  # every item agreed: the adjudicator finishes gold, then it is released
        c.finish_gold(d)
    c.split(ratios=[1.0], names=["train"])
    c.release("v1", outdir=tmp_path / "v1")
    return c


def test_delete_document_keeps_releases(corpus: Corpus, tmp_path: Path) -> None:
    rep = corpus.delete_document("d1", reason="duplicate of d2")
    assert (rep.what, rep.sets) == ("document", 3)  # alice's, bob's and gold
    assert [d.external_id for d in corpus.documents()] == ["d2"]
    assert {s.document_external_id for s in corpus.sets()} == {"d2"}
    corpus.export_release("v1", tmp_path / "again")  # checked against the manifest, byte for byte
    assert (tmp_path / "again" / "brat" / "train" / "d1.ann").read_bytes() == (
        tmp_path / "v1" / "brat" / "train" / "d1.ann"
    ).read_bytes()
    [ev] = [e for e in corpus.history() if e.action == "delete_document"]
    assert (ev.target, ev.detail) == ("d1", {"sets": 3, "reason": "duplicate of d2"})
    v2 = corpus.release("v2")
    assert v2 is not None and corpus.releases()[-1].version == "v2"


def test_delete_set_and_annotator(corpus: Corpus) -> None:
    corpus.add_annotator("alcie")  # a typo
    assert corpus.delete_annotator("alcie", reason="typo").sets == 0
    assert "alcie" not in [a.name for a in corpus.annotators()]
    with pytest.raises(Conflict, match="bob has 2 annotation sets"):
        corpus.delete_annotator("bob", reason="left")
    bob_set = next(s for s in corpus.sets() if s.annotator == "bob" and s.document_external_id == "d2")
    assert corpus.delete_set(bob_set.id, reason="redo").sets == 1
    assert corpus.delete_annotator("bob", reason="left", with_sets=True).sets == 1
    assert {s.annotator for s in corpus.sets()} == {"alice", None}
    corpus.add_annotator("judy", "adjudicator")
    corpus.add_documents([Document("d3", "Bacillus subtilis.")])
    corpus.assign(["d3"], ["alice"])
    with pytest.raises(UsageError, match="say why"):
        corpus.delete_document("d2", reason=" ")
    with pytest.raises(NotFound):
        corpus.delete_document("nope", reason="x")
    with pytest.raises(PermissionDenied):
        corpus.as_user("judy").delete_document("d2", reason="x")


def test_an_annotator_whose_decisions_are_provenance_stays(corpus: Corpus) -> None:
    corpus.add_annotator("judy", "adjudicator")
    gold = next(s for s in corpus.sets() if s.kind == "gold" and s.document_external_id == "d1")
    corpus.delete_set(gold.id, reason="adjudicate again")
    [m] = corpus.as_user("judy").merge("d1")
    assert m.added == {"unanimous": 1}
    with pytest.raises(Conflict, match="judy decided 1 gold items and made 0 corrections"):
        corpus.delete_annotator("judy", reason="typo")
    assert "judy" in [a.name for a in corpus.annotators()]


def test_cli_delete(corpus: Corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = str(corpus.engine.url)
    if not url.startswith("sqlite"):
        pytest.skip("the CLI test runs on the SQLite file")
    assert main(["--db", url, "delete", "document", "d2", "-r", "typo"]) == 0
    assert "deleted document d2 (3 annotation sets with it); reason: typo" in capsys.readouterr().out
    assert main(["--db", url, "delete", "annotator", "bob", "-r", "x"]) == 6
    assert "--with-sets" in capsys.readouterr().err


def test_delete_project(any_url: str, tmp_path: Path) -> None:
    import json

    keep = Corpus.create("keep", "bb-2011", url=any_url)
    keep.add_documents([Document("k1", "kept text")])
    gone = Corpus.create("typo", "bb-2011", url=any_url)
    gone.add_annotator("alice")
    gone.add_documents([Document("d1", "some text"), Document("d2", "more text")])
    gone.assign(["d1", "d2"], ["alice"])
    with pytest.raises(UsageError, match="--confirm typo"):
        gone.delete_project(confirm="keep", reason="typo", archive=tmp_path / "t.json")
    with pytest.raises(PermissionDenied):
        gone.as_user("alice").delete_project(confirm="typo", reason="x", archive=tmp_path / "t.json")
    rep = gone.delete_project(confirm="typo", reason="created by a typo", archive=tmp_path / "t.json")
    assert (rep.what, rep.target, rep.sets) == ("project", "typo", 2)
    trail = json.loads((tmp_path / "t.json").read_text(encoding="utf-8"))
    assert trail["project"] == "typo" and trail["audit"][-1]["action"] == "delete_project"
    assert trail["audit"][-1]["detail"] == {"sets": 2, "reason": "created by a typo"}
    with pytest.raises(NotFound):
        Corpus.open("typo", engine=keep.engine)
    assert [d.external_id for d in Corpus.open("keep", engine=keep.engine).documents()] == ["k1"]


def test_a_project_with_releases_is_not_deleted(corpus: Corpus, tmp_path: Path) -> None:
    with pytest.raises(Conflict, match="has 1 releases, which are never deleted"):
        corpus.delete_project(confirm="p", reason="x", archive=tmp_path / "t.json")
    assert corpus.releases()[0].version == "v1" and not (tmp_path / "t.json").exists()
