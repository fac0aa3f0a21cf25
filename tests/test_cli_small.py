"""The small CLI promises of issue #10.15: --version and -h, global options after the command,
`releases list`, the change log in `releases show`, `releases export` refusing another release's
folder, `demo` refusing a database that holds another project, `import --replace` giving unchanged
sets the status it reports."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


def test_version_and_short_help(capsys: Cap) -> None:
    from importlib.metadata import version

    assert run(capsys, "--version") == (0, f"corpusdb {version('corpusdb')}\n", "")
    for args in (["-h"], ["status", "-h"], ["releases", "export", "-h"], ["agree", "-h"]):
        code, out, _ = run(capsys, *args)
        assert code == 0 and out.startswith("Usage: corpusdb"), args


def test_format_after_the_command(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")[0] == 0
    for args in (["status", "--format", "json"], ["status", "-f", "json"], ["status", "--format=json"]):
        code, out, err = run(capsys, "--db", db, *args)
        assert code == 0, err
        assert json.loads(out)["project"] == "bb"
    code, out, _ = run(capsys, "--db", db, "agree", "--format", "markdown", "--gold")  # agree's own --format
    assert code != 2


def _corpus(root: Path) -> Path:
    root.mkdir()
    (root / "d.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
    (root / "d.ann").write_text(
        "T1\tBacterium 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\n", encoding="utf-8"
    )
    return root


def test_releases_list_show_and_export(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    root = _corpus(tmp_path / "corpus")
    assert run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")[0] == 0
    assert run(capsys, "--db", db, "import", "brat", str(root), "--kind", "gold")[0] == 0
    assert run(capsys, "--db", db, "release", "v1", "-o", str(tmp_path / "r1"))[0] == 0
    (root / "d.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    assert run(capsys, "--db", db, "import", "brat", str(root), "--kind", "gold", "--replace")[0] == 0
    assert run(capsys, "--db", db, "release", "v2", "-o", str(tmp_path / "r2"))[0] == 0
    code, out, _ = run(capsys, "--db", db, "releases", "list")
    assert code == 0 and [ln.split()[0] for ln in out.splitlines()] == ["v1", "v2"]
    assert run(capsys, "--db", db, "releases")[1] == out
    code, out, _ = run(capsys, "--db", db, "releases", "show", "v2")
    assert code == 0 and "# Release v2" in out and "Changes since v1" in out
    assert "gold items added: 0, removed: 1" in out
    code, _, err = run(capsys, "--db", db, "releases", "export", "v2", str(tmp_path / "r1"))
    assert code == 6 and "already holds release v1" in err and "--overwrite" in err
    assert json.loads((tmp_path / "r1" / "manifest.json").read_text())["version"] == "v1"  # untouched
    assert run(capsys, "--db", db, "releases", "export", "v2", str(tmp_path / "r2"))[0] == 0  # its own folder
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine", encoding="utf-8")
    code, _, err = run(capsys, "--db", db, "releases", "export", "v1", str(other))
    assert code == 6 and "other files" in err
    assert run(capsys, "--db", db, "releases", "export", "v2", str(tmp_path / "r1"), "--force")[0] == 0
    assert json.loads((tmp_path / "r1" / "manifest.json").read_text())["version"] == "v2"


def test_demo_refuses_a_database_holding_another_project(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")[0] == 0
    code, _, err = run(capsys, "--db", db, "demo")
    assert code == 6 and "holds project 'bb'" in err and "--db" in err
    code, out, err = run(capsys, "--db", db, "status")  # still a one-project database
    assert code == 0 and "bb" in out


def test_replace_gives_unchanged_sets_the_reported_status(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    root = _corpus(tmp_path / "corpus")
    assert run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")[0] == 0
    assert run(capsys, "--db", db, "import", "brat", str(root), "-a", "alice", "--status", "assigned")[0] == 0
    code, out, _ = run(
        capsys, "--db", db, "-f", "json", "import", "brat", str(root), "-a", "alice", "--replace"
    )
    rep = json.loads(out)
    assert code == 0 and rep["status"] == "submitted" and rep["sets_unchanged"] == 1
    sets = Corpus.open(url=f"sqlite:///{db}").sets(annotator="alice")
    assert [s.status for s in sets] == ["submitted"]
