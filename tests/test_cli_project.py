"""The `corpusdb` command for a project's frame: init, status, annotators, guidelines, errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


def test_init_status_annotators_guidelines(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    code, out, _ = run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")
    assert code == 0 and "created project 'bb'" in out
    assert run(capsys, "--db", db, "annotator", "add", "alice", "bob")[0] == 0
    assert run(capsys, "--db", db, "annotator", "add", "judy", "--role", "adjudicator")[0] == 0
    code, out, _ = run(capsys, "--db", db, "-f", "json", "annotator", "list")
    assert json.loads(out) == [
        {"name": "alice", "role": "annotator"},
        {"name": "bob", "role": "annotator"},
        {"name": "judy", "role": "adjudicator"},
    ]
    code, out, _ = run(capsys, "--db", db, "-f", "json", "status")
    data = json.loads(out)
    assert data["project"] == "bb" and data["schema"] == "bb-2011" and data["documents"] == 0
    assert [a["name"] for a in data["annotators"]] == ["alice", "bob", "judy"]
    code, out, _ = run(capsys, "--db", db, "status")
    assert code == 0 and "alice" in out and "Annotation sets" in out
    code, out, _ = run(capsys, "--db", db, "guidelines", "show")
    assert "Bacterium" in out
    text = tmp_path / "g.md"
    text.write_text("Mark every bacterium, including strains.", encoding="utf-8")
    code, out, _ = run(capsys, "--db", db, "guidelines", "amend", "--text", str(text), "-m", "strains count")
    assert code == 0 and "v2" in out
    code, out, _ = run(capsys, "--db", db, "-f", "json", "guidelines", "history")
    assert [g["note"] for g in json.loads(out)] == ["initial version", "strains count"]
    # As an annotator, status shows only oneself.
    code, out, _ = run(capsys, "--db", db, "--as", "alice", "-f", "json", "status")
    assert [a["name"] for a in json.loads(out)["annotators"]] == ["alice"]


def test_errors_are_one_line_with_documented_codes(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "p", "--schema", "rename-2011")[0] == 0
    cases = [
        (("init", "p", "--schema", "rename-2011"), 6, "already exists"),  # conflict
        (("--as", "carol", "status"), 3, "no annotator named 'carol'"),  # not found
        (("init", "q", "--schema", "no-such"), 3, "no shipped schema"),
        (("annotator", "add", "x", "--role", "boss"), 4, "role 'boss'"),  # invalid input
        (("guidelines", "amend", "-m", "nothing"), 2, "must change something"),  # usage
        (("--project", "nope", "status"), 3, "no project named 'nope'"),
    ]
    for args, code, msg in cases:
        got, out, err = run(capsys, "--db", db, *args)
        assert got == code, (args, err)
        assert msg in err and err.startswith("corpusdb: error: ") and err.count("\n") == 1, err
        assert out == ""
    assert run(capsys, "--db", db, "annotator", "add", "alice")[0] == 0
    got, _, err = run(capsys, "--db", db, "--as", "alice", "annotator", "add", "mallory")
    assert got == 5 and "may not add annotators" in err  # permission refused
    got, _, err = run(capsys, "--db", str(tmp_path / "missing" / "x.sqlite"), "status")
    assert got == 7 and "does not exist" in err  # database error
    got, _, err = run(capsys, "--db", db, "status", "--bogus")
    assert got == 2  # usage error from the parser


def test_database_choice_env_and_default(
    tmp_path: Path, capsys: Cap, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CORPUSDB_URL", raising=False)
    assert run(capsys, "init", "here", "--schema", "trec-relevance")[0] == 0
    assert (tmp_path / "corpusdb.sqlite").exists()
    other = tmp_path / "other.sqlite"
    monkeypatch.setenv("CORPUSDB_URL", f"sqlite:///{other}")
    assert run(capsys, "init", "there", "--schema", "trec-relevance")[0] == 0
    assert other.exists()
    code, out, _ = run(capsys, "-f", "json", "status")
    assert code == 0 and json.loads(out)["project"] == "there"
    assert os.environ["CORPUSDB_URL"].endswith("other.sqlite")


def test_help_lists_exit_codes(capsys: Cap) -> None:
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "Exit codes" in out and "permission refused" in out


def test_global_options_after_the_command(tmp_path: Path, capsys: Cap) -> None:
    """`corpusdb status --as alice --db X` means the same as `corpusdb --db X --as alice status`."""
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "init", "p", "--schema", "rename-2011", "--db", db)[0] == 0
    assert run(capsys, "annotator", "add", "alice", "--db", db)[0] == 0
    code, out, err = run(capsys, "-f", "json", "status", "--as", "alice", "--db", db)
    assert code == 0, err
    assert [a["name"] for a in json.loads(out)["annotators"]] == ["alice"]
    code, _, err = run(capsys, "annotator", "add", "mallory", "--as=alice", "--db", db)
    assert code == 5 and "may not add annotators" in err
