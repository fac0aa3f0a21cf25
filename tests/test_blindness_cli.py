"""Blindness through every CLI command run ``--as`` an annotator: a refusal (exit 5) or no leak.

Same scene as test_blindness_api: bob's set on ``open`` is in progress and holds a secret; ``done`` is
complete and bob's set there holds another. ``test_every_command_is_covered`` fails when a command is
added without a line here.
"""

from __future__ import annotations

from pathlib import Path

import click
import pytest
import typer.main

from corpusdb.api import Corpus
from corpusdb.cli.main import app, main
from corpusdb.edits import Put
from corpusdb.records import Document, Grounding, Span

TEXT = "IL-2 binds the IL-2 receptor alpha chain in zebrafish T cells."
SECRETS = ("SECRET-OPEN-42", "SECRET-DONE-77")


def command_paths() -> set[str]:
    root = typer.main.get_command(app)
    out: set[str] = set()

    def walk(c: click.Command, path: list[str]) -> None:
        if hasattr(c, "list_commands"):  # a group (typer's own Group class)
            ctx = click.Context(c)
            for n in c.list_commands(ctx):
                walk(c.get_command(ctx, n), [*path, n])  # type: ignore[attr-defined]
        else:
            out.add(" ".join(path))

    walk(root, [])
    return out


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, int], Path]:
    """One database for the module: alice's attempts are refused or read-only."""
    tmp_path = tmp_path_factory.mktemp("blind-cli")
    path = tmp_path / "c.sqlite"
    c = Corpus.create("p", "biorelex-1.0", url=f"sqlite:///{path}")
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("open", TEXT), Document("done", TEXT)])
    c.assign(["open", "done"], ["alice", "bob"])
    ids = {}
    for who in ("alice", "bob"):
        me = c.as_user(who)
        for doc, secret in (("open", SECRETS[0]), ("done", SECRETS[1])):
            s = me.my_set(doc).info
            ids[f"{who}-{doc}"] = s.id
            span = Span(
                "T1", "protein", ((15, 28),), "IL-2 receptor", groundings=(Grounding(f"uniprot:{secret}"),)
            )
            me.edit_set(s.id, [Put(span if who == "bob" else Span("T1", "protein", ((0, 4),), "IL-2"))],
                        expected_version=s.version)  # fmt: skip
            if not (who == "bob" and doc == "open"):
                me.submit(s.id)
    c.merge("done")
    c.release("v1", allow_open=True)
    out = tmp_path / "out"
    out.mkdir()
    return str(path), ids, out


# alice's attempt with each command (None: the command reads no annotation sets, or needs no user)
def attempts(ids: dict[str, int], out: Path) -> dict[str, list[str] | None]:
    bob_open, bob_done = str(ids["bob-open"]), str(ids["bob-done"])
    return {
        "submit": ["submit", bob_open],
        "reopen": ["reopen", bob_done, "-r", "peek"],
        "assign": ["assign", "-d", "open", "-a", "alice"],
        "conflicts": ["conflicts", "done"],
        "adjudicate": ["adjudicate", "done"],
        "decisions": ["decisions"],
        "sets": ["sets"],
        "correct": ["correct", "done", "--action", "delete", "--key", "T1", "-r", "peek"],
        "review": ["review", "--min-sources", "1"],
        "split": ["split"],
        "release": ["release", "v2"],
        "releases": ["releases"],
        "releases show": ["releases", "show", "v1"],
        "releases export": ["releases", "export", "v1", str(out / "rel")],
        "status": ["status"],
        "history": ["history"],
        "agree": ["agree"],
        "export brat": ["export", "brat", str(out / "brat"), "-a", "bob"],
        "export biorelex": ["export", "biorelex", str(out / "bx.json"), "-a", "bob"],
        "import brat": ["import", "brat", str(out), "--annotator", "bob"],
        "import texts": ["import", "texts", str(out)],
        "import biorelex": ["import", "biorelex", str(out / "x.json"), "--annotator", "bob"],
        "annotator add": ["annotator", "add", "mallory", "--role", "lead"],
        "annotator list": ["annotator", "list"],
        "guidelines show": ["guidelines", "show"],
        "guidelines history": ["guidelines", "history"],
        "guidelines amend": ["guidelines", "amend", "-m", "x", "--schema", "bb-2011"],
        "schema show": ["schema", "show"],
        "schema list": None,  # shipped files, no project
        "schema check": None,
        "init": None,  # creates a project
        "demo": None,  # builds the bundled sample, owned by whoever runs it
        "db upgrade": None,  # the database file itself
        "db current": None,
        "tui": None,  # the TUI calls the API (test_blindness_api covers its data access)
    }


