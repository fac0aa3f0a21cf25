"""Progress on long work (issue 27): finishing gold, bulk takes, ``kb add``/``update`` and ``recommend
train`` take a ``progress(done, total, what)`` callback in the Python API (what the TUI can draw), and
the CLI draws it as a bar on a terminal's stderr, never when stdout is piped or redirected unless
asked (``CORPUSDB_PROGRESS=always``), never with ``CORPUSDB_PROGRESS=never``."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.cli import common
from corpusdb.cli.main import main

FIRST = Path(__file__).parent / "fixtures" / "first-project"
KB = Path(__file__).parent / "fixtures" / "kb"
Calls = list[tuple[int, int | None, str]]


def _recorder() -> tuple[Calls, object]:
    calls: Calls = []
    return calls, lambda done, total, what: calls.append((done, total, what))


@pytest.fixture
def brat_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Path:
    """The first-project fixture: alice and bob's brat sets of a few documents, all submitted."""
    monkeypatch.chdir(tmp_path)
    for who in ("alice", "bob"):
        shutil.copytree(FIRST / who, tmp_path / who)
    assert main(["init", "g", "--schema", "bb-2011"]) == 0
    assert main(["annotator", "add", "judy", "--role", "adjudicator"]) == 0
    for who in ("alice", "bob"):
        assert main(["import", "brat", who, "-a", who]) == 0
    capsys.readouterr()
    return tmp_path


def _open(path: Path, user: str | None = None) -> Corpus:
    return Corpus.open(url=f"sqlite:///{path / 'corpusdb.sqlite'}", user=user)


def test_bulk_take_and_finish_golds_report_each_document(brat_project: Path) -> None:
    judy = _open(brat_project, "judy")
    calls, cb = _recorder()
    taken = judy.resolve_bulk(None, take="alice", progress=cb)  # type: ignore[arg-type]
    assert taken and len(calls) >= len(taken)
    n = calls[-1][1]
    assert n is not None and [c[0] for c in calls] == list(range(1, n + 1)) and all(c[1] == n for c in calls)
    assert all("alice" in c[2] for c in calls)
    calls.clear()
    rep = judy.finish_golds(progress=cb)  # type: ignore[arg-type]
    assert rep.finished
    assert calls[0] == (0, None, "reading the ready documents' sets and gold")  # before the count is known
    checked = [c for c in calls if c[2].startswith("checking ")]
    assert [c[0] for c in checked] == list(range(1, len(checked) + 1))
    assert {c[2].removeprefix("checking ") for c in checked} >= {ch.document for ch in rep.finished}
    assert calls[-1][2] == f"writing {len(rep.finished)} finished gold set(s)"
    assert judy.finish_golds(dry_run=True).finished == ()  # the callback is optional


def test_kb_add_and_update_report_concepts(sqlite_url: str) -> None:
    owner = Corpus.create("k", "bb-2011", url=sqlite_url)
    calls, cb = _recorder()
    info = owner.kb_add("hab", KB / "habitats.obo", "obo", progress=cb)  # type: ignore[arg-type]
    assert calls[-1] == (info.concepts, info.concepts, f"indexing {info.names} names")
    assert any(c[1] is None and c[0] == info.concepts for c in calls)  # stored while the file is read
    calls.clear()
    owner.kb_update("hab", KB / "habitats.obo", progress=cb)  # type: ignore[arg-type]
    assert calls and calls[-1][2].startswith("indexing")


def test_recommend_train_reports_each_iteration_and_the_model_is_unchanged(sqlite_url: str) -> None:
    owner = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    texts = {f"g{i}": f"STAT5 binds IL-2 in cell line {i}. IL-2 is secreted." for i in range(4)}
    owner.add_documents([Document(k, v) for k, v in texts.items()])
    for g, t in texts.items():
        spans = tuple(Span(f"T{i}", "protein", ((t.index(n), t.index(n) + len(n)),), n)
                      for i, n in enumerate(("STAT5", "IL-2"), 1))  # fmt: skip
        owner.create_set(g, None, kind="gold", status="submitted", annotations=Annotations(spans=spans))
    owner.add_recommender("tagger", "tagger", options={"max_iterations": 15})
    calls, cb = _recorder()
    [res] = owner.train_recommender("tagger", progress=cb)  # type: ignore[arg-type]
    iterations = [c for c in calls if "iteration" in c[2]]
    assert iterations and all(
        c[1] == 15 and c[2].startswith("tagger: training: iteration") for c in iterations
    )
    assert [c[0] for c in iterations] == list(range(1, len(iterations) + 1))
    assert calls[0] == (0, None, "tagger: reading examples") and calls[-1] == (1, 1, "tagger: stored")
    # the reporting trainer changes nothing in the model: the same bytes as without a callback
    from corpusdb.recommend.tagger import TaggerOptions, train

    ex = [(t, [("protein", [[t.index("IL-2"), t.index("IL-2") + 4]])]) for t in texts.values()]
    assert train(ex, TaggerOptions(max_iterations=15), lambda *a: None) == train(
        ex, TaggerOptions(max_iterations=15)
    )
    assert res.detail["model_bytes"] > 0


@pytest.fixture
def terminal_stderr(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """stderr as a terminal (what the bar is drawn on), captured."""
    buf = io.StringIO()
    monkeypatch.setattr(common, "err", Console(file=buf, force_terminal=True, width=100))
    return buf


@pytest.mark.parametrize(
    ("stdout_terminal", "env", "drawn"),
    [(True, None, True), (False, None, False), (False, "always", True), (True, "never", False)],
)
def test_the_cli_draws_a_bar_only_where_asked(
    brat_project: Path,
    terminal_stderr: io.StringIO,
    monkeypatch: pytest.MonkeyPatch,
    stdout_terminal: bool,
    env: str | None,
    drawn: bool,
) -> None:
    monkeypatch.setattr(common, "_stdout_is_terminal", lambda: stdout_terminal)
    if env is None:
        monkeypatch.delenv(common.PROGRESS_ENV, raising=False)
    else:
        monkeypatch.setenv(common.PROGRESS_ENV, env)
    assert common.progress_shown() is drawn
    assert main(["--as", "judy", "adjudicate", "--take", "bob", "--all"]) in (0, 4)
    assert main(["--as", "judy", "adjudicate", "--finish"]) in (0, 6)
    text = terminal_stderr.getvalue()
    # a bar for each command (rich draws at its refresh rate: the last description may not show)
    assert (text.count("━") > 0 and "taking" in text and "3/3" in text) is drawn, text[:300]


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "err", Console(file=io.StringIO(), force_terminal=False))
    monkeypatch.setattr(common, "_stdout_is_terminal", lambda: True)
    monkeypatch.setenv(common.PROGRESS_ENV, "always")
    assert common.progress_shown() is False
