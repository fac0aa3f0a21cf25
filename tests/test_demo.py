"""`corpusdb demo` (the README's first command) builds the sample project from bundled real text."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from corpusdb.demo import SAMPLE_ANNOTATORS, build_demo, sample_dir


def test_sample_data_is_bundled() -> None:
    root = sample_dir()
    assert (root / "BRATIAA_LICENSE").is_file()
    for name in SAMPLE_ANNOTATORS:
        assert len(list((root / name).glob("*.txt"))) == 7


def test_demo_builds_then_reuses(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CORPUSDB_URL", raising=False)
    assert main(["-f", "json", "demo", "--sample", "news"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["created"] is True
    status = data["status"]
    assert status["documents"] == 7 and status["documents_ready"] == 7
    assert {a["name"]: a["submitted"] for a in status["annotators"]} == {
        "Ana": 0, "Lisa": 7, "Maria": 7, "Max": 7, "Peter": 7
    }  # fmt: skip
    assert (tmp_path / "corpusdb.sqlite").exists()
    # the agreement a lead looks at first: bratiaa's figures on this data (0.816 Maria–Max … 0.959 Lisa–Peter)
    agreement = data["agreement"]
    assert agreement["schema"] == "corpusdb.agreement/1"
    f1 = {(p["a"], p["b"]): round(p["overall"]["f1"], 3) for p in agreement["pairs"]}
    assert f1[("Maria", "Max")] == 0.816 and f1[("Lisa", "Peter")] == 0.959
    assert agreement["lowest"]["documents"][0]["document"] == "esp.train-doc-100"
    # The annotations are the real files': Lisa has 404 entity spans, Max 358 (SOURCE.md).
    corpus = Corpus.open("sample", url=f"sqlite:///{tmp_path / 'corpusdb.sqlite'}")
    counts = {
        name: sum(
            len(s.annotations.spans) for s in corpus.read_sets([i.id for i in corpus.sets(annotator=name)])
        )
        for name in SAMPLE_ANNOTATORS
    }
    assert counts == {"Lisa": 404, "Maria": 404, "Max": 358, "Peter": 401}
    assert main(["demo", "--sample", "news"]) == 0
    text = capsys.readouterr().out
    assert "reusing the sample project" in text
    for title in (
        "Pairwise F1",
        "Per type",
        "Documents with the lowest agreement",
        "Types with the lowest agreement",
    ):
        assert title in text
    assert "0.816" in text and "esp.train-doc-100" in text
    assert main(["demo", "--sample", "news", "--fresh"]) == 6


def test_build_demo_on_postgres(pg_url: str) -> None:
    res = build_demo(pg_url)
    assert res.created and res.corpus.status().documents == 7


def test_biomed_demo_is_the_default_and_goes_to_a_release(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """`corpusdb demo`: two annotators, relations, a cluster, groundings, gold, predictions, a release."""
    from corpusdb.demo_biomed import biomed_dir

    assert "CC0" in (biomed_dir() / "LICENSE").read_text(encoding="utf-8")
    assert "Licence" in (biomed_dir() / "SOURCE.md").read_text(encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CORPUSDB_URL", raising=False)
    assert main(["demo"]) == 0
    text = capsys.readouterr().out
    assert "built the sample project 'demo'" in text and "schema biorelex-1.0" in text
    tail = text[text.index("Try next:") :].splitlines()[1:4]
    assert [ln.split()[1] for ln in tail] == ["agree", "tui", tail[2].split()[1]] and "--as judy" in tail[1]
    assert "mean pairwise F1: 0.880" in text  # alice and bob: 11 spans matched, 2 + 1 one-sided
    corpus = Corpus.open("demo", url=f"sqlite:///{tmp_path / 'corpusdb.sqlite'}")
    [release] = corpus.releases()
    assert release.version == "v1"
    alice = corpus.read_sets([i.id for i in corpus.sets(annotator="alice")])
    assert sum(len(s.annotations.relations) for s in alice) == 5
    assert sum(len(s.annotations.entities) for s in alice) == 1  # MDM2's cluster
    assert any(sp.groundings for s in alice for sp in s.annotations.spans)
    assert corpus.sets(annotator="tagger")  # the system's predictions
    relations = corpus.agreement("relations", criterion="exact", types="required").to_dict()
    assert (
        round(relations["pairs"][0]["overall"]["f1"], 3) == 0.667
    )  # bob missed one, bound another to a longer p53


def _parses(args: list[str]) -> None:
    """Parse a command line as the CLI would, down to its last subcommand, running nothing: an
    option or a command that does not exist raises."""
    import click
    from typer.main import get_command

    from corpusdb.cli.main import app

    command: click.Command = get_command(app)
    ctx = command.make_context("corpusdb", list(args), resilient_parsing=False)
    while isinstance(command, click.Group):
        rest = [*ctx.protected_args, *ctx.args]
        if not rest:
            return
        _name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None, args
        command, ctx = sub, sub.make_context(_name or "", rest, parent=ctx)


def test_every_command_the_demo_suggests_exists_and_the_browser_step_logs_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """What "Try next" prints is typed by newcomers as it stands: each command parses (it suggested
    `serve --as judy`, an option serve refuses), and the browser step's login lets judy in."""
    import shlex

    from corpusdb.serving.gate import LoginGate

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CORPUSDB_URL", raising=False)
    assert main(["demo"]) == 0
    text = capsys.readouterr().out
    lines = [ln.split("#")[0] for ln in text[text.index("Try next:") :].splitlines()[1:4]]
    commands = [shlex.split(part)[1:] for ln in lines for part in ln.split("&&")]
    for args in commands:
        _parses(args)
    assert main(["serve", "--as", "judy"]) != 0  # what it suggested: serve has no --as (one line says so)
    assert "serve has no --as" in capsys.readouterr().err
    assert ["serve"] in commands  # each browser session logs in: no one is named on the command line
    login = next(a for a in commands if a[:2] == ["team", "login"])
    monkeypatch.setattr("sys.stdin", io.StringIO("judy-pw\n"))
    assert main([*login, "--password-stdin"]) == 0
    session = LoginGate(f"sqlite:///{tmp_path / 'corpusdb.sqlite'}").login("judy", "judy-pw")
    assert session.annotator == "judy"
