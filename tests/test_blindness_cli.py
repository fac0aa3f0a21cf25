"""Blindness through every CLI command run ``--as`` an annotator: a refusal (exit 5) or no leak.

Same scene as test_blindness_api: bob's set on ``open`` is in progress and holds a secret; ``done`` is
complete and bob's set there holds another. ``test_every_command_is_covered`` fails when a command is
added without a line here.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
import typer.main

from corpusdb.api import Corpus
from corpusdb.basics.records import Document, Grounding, Span
from corpusdb.cli.main import app, main
from corpusdb.services.edits import Put
from tests.conftest import pg_schema, role_url, team_roles_ctx

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


Who = Callable[[str], list[str]]


@pytest.fixture(
    scope="module", params=["sqlite", pytest.param("postgres-login-roles", marks=pytest.mark.postgres)]
)
def db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Who, dict[str, int], Path]]:
    """One database for the module: alice's attempts are refused or read-only. On SQLite a person is
    ``--as NAME``; on PostgreSQL in team mode, their own login role (``--db`` with their role, no ``--as``)."""
    tmp_path = tmp_path_factory.mktemp("blind-cli")
    with contextlib.ExitStack() as stack:
        if request.param == "sqlite":
            url = f"sqlite:///{tmp_path / 'c.sqlite'}"
        else:
            url = stack.enter_context(pg_schema())
            roles = stack.enter_context(team_roles_ctx())
        c = Corpus.create("p", "biorelex-1.0", url=url)
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
                    "T1",
                    "protein",
                    ((15, 28),),
                    "IL-2 receptor",
                    groundings=(Grounding(f"uniprot:{secret}"),),
                )
                me.edit_set(s.id, [Put(span if who == "bob" else Span("T1", "protein", ((0, 4),), "IL-2"))],
                            expected_version=s.version)  # fmt: skip
                if not (who == "bob" and doc == "open"):
                    me.submit(s.id)
        c.merge("done")
        c.release("v1", allow_open=True)
        c.engine.dispose()
        out = tmp_path / "out"
        out.mkdir()
        if request.param == "sqlite":
            yield (lambda person: ["--db", url, "--as", person]), ids, out
        else:
            for n in ("alice", "bob", "judy"):
                assert main(["--db", url, "team", "login", n, "--login", roles.name(n), "--no-password"]) == 0
            yield (lambda person: ["--db", role_url(url, roles.name(person))]), ids, out


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
        "releases list": ["releases", "list"],
        "releases show": ["releases", "show", "v1"],
        "releases export": ["releases", "export", "v1", str(out / "rel")],
        "status": ["status"],
        "history": ["history"],
        "agree": ["agree"],
        "evaluate biorelex": ["evaluate", "biorelex", "--gold", "--system", "bob"],
        "evaluate bb": ["evaluate", "bb", "--release", "v1", "--system", "bob"],
        "evaluate rename": ["evaluate", "rename", "--gold", "--system", "bob"],
        "evaluate ner": ["evaluate", "ner", "--gold", "--system", "bob"],
        "evaluate triage": ["evaluate", "triage", "--gold", "--system", "bob", "--positive", "DR,PR"],
        "evaluate ranked": None,
        "evaluate bb-norm": None,  # files in, figures out (gold and system folders): no project
        "export brat": ["export", "brat", str(out / "brat"), "-a", "bob"],
        "export biorelex": ["export", "biorelex", str(out / "bx.json"), "-a", "bob"],
        "export json": ["export", "json", str(out / "x.json"), "-a", "bob"],
        "import brat": ["import", "brat", str(out), "--annotator", "bob"],
        "import texts": ["import", "texts", str(out)],
        **{
            f"import {f}": ["import", f, str(out / "x.in"), "--annotator", "bob"]
            for f in (
                "bioc",
                "pubtator",
                "conll",
                "doccano",
                "labelstudio",
                "prodigy",
                "webanno",
                "judgments",
            )
        },
        **{
            f"export {f}": ["export", f, str(out / f"bob.{f}"), "-a", "bob"]
            for f in ("bioc", "pubtator", "conll", "spacy", "network")
        },
        "delete document": ["delete", "document", "open", "-r", "peek"],
        "delete set": ["delete", "set", bob_open, "-r", "peek"],
        "delete project": [
            "delete",
            "project",
            "-r",
            "peek",
            "--confirm",
            "p",
            "--archive",
            str(out / "t.json"),
        ],
        "delete annotator": ["delete", "annotator", "bob", "-r", "peek", "--with-sets"],
        "group-keys": ["group-keys", "re:^(o)"],
        "keep-splits": ["keep-splits"],
        "export judgments": ["export", "judgments", str(out / "j.tsv")],
        "import biorelex": ["import", "biorelex", str(out / "x.json"), "--annotator", "bob"],
        "annotator add": ["annotator", "add", "mallory", "--role", "lead"],
        "annotator list": ["annotator", "list"],
        "guidelines show": ["guidelines", "show"],
        "guidelines history": ["guidelines", "history"],
        "guidelines amend": ["guidelines", "amend", "-m", "x", "--schema", "bb-2011"],
        "schema show": ["schema", "show"],
        "topics import": ["topics", "import", str(out / "topics.tsv")],
        "topics list": ["topics", "list"],
        "topics show": ["topics", "show", "1"],
        "runs import": ["runs", "import", str(out / "x.run")],
        "runs list": ["runs", "list"],
        "runs export": ["runs", "export", "r", str(out / "r.run")],
        "runs score": ["runs", "score"],
        "pool": ["pool", "-k", "1"],
        "judge": ["judge", "1", "open", "DR"],
        "judgments list": ["judgments", "list"],
        "judgments agree": ["judgments", "agree"],
        "qrels export": ["qrels", "export", str(out / "q.txt")],
        "qrels import": ["qrels", "import", str(out / "q.txt")],
        "evaluate trec": None,  # files in, figures out: no project
        "schema list": None,  # shipped files, no project
        "schema check": None,
        "init": None,  # creates a project
        "demo": None,  # builds the bundled sample, owned by whoever runs it
        "db upgrade": None,  # the database file itself
        "db current": None,
        "tui": None,  # the TUI calls the API (test_blindness_api covers its data access)
        "team login": ["team", "login", "alice", "--login", "alice_peek", "--no-password"],
        "team revoke": ["team", "revoke", "bob"],
        "team gatekeeper": ["team", "gatekeeper", "peek_gate"],
        "serve": None,  # serves the TUI, whose sessions log in (tests/test_serve_blindness.py)
        "team list": ["team", "list"],
        "skip": ["skip", "open", "-r", "peek"],  # alice's own set only: bob's skip stays his
        "unskip": ["unskip", "open"],
        # shared tasks: an organizer's (leads); validate reads files only, no project
        "validate": None,
        "task create": ["task", "create", "t", "--release", "v1", "--split", "test", "--metric", "bb"],
        "task team add": ["task", "team", "add", "t", "x"],
        "task end-phase": ["task", "end-phase", "t"],
        "task submit": ["task", "submit", "t", "x", str(out)],
        "task score": ["task", "score", "t"],
        "task leaderboard": ["task", "leaderboard", "t"],
        "task feedback": ["task", "feedback", "t", "x"],
        "task intake": ["task", "intake", "t"],
        "task submissions": ["task", "submissions", "t"],
        "task list": ["task", "list"],
        # knowledge bases: shared vocabularies (no annotation content); loading is the owner's
        "kb add": ["kb", "add", "peek", str(out / "x.obo")],
        "kb update": ["kb", "update", "peek", str(out / "x.obo")],
        "kb remove": ["kb", "remove", "peek"],
        "kb list": ["kb", "list"],
        "kb show": ["kb", "show", "peek"],
        "kb search": ["kb", "search", "peek", "IL-2"],
        "recommend add": ["recommend", "add", "peek"],
        "recommend list": ["recommend", "list"],
        "recommend remove": ["recommend", "remove", "peek"],
        "recommend train": ["recommend", "train", "--for", "bob"],
        "recommend evaluate": ["recommend", "evaluate", "peek"],
        "recommend suggestions": ["recommend", "suggestions", "open"],
        "recommend accept": ["recommend", "accept", "open", "1"],
        "recommend reject": ["recommend", "reject", "open", "1"],
        # search: texts and her own sets (test_search_shows_alice_texts_and_her_own_sets_only)
        "search": ["search", "grounding:*"],
    }


def test_every_command_is_covered(tmp_path: Path) -> None:
    missing = sorted(command_paths() - set(attempts({"bob-open": 1, "bob-done": 2}, tmp_path)))
    assert not missing, f"add blindness attempts for these new commands: {missing}"


def test_no_command_shows_alice_bobs_work(
    db: tuple[Who, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    who, ids, out = db
    problems = []
    for name, args in attempts(ids, out).items():
        if args is None:
            continue
        for fmt in ("json", "text"):
            code = main([*who("alice"), "-f", fmt, *args])
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
    db: tuple[Who, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    who, ids, out = db
    for args in (["submit", str(ids["bob-open"])], ["submit", "--check", str(ids["bob-done"])],
                 ["conflicts", "done"], ["adjudicate"], ["decisions"], ["review"], ["releases"], ["releases", "list"],
                 ["releases", "export", "v1", str(out / "r")], ["correct", "done", "--label", "x=y", "-r", "r"]):  # fmt: skip
        assert main([*who("alice"), *args]) == 5, args
        assert "corpusdb: error:" in capsys.readouterr().err
    # the adjudicator: refused on the open document, served on the complete one
    assert main([*who("judy"), "conflicts", "open"]) == 5
    assert "not ready" in capsys.readouterr().err
    assert main([*who("judy"), "-f", "json", "conflicts", "--all"]) == 0
    got = capsys.readouterr().out
    assert SECRETS[1] in got and SECRETS[0] not in got


def test_sets_lists_an_annotators_own_sets_only(
    db: tuple[Who, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """``sets`` shows headers (who, status, ids); an annotator sees only their own, whatever the filters."""
    import json

    who, ids, _ = db
    for args in (["sets"], ["sets", "open"], ["sets", "-a", "bob"], ["sets", "--status", "in_progress"]):
        assert main([*who("alice"), "-f", "json", *args]) == 0, args
        rows = json.loads(capsys.readouterr().out)
        assert {r["annotator"] for r in rows} <= {"alice"}, args
        assert ids["bob-open"] not in {r["id"] for r in rows}
    assert main([*who("alice"), "-f", "json", "sets"]) == 0
    assert {r["id"] for r in json.loads(capsys.readouterr().out)} == {ids["alice-open"], ids["alice-done"]}
    # the adjudicator sees who has which set (headers, no content), as `status` does
    assert main([*who("judy"), "-f", "json", "sets", "-a", "bob"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {(r["document"], r["status"]) for r in rows} == {("open", "in_progress"), ("done", "submitted")}
    # alice's bulk take on the complete document is refused like every adjudication command
    assert main([*who("alice"), "adjudicate", "done", "--take", "bob", "--all"]) == 5
    assert "corpusdb: error:" in capsys.readouterr().err


SEARCH_ATTEMPTS = [
    ["search", "grounding:*"], ["search", "type:*", "--count"], ["search", "/SECRET/"],
    ["search", "grounding:uniprot:SECRET*"], ["search", "receptor", "-C", "80"], ["search", "annotator:bob"],
    ["search", "disagree:alice,bob"], ["search", "annotator:gold", "--count"],
    ["search", "receptor", "--annotate", "protein"], ["search", "--undo", "peek"],
    ["search", "grounding:*", "--delete", "-r", "peek"], ["search", "type:protein", "--set-type", "DNA", "-r", "x"],
]  # fmt: skip


def test_search_shows_alice_texts_and_her_own_sets_only(
    db: tuple[Who, dict[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    who, _, _ = db
    for args in SEARCH_ATTEMPTS:
        for fmt in ("json", "text"):
            code = main([*who("alice"), "-f", fmt, *args])
            cap = capsys.readouterr()
            assert not [s for s in SECRETS if s in cap.out + cap.err], (args, fmt)
            assert code in (0, 3, 5), (args, code, cap.err)
    assert main([*who("alice"), "search", "annotator:bob"]) == 5
    assert "only their own sets" in capsys.readouterr().err
    assert main([*who("alice"), "-f", "json", "search", "receptor"]) == 0  # the texts: both documents
    assert {h["document"] for h in __import__("json").loads(capsys.readouterr().out)["hits"]} == {
        "open",
        "done",
    }
    # the adjudicator: the complete document's secret, never the open one's
    assert main([*who("judy"), "search", "grounding:*"]) == 0
    out = capsys.readouterr().out
    assert SECRETS[1] in out and SECRETS[0] not in out
