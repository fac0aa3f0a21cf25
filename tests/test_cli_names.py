"""User-supplied names in terminal output (issue #10.9, #10.10): shown as written, never as Rich
markup; control characters refused at entry and never sent to the terminal; ``gold`` is reserved."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


@pytest.fixture
def db(tmp_path: Path, capsys: Cap) -> str:
    path = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", path, "init", "[red]bb", "--schema", "bb-2011")[0] == 0
    return path


def test_markup_in_names_is_shown_as_written(db: str, capsys: Cap) -> None:
    assert run(capsys, "--db", db, "annotator", "add", "[/]", "[bold red]bob")[0] == 0
    for args in (["annotator", "list"], ["status"]):
        code, out, err = run(capsys, "--db", db, *args)
        assert code == 0, err
        assert "[/]" in out and "[bold red]bob" in out
    assert "[red]bb" in run(capsys, "--db", db, "status")[1]


def test_control_characters_are_refused_at_entry(db: str, capsys: Cap) -> None:
    for name in ("\x1b[31mevil", "a\tb", "bell\x07", "csi\x9b2J"):
        code, _, err = run(capsys, "--db", db, "annotator", "add", name)
        assert code == 4 and "control characters" in err
        assert "\x1b" not in err and "\x07" not in err and "\x9b" not in err
    corpus = Corpus.open(url=f"sqlite:///{db}")
    with pytest.raises(InvalidInput):
        corpus.add_annotator("x\ny")
    assert corpus.annotators() == []


def test_control_characters_already_stored_never_reach_the_terminal(db: str, capsys: Cap) -> None:
    """A database written before names were checked may hold them: output replaces them."""
    assert run(capsys, "--db", db, "annotator", "add", "alice")[0] == 0
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE annotator SET name = ? WHERE name = 'alice'", ("\x1b]0;pwned\x07\x1b[2Jalice",))
    for args in (["annotator", "list"], ["status"], ["--as", "\x1b]0;pwned\x07\x1b[2Jalice", "status"]):
        code, out, err = run(capsys, "--db", db, *args)
        assert code == 0, err
        assert "alice" in out
        assert "\x1b" not in out + err and "\x07" not in out + err
    code, _, err = run(capsys, "--db", db, "--as", "\x1b[2Jnobody", "status")
    assert code == 3 and "\x1b" not in err


@pytest.mark.parametrize("name", ["gold", "Gold", "GOLD"])
def test_gold_is_reserved(db: str, tmp_path: Path, capsys: Cap, name: str) -> None:
    code, _, err = run(capsys, "--db", db, "annotator", "add", name)
    assert code == 4 and "reserved" in err
    root = tmp_path / "c"
    root.mkdir()
    (root / "d.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
    (root / "d.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    code, _, err = run(capsys, "--db", db, "import", "brat", str(root), "-a", name)
    assert code == 4 and "reserved" in err
    assert Corpus.open(url=f"sqlite:///{db}").annotators() == []
