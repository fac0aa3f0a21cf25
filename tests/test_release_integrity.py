"""Releases that lose nothing and leave nothing behind (issue 22, items 5, 6 and 8).

* A release's brat files hold exactly what ``export brat --gold`` holds (Equiv clusters included), keep
  a BioNLP corpus's ids and line order, and give back the same gold when imported again.
* BioRelEx gold the brat format cannot hold whole (groundings with a space, names without a mention)
  is still released and exported: each format writes what it can and counts what it left out.
* Release names are checked as split names; the folder is checked, and written, before the release is
  stored; no temporary folder stays behind after a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from corpusdb.errors import Conflict, InvalidInput
from corpusdb.records import Annotations, Document, Span

Cap = pytest.CaptureFixture[str]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def one_gold(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_documents([Document(f"d{i}", "Bacillus lives in soil.") for i in range(3)])
    for i in range(3):
        c.create_set(f"d{i}", None, kind="gold", status="submitted",
                     annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 8),), "Bacillus"),)))  # fmt: skip
    return c


# -- item 8: names, the folder first, nothing left behind ------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [("..", "not allowed"), ("a\nb", "control"), ("v" * 300, "at most 200"), ("../x", "path separator"),
     ("", "non-empty"), ("   ", "blank")],
)  # fmt: skip
def test_release_names_are_checked_as_split_names(
    one_gold: Corpus, name: str, why: str, tmp_path: Path
) -> None:
    with pytest.raises(InvalidInput, match=why):
        one_gold.release(name, agreement=False)
    with pytest.raises(InvalidInput, match=why):
        one_gold.release(name, outdir=tmp_path / "out", agreement=False)
    assert one_gold.releases() == [] and not (tmp_path / "out").exists()


def test_release_without_out_says_where_its_files_are(one_gold: Corpus, capsys: Cap) -> None:
    url = one_gold.engine.url.render_as_string(hide_password=False)
    assert main(["--db", url, "release", "v1", "--no-agreement"]) == 0
    out = capsys.readouterr().out
    assert "not written" in out and "corpusdb releases export v1 FOLDER" in out, out
    assert main(["--db", url, "release", "v\n2"]) == 4
    assert "control character" in capsys.readouterr().err


def test_a_folder_that_cannot_be_written_stores_no_release(one_gold: Corpus, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    with pytest.raises(Conflict, match="not a folder"):
        one_gold.release("v1", outdir=blocker, agreement=False)
    with pytest.raises(Conflict, match="not a folder"):
        one_gold.release("v1", outdir=blocker / "sub" / "rel", agreement=False)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(Conflict, match="other files"):
        one_gold.release("v1", outdir=mine, agreement=False)
    assert one_gold.releases() == []  # nothing stored: the release can be made again, elsewhere
    assert (mine / "notes.txt").read_text() == "keep me" and blocker.read_text() == "in the way"
    assert _leftovers(tmp_path) == []
    one_gold.release("v1", outdir=tmp_path / "rel", agreement=False)
    assert json.loads((tmp_path / "rel" / "manifest.json").read_text())["version"] == "v1"


def test_a_failure_while_storing_removes_the_staged_folder(
    one_gold: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are written before the release is stored; the store failing afterwards (injected
    here in the audit record of the same transaction) leaves neither the release nor any folder."""
    real = type(one_gold)._audit

    def failing(self: Corpus, conn: object, action: str, *args: object, **kw: object) -> None:
        if action == "release":
            raise OSError(5, "injected: the database went away")
        real(self, conn, action, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(one_gold), "_audit", failing)
    with pytest.raises(OSError, match="injected"):
        one_gold.release("v1", outdir=tmp_path / "rel", agreement=False)
    monkeypatch.undo()
    assert one_gold.releases() == [] and not (tmp_path / "rel").exists()
    assert _leftovers(tmp_path) == []


def test_a_failed_replace_puts_the_old_folder_back_and_cleans_up(
    one_gold: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-exporting over a folder (``--force``): when the final rename fails, the folder that was there
    comes back whole and neither the staged nor the moved-away copy stays behind."""
    one_gold.release("v1", agreement=False)
    one_gold.release("v2", agreement=False)
    out = tmp_path / "rel"
    one_gold.export_release("v1", out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    from corpusdb.workflow import release_folder

    real = os.rename

    def refuse_the_new_one(src: object, dst: object) -> None:
        if INCOMPLETE_MARK in str(src):
            raise OSError(16, "injected: device or resource busy")
        real(src, dst)  # type: ignore[arg-type]

    INCOMPLETE_MARK = release_folder.INCOMPLETE
    monkeypatch.setattr(release_folder.os, "rename", refuse_the_new_one)
    with pytest.raises(OSError, match="injected"):
        one_gold.export_release("v2", out, force=True)
    monkeypatch.undo()
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root deletes read-only folders anyway: run as a user",
)
def test_a_read_only_copy_is_replaced_without_leftovers(one_gold: Corpus, tmp_path: Path) -> None:
    """A release whose folders someone made read-only, exported again with --force: the old copy goes
    whole (it used to stay behind as a hidden ``.replaced-`` folder of the release's size)."""
    one_gold.release("v1", agreement=False)
    one_gold.release("v2", agreement=False)
    out = tmp_path / "rel"
    one_gold.export_release("v1", out)
    for p in sorted(out.rglob("*"), reverse=True):
        p.chmod(0o555 if p.is_dir() else 0o444)
    one_gold.export_release("v2", out, force=True)
    assert json.loads((out / "manifest.json").read_text())["version"] == "v2"
    assert _leftovers(tmp_path) == []
