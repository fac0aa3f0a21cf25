"""Errors users see (issue #10.8, #10.15): one line on stderr and the README's exit code, never a
traceback; read commands and a failed ``init`` create no file; Ctrl-C during an import says that
nothing was stored."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from tests.conftest import PG_URL, pg_available

Cap = pytest.CaptureFixture[str]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err and "sqlalche.me" not in err
    assert lines[0].count("error:") == 1, lines[0]  # never "error: ... error:"
    return lines[0]


@pytest.fixture
def project(tmp_path: Path, capsys: Cap) -> str:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "bb", "--schema", "bb-2011")[0] == 0
    return db


def test_db_pointing_at_a_folder(tmp_path: Path, capsys: Cap) -> None:
    code, _, err = run(capsys, "--db", str(tmp_path), "status")
    assert code == 7
    assert "is a folder" in one_line(err)


def test_read_only_database(project: str, capsys: Cap) -> None:
    # Read-only as SQLite itself sees it (file permissions do not stop root, who runs some CI).
    url = f"sqlite:///file:{project}?mode=ro&uri=true"
    code, out, _ = run(capsys, "--db", url, "status")
    assert code == 0 and "bb" in out  # reading works
    code, _, err = run(capsys, "--db", url, "annotator", "add", "bob")
    assert code == 7
    assert "read-only" in one_line(err)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through file permissions")
def test_read_only_file(project: str, capsys: Cap) -> None:
    os.chmod(project, 0o444)
    try:
        code, _, err = run(capsys, "--db", project, "annotator", "add", "bob")
    finally:
        os.chmod(project, 0o644)
    assert code == 7
    one_line(err)


def test_read_commands_and_a_failed_init_create_no_file(tmp_path: Path, capsys: Cap) -> None:
    db = tmp_path / "none.sqlite"
    for args in (["status"], ["annotator", "list"], ["agree"], ["-f", "json", "status"]):
        code, _, err = run(capsys, "--db", str(db), *args)
        assert code == 7
        assert "no database at" in one_line(err) and "corpusdb init" in err
        assert not db.exists()
    code, _, err = run(capsys, "--db", str(db), "init", "bb", "--schema", "no-such-schema")
    assert code == 3 and "no-such-schema" in one_line(err)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgresql://postgres@127.0.0.1:1/test", "no PostgreSQL server answers"),
        (
            PG_URL.rsplit("/", 1)[0] + "/corpusdb_no_such_database",
            'database "corpusdb_no_such_database" does not exist',
        ),
        (
            PG_URL.replace("postgres@", "corpusdb_no_such_user@"),
            'role "corpusdb_no_such_user" does not exist',
        ),
    ],
)
def test_postgresql_refusals(url: str, says: str, capsys: Cap) -> None:
    if url != "postgresql://postgres@127.0.0.1:1/test" and pg_available():  # only that one needs no server
        pytest.skip(pg_available())
    code, _, err = run(capsys, "--db", url, "status")
    assert code == 7
    assert says in one_line(err)


def test_outputs_into_a_missing_folder(project: str, tmp_path: Path, capsys: Cap) -> None:
    missing = tmp_path / "no" / "such"
    for args in (
        ["agree", "--gold", "--html", str(missing / "a.html")],
        ["agree", "--gold", "-o", str(missing / "a.json")],
    ):
        _seed_gold(project, capsys)
        code, _, err = run(capsys, "--db", project, *args)
        assert code == 7, err
        assert f"folder {missing} does not exist" in one_line(err)


def _seed_gold(db: str, capsys: Cap) -> None:
    """Gold and one annotator on one document, so that agreement has something to write."""
    root = Path(db).parent / "corpus"
    if root.exists():
        return
    root.mkdir()
    (root / "d.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
    (root / "d.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    assert run(capsys, "--db", db, "import", "brat", str(root), "--kind", "gold")[0] == 0
    assert run(capsys, "--db", db, "import", "brat", str(root), "-a", "alice")[0] == 0


def test_a_refused_import_ends_with_one_summary_line(project: str, tmp_path: Path, capsys: Cap) -> None:
    root = tmp_path / "bad"
    root.mkdir()
    (root / "d.txt").write_text("Bacillus lives in soil.", encoding="utf-8")
    (root / "d.ann").write_text("T1\tBacterium 0 8\tBacillus\nT2\tHabitat 0 4\tXXXX\n", encoding="utf-8")
    code, _, err = run(capsys, "--db", project, "import", "brat", str(root), "-a", "alice")
    assert code == 4
    lines = err.strip().splitlines()
    assert lines[0].startswith(f"{root / 'd.ann'}:2: error: T2: text field does not match")
    assert (
        lines[-1] == "corpusdb: error: import rejected, nothing was stored: 1 error in 1 file (listed above)"
    )
    (root / "d.ann").write_text("T1\tBacterium 0 8\tBacillus\n", encoding="utf-8")
    assert run(capsys, "--db", project, "import", "brat", str(root), "-a", "alice")[0] == 0
    (root / "d.ann").write_text("T1\tBacterium 0 4\tBaci\n", encoding="utf-8")
    code, _, err = run(capsys, "--db", project, "import", "brat", str(root), "-a", "alice")
    assert code == 6
    assert "import with --replace" in err and "replace=True" not in err


def _ctrl_c_acts() -> None:
    """In the child, before Python starts: Ctrl-C's default disposition, as in a terminal (Python
    installs its KeyboardInterrupt handler only over that; an inherited "ignore" stays)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_during_an_import_says_nothing_was_stored(project: str, tmp_path: Path) -> None:
    """A real import in a real process, interrupted while it holds the write lock (its note shows when)."""
    root = tmp_path / "big"
    root.mkdir()
    for i in range(3000):
        (root / f"d{i}.txt").write_text("Bacillus subtilis lives in soil.", encoding="utf-8")
        (root / f"d{i}.ann").write_text("T1\tBacterium 0 17\tBacillus subtilis\n", encoding="utf-8")
    note = Path(f"{project}-writer.json")
    proc = subprocess.Popen(
        [sys.executable, "-c", "from corpusdb.cli.main import run; run()", "--db", project, "import", "brat",
         str(root), "-a", "alice"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=_ctrl_c_acts,  # a pytest-xdist worker ignores SIGINT, and a child inherits that
    )  # fmt: skip
    while not note.exists() and proc.poll() is None:
        pass  # the import has taken the lock once its note is there
    if proc.poll() is not None:
        pytest.fail(f"the import ended before it could be interrupted: {proc.communicate()}")
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-3000:]
    assert (
        err.strip().splitlines()[-1]
        == "corpusdb: import interrupted: nothing was stored (an import is all or nothing)"
    )
    assert not note.exists()
    from corpusdb.api import Corpus

    assert Corpus.open(url=f"sqlite:///{project}").status().documents == 0  # nothing was stored


def test_error_texts_speak_the_cli_not_the_api(project: str, capsys: Cap) -> None:
    """``resolve needs exactly one of: take=SOURCE, item=ITEM, reject=True`` reached CLI users."""
    for extra in ([], ["--take", "alice", "--none"]):
        code, _, err = run(capsys, "--db", project, "adjudicate", "d", "-k", "span:0-4", *extra, "-r", "why")
        assert code == 2
        line = one_line(err)
        assert "exactly one of --take, --none and --item" in line and "=" not in line.split("error:", 1)[1]
