"""Start-up stays cheap: ordinary commands load none of the heavy libraries (issue #14).

Checked in a fresh interpreter, through ``corpusdb.cli.main.main`` as the console script runs it:
``--help`` and every command's ``--help`` (every command module registered in
``corpusdb/cli/commands.py``, found through the Typer app, so a new command group is covered
without editing this file), then ordinary commands on a real SQLite project. Heavy libraries belong
inside the functions that compute with them; time itself is measured in ``bench/bench_startup.py``.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span

REPO = Path(__file__).resolve().parents[1]
HEAVY = (
    "scipy", "statsmodels", "pandas", "matplotlib", "krippendorff", "textual", "alembic", "jinja2",
    "sqlmodel", "pydantic", "sqlalchemy.orm", "corpusdb.store.models", "sqlalchemy.dialects.postgresql",
    "sklearn", "sklearn_crfsuite", "pycrfsuite", "ahocorasick", "corpusdb.kb.store", "corpusdb.kb.search",
    "corpusdb.kb.index", "corpusdb.recommend.tagger", "corpusdb.recommend.matcher", "corpusdb.serving",
)  # fmt: skip
"""Never loaded to parse arguments or to run an ordinary command (alembic: only to upgrade; SQLModel's
table classes, pydantic and the ORM: the store queries ``corpusdb.store.tables``, and option values need
no pydantic; PostgreSQL's dialect on a SQLite database)."""

_PROBE = """
import contextlib, io, json, sys
from corpusdb.cli.main import main
runs = json.loads(sys.argv[1])
codes = []
for argv in runs:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        codes.append(main(argv))
heavy = sorted(h for h in json.loads(sys.argv[2]) if h in sys.modules)
print(json.dumps({"codes": codes, "heavy": heavy}))
"""


def _run(runs: list[list[str]], heavy: tuple[str, ...] = HEAVY) -> dict[str, list]:
    res = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(runs), json.dumps(heavy)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout.strip().splitlines()[-1])


def _help_runs() -> list[list[str]]:
    """``--help`` of the program, of every group and of every command of the registered modules."""
    import typer

    from corpusdb.cli import commands
    from corpusdb.cli.main import app

    runs: list[list[str]] = [["--help"]]

    def walk(cmd: Any, path: list[str]) -> None:  # a click command or group (typer's click)
        runs.append([*path, "--help"])
        for name, sub in getattr(cmd, "commands", {}).items():
            walk(sub, [*path, name])

    root: Any = typer.main.get_command(app)
    for name, cmd in root.commands.items():
        walk(cmd, [name])
    modules = {r.__module__ for r in commands.REGISTRY}
    assert {"corpusdb.cli.agree", "corpusdb.cli.tui", "corpusdb.cli.project"} <= modules
    return runs


CLI_HEAVY = (
    *HEAVY, "sqlalchemy", "rich.console", "rich.table", "numpy", "textual", "corpusdb.api",
    "corpusdb.services", "corpusdb.workflow", "corpusdb.store.tables", "corpusdb.basics.records",
    "corpusdb.kb", "corpusdb.recommend", "corpusdb.serving", "corpusdb.relevance", "corpusdb.reports",
    "corpusdb.interchange", "guidelines.schema",
)  # fmt: skip
"""Not loaded by importing the command line, nor by any ``--help``: SQLAlchemy, rich's console (made
on first output), the API and every domain package load when a command runs (issue #26)."""


