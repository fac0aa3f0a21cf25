"""`corpusdb import texts`: plain texts become documents only, all or nothing, idempotent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, FormatError, PermissionDenied
from corpusdb.cli.main import main


def texts(tmp_path: Path) -> Path:
    root = tmp_path / "texts"
    (root / "sub").mkdir(parents=True, exist_ok=True)
    (root / "d1.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
    (root / "sub" / "d2.txt").write_bytes("\ufeffE. coli 𝛼 in the gut.\r\nSecond line.".encode())
    return root


def test_texts_become_documents_without_sets(sqlite_url: str, tmp_path: Path) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    rep = c.import_texts(texts(tmp_path))
    assert (rep.documents, rep.documents_added, rep.sets_created) == (2, 2, 0)
    assert any("BOM" in w or "byte order" in w for w in rep.warnings)
    d2 = c.document("d2")
    assert d2.text == "E. coli 𝛼 in the gut.\r\nSecond line." and d2.source == "sub/d2.txt"
    assert d2.metadata == {"bom": True}
    assert c.set_headers() == []
    again = c.import_texts(texts(tmp_path))
    assert (again.documents_added, again.documents_existing) == (0, 2)
    # then the usual life: assign them
    c.add_annotator("alice")
    assert len(c.assign(annotators=["alice"]).created) == 2


def test_bad_texts_are_all_or_nothing(sqlite_url: str, tmp_path: Path) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    root = texts(tmp_path)
    (root / "bad.txt").write_bytes(b"caf\xe9 latin-1")
    (root / "sub" / "d1.txt").write_text("another d1", encoding="utf-8")
    with pytest.raises(FormatError) as exc:
        c.import_texts(root)
    msgs = [str(p) for p in exc.value.problems]
    assert any("bad.txt" in m and "UTF-8" in m for m in msgs)
    assert any("'d1'" in m and "unique" in m for m in msgs)
    assert c.documents() == []
    rep = c.import_texts(root, lenient=True)
    assert [d.external_id for d in c.documents()] == ["d2"] and len(rep.rejected) == 3
    (tmp_path / "t2").mkdir()
    (tmp_path / "t2" / "d2.txt").write_text("a different text", encoding="utf-8")
    with pytest.raises(Conflict, match="d2"):
        c.import_texts(tmp_path / "t2")
    c.add_annotator("alice")
    with pytest.raises(PermissionDenied):
        c.as_user("alice").import_texts(root)


def test_cli_import_texts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = str(tmp_path / "c.sqlite")
    assert main(["--db", db, "init", "p", "--schema", "trec-relevance"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "-f", "json", "import", "texts", str(texts(tmp_path))]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["documents_added"] == 2
    (tmp_path / "texts" / "bad.txt").write_bytes(b"\xff\xfe")
    assert main(["--db", db, "import", "texts", str(tmp_path / "texts")]) == 4
    assert "bad.txt" in capsys.readouterr().err