def test_every_command_is_covered(tmp_path: Path) -> None:
    missing = sorted(command_paths() - set(attempts({"bob-open": 1, "bob-done": 2}, tmp_path)))
    assert not missing, f"add blindness attempts for these new commands: {missing}"


def test_no_command_shows_alice_bobs_work(
    db: tuple[str, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids, out = db
    problems = []
    for name, args in attempts(ids, out).items():
        if args is None:
            continue
        for fmt in ("json", "text"):
            code = main(["--db", path, "--as", "alice", "-f", fmt, *args])
            cap = capsys.readouterr()
            written = "".join(f.read_text(errors="replace") for f in out.rglob("*") if f.is_file())
            leaked = [s for s in SECRETS if s in cap.out + cap.err + written]
            if leaked:
                problems.append(f"{name} ({fmt}, exit {code}) leaked {leaked}")
            if code not in (0, 2, 3, 4, 5, 6):
                problems.append(f"{name} ({fmt}) failed with exit {code}: {cap.err.strip()[-200:]}")
            if code != 0 and len(cap.err.strip().splitlines()) != 1:
                problems.append(f"{name}: the error is not one line: {cap.err!r}")
            if code != 0:
                break  # refused before any output: the text format is refused the same way
    assert problems == []


def test_refusals_are_exit_5(
    db: tuple[str, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    path, ids, out = db
    for args in (["submit", str(ids["bob-open"])], ["submit", "--check", str(ids["bob-done"])],
                 ["conflicts", "done"], ["adjudicate"], ["decisions"], ["review"], ["releases"],
                 ["releases", "export", "v1", str(out / "r")], ["correct", "done", "--label", "x=y", "-r", "r"]):  # fmt: skip
        assert main(["--db", path, "--as", "alice", *args]) == 5, args
        assert "corpusdb: error:" in capsys.readouterr().err
    # the adjudicator: refused on the open document, served on the complete one
    assert main(["--db", path, "--as", "judy", "conflicts", "open"]) == 5
    assert "not ready" in capsys.readouterr().err
    assert main(["--db", path, "--as", "judy", "-f", "json", "conflicts", "--all"]) == 0
    got = capsys.readouterr().out
    assert SECRETS[1] in got and SECRETS[0] not in got


def test_sets_lists_an_annotators_own_sets_only(
    db: tuple[str, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``sets`` shows headers (who, status, ids); an annotator sees only their own, whatever the filters."""
    import json

    path, ids, _ = db
    for args in (["sets"], ["sets", "open"], ["sets", "-a", "bob"], ["sets", "--status", "in_progress"]):
        assert main(["--db", path, "--as", "alice", "-f", "json", *args]) == 0, args
        rows = json.loads(capsys.readouterr().out)
        assert {r["annotator"] for r in rows} <= {"alice"}, args
        assert ids["bob-open"] not in {r["id"] for r in rows}
    assert main(["--db", path, "--as", "alice", "-f", "json", "sets"]) == 0
    assert {r["id"] for r in json.loads(capsys.readouterr().out)} == {ids["alice-open"], ids["alice-done"]}
    # the adjudicator sees who has which set (headers, no content), as `status` does
    assert main(["--db", path, "--as", "judy", "-f", "json", "sets", "-a", "bob"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["document"], r["status"]) for r in rows} == {("open", "in_progress"), ("done", "submitted")}
    # alice's bulk take on the complete document is refused like every adjudication command
    assert main(["--db", path, "--as", "alice", "adjudicate", "done", "--take", "bob", "--all"]) == 5
    assert "corpusdb: error:" in capsys.readouterr().err