def test_importing_the_cli_loads_no_heavy_module() -> None:
    """Harlequin's start-up test, ours: in a fresh interpreter, import what the console script imports
    and list ``sys.modules`` (no timing: ``bench/bench_startup.py`` times)."""
    code = (
        "import json, sys\n"
        "import corpusdb.cli, corpusdb.cli.main, corpusdb.cli.commands\n"
        "print(json.dumps(sorted(sys.modules)))"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    loaded = set(json.loads(res.stdout.strip().splitlines()[-1]))
    assert {"typer", "corpusdb.cli.main", "corpusdb.cli.agree", "corpusdb.cli.recommend"} <= loaded
    heavy = sorted(m for m in CLI_HEAVY if m in loaded)
    assert heavy == [], f"importing corpusdb.cli loads {heavy}"


def test_every_help_loads_no_heavy_library() -> None:
    runs = _help_runs()
    assert len(runs) > 30  # the program, its groups and commands: a broken walk would check nothing
    out = _run(runs, CLI_HEAVY)
    assert out["codes"] == [0] * len(runs)
    assert out["heavy"] == [], f"`corpusdb ... --help` loads {out['heavy']}"


def test_the_command_line_spells_the_set_statuses_as_the_records_do() -> None:
    from corpusdb.basics.records import SET_STATUSES
    from corpusdb.cli import workflow_sets

    assert workflow_sets.SET_STATUSES == SET_STATUSES


@pytest.fixture
def project(sqlite_url: str) -> str:
    corpus = Corpus.create("p", "bb-2011", url=sqlite_url)
    corpus.add_annotator("alice")
    corpus.add_documents([Document("D1", "Bacillus subtilis lives in soil.")])
    info = corpus.create_set("D1", "alice")
    ann = Annotations(
        spans=(
            Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
            Span("T2", "Soil", ((27, 31),), "soil"),
        )
    )
    corpus.as_user("alice").replace_set(info.id, ann, expected_version=info.version)
    return sqlite_url


def test_ordinary_commands_load_no_heavy_library(project: str, tmp_path: Path) -> None:
    db = ["--db", project]
    brat = tmp_path / "brat"
    brat.mkdir()
    (brat / "D2.txt").write_text("Escherichia coli in water.", encoding="utf-8")
    (brat / "D2.ann").write_text("T1\tBacterium 0 16\tEscherichia coli\n", encoding="utf-8")
    runs = [
        [*db, "status"],
        [*db, "annotator", "list"],
        [*db, "--as", "alice", "submit", "-d", "D1", "--check"],
        [*db, "--as", "alice", "submit", "-d", "D1"],
        [*db, "--as", "alice", "status"],
        [*db, "annotator", "add", "bob"],
        [*db, "import", "brat", str(brat), "-a", "bob"],
        [*db, "assign", "-a", "bob", "-d", "D1"],
        [*db, "--as", "bob", "sets"],
        [*db, "conflicts", "D2"],
        [*db, "decisions"],
        [*db, "sets", "--kind", "annotation"],
        [*db, "--as", "alice", "export", "brat", str(tmp_path / "out")],
    ]
    out = _run(runs)
    assert out["codes"] == [0] * len(runs)
    assert out["heavy"] == [], f"ordinary commands load {out['heavy']}"


def test_agreement_loads_what_it_computes_with(project: str) -> None:
    """The probe can see a heavy library: the agreement report computes with scipy (its special
    functions for CIs and p-values); its type kappa no longer needs statsmodels (issue #14)."""
    corpus = Corpus.open(url=project)
    corpus.add_annotator("bob")
    info = corpus.create_set("D1", "bob")
    ann = Annotations(
        spans=(Span("T1", "Bacterium", ((0, 8),), "Bacillus"), Span("T2", "Soil", ((27, 31),), "soil"))
    )
    corpus.as_user("bob").replace_set(info.id, ann, expected_version=info.version)
    corpus.as_user("bob").submit(info.id)
    corpus.as_user("alice").submit(corpus.as_user("alice").my_set("D1").info.id)
    out = _run([["--db", project, "agree", "-c", "overlap"]])
    assert out["codes"] == [0]
    assert "scipy" in out["heavy"] and "statsmodels" not in out["heavy"]


TUI_HEAVY = (
    "numpy", "scipy", "statsmodels", "pandas", "matplotlib", "krippendorff", "alembic", "jinja2",
    "sqlmodel", "pydantic", "sqlalchemy.orm", "corpusdb.store.models", "sklearn", "sklearn_crfsuite",
)  # fmt: skip
"""Not needed to paint the TUI's first screen and show its data (the lead's agreement tab, which
computes with numpy, is read when opened)."""

_TUI_PROBE = """
import asyncio, json, sys
from tui.app import build_app
from tui.facade import open_facade
from tui.testing import screen_text, settle

async def first_screen() -> dict:
    app = build_app(open_facade(sys.argv[1], "p", sys.argv[2]))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)  # composed, painted, its data read in the worker and shown
        screen, text = type(app.screen).__name__, screen_text(app)
    heavy = sorted(h for h in json.loads(sys.argv[3]) if h in sys.modules)
    return {"screen": screen, "text": text, "heavy": heavy}

print(json.dumps(asyncio.run(first_screen())))
"""


@pytest.mark.parametrize(
    ("user", "screen", "shown"),
    [("alice", "DocumentsScreen", "D1"), ("lena", "LeadScreen", "alice"), ("carol", "QueueScreen", "D1")],
)
def test_tui_first_screen_loads_no_heavy_library(project: str, user: str, screen: str, shown: str) -> None:
    """Launching the app module and showing the first screen of each role, in a fresh interpreter."""
    corpus = Corpus.open(url=project)
    corpus.add_annotator("lena", role="lead")
    corpus.add_annotator("carol", role="adjudicator")
    corpus.as_user("alice").submit(corpus.as_user("alice").my_set("D1").info.id)
    res = subprocess.run(
        [sys.executable, "-c", _TUI_PROBE, project, user, json.dumps(TUI_HEAVY)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["screen"] == screen and shown in out["text"]  # the screen and its data are there
    assert out["heavy"] == [], f"the TUI's first screen ({user}) loads {out['heavy']}"


def test_the_console_script_resumes_the_collector() -> None:
    """Run as ``corpusdb``, the cyclic GC is paused while the modules load and resumed (with what
    they made frozen) before the command runs: a long import must not run without it."""
    code = (
        "import sys, gc; sys.argv[0] = '/x/bin/corpusdb'\n"
        "import corpusdb.cli.main as m\n"
        "paused = not gc.isenabled()\n"
        "import contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()): m.main(['--help'])\n"
        "print(paused, gc.isenabled(), gc.get_freeze_count() > 10000)"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["True", "True", "True"]
    other = subprocess.run(  # imported by another program: the collector is left alone
        [sys.executable, "-c", "import gc, corpusdb.cli.main; print(gc.isenabled())"],
        capture_output=True, text=True, cwd=REPO, timeout=120,
    )  # fmt: skip
    assert other.stdout.split() == ["True"], other.stderr
