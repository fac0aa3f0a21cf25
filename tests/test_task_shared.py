"""A whole shared task with the CLI alone (issue 28): a blind release, three teams' runs made by seeded
perturbations of the gold, a leaderboard whose scores equal ``corpusdb evaluate bb`` on the same files,
late, over-limit and malformed runs refused, and teams that see only their own runs until the phase
ends. On real BB 2011 (skipped without ../shared) and on a small fixture; on SQLite and PostgreSQL."""

from __future__ import annotations

import json
import random
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from tests.conftest import PG_URL, pg_available, shared_path

Cap = pytest.CaptureFixture[str]
MINI = Path(__file__).resolve().parent / "fixtures" / "bb2011-mini"
TEAMS = {"alpha": (1, 0.0), "beta": (2, 0.3), "gamma": (3, 0.6)}
"""team -> (seed, share of gold events dropped): three runs of different quality."""


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield str(tmp_path / "task.sqlite")
        return
    reason = pg_available()
    if reason:
        pytest.skip(reason)
    import psycopg

    name = f"task_{uuid.uuid4().hex[:12]}"  # a database of its own, prefixed task_, dropped afterwards
    base = PG_URL.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    try:
        yield PG_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def _perturbed(gold_a2: str, seed: int, drop: float) -> str:
    """The gold's lines with a seeded share of its events (E lines) dropped."""
    rng = random.Random(seed)
    return "".join(
        ln for ln in gold_a2.splitlines(keepends=True) if not (ln.startswith("E") and rng.random() < drop)
    )


def _whole_task(capsys: Cap, url: str, data: Path, tmp: Path, ratios: str) -> None:
    base = ["--db", url]
    for args in (["init", "bb", "--schema", "bb-2011"], ["import", "brat", str(data), "--kind", "gold"],
                 ["split", "--ratios", ratios, "--names", "train/test"],
                 ["release", "v1", "--blind", "test", "--out", str(tmp / "rel")]):  # fmt: skip
        code, out, err = run(capsys, *base, *args)
        assert code == 0, (args, out, err)
    pkg = tmp / "rel" / "participants"
    docs = sorted(p.stem for p in (pkg / "texts").glob("*.txt"))
    assert docs and not list((pkg / "texts").glob("*.a1"))  # texts only: nothing given
    assert run(capsys, *base, "task", "create", "st", "--release", "v1", "--split", "test", "--metric", "bb",
               "--runs-per-team", "1", "--deadline", "2999-01-01T00:00:00+00:00")[0] == 0  # fmt: skip
    for team in TEAMS:
        assert run(capsys, *base, "task", "team", "add", team, "--member", f"{team}-1")[0] == 0
    runs: dict[str, Path] = {}
    for team, (seed, drop) in TEAMS.items():  # the participants' side: their files, validated at home
        folder = tmp / "runs" / team
        folder.mkdir(parents=True)
        for d in docs:
            (folder / f"{d}.a2").write_text(
                _perturbed((data / f"{d}.a2").read_text("utf-8"), seed, drop), "utf-8"
            )
        assert run(capsys, "validate", str(folder), "--task", str(pkg))[0] == 0
        runs[team] = folder
    # a malformed run is refused with its file and line, and does not use up the team's one run
    bad = tmp / "runs" / "bad"
    shutil.copytree(runs["gamma"], bad)
    first = bad / f"{docs[0]}.a2"
    n = len(first.read_text("utf-8").splitlines())
    with open(first, "a", encoding="utf-8") as fh:
        fh.write("" if first.read_text("utf-8").endswith("\n") or n == 0 else "\n")
        fh.write("E999\tLocalization Bacterium:T1 Nowhere:T2\n")
    code, out, err = run(capsys, *base, "task", "submit", "gamma", str(bad))
    assert (
        code == 4 and f"{first}:{n + 1}: error: relation E999: Localization has no role 'Nowhere'" in out
    ), out
    assert "run refused" in err
    for team, folder in runs.items():
        code, out, err = run(capsys, *base, "task", "submit", team, str(folder))
        assert code == 0, out + err
    # over the limit: one line, exit 6
    code, out, err = run(capsys, *base, "task", "submit", "alpha", str(runs["alpha"]), "--run", "again")
    assert code == 6 and out == "" and len(err.strip().splitlines()) == 1 and "used its 1 run(s)" in err
    # late: a task whose deadline has passed refuses every run with one line
    assert run(capsys, *base, "task", "create", "late", "--release", "v1", "--split", "test", "--metric", "bb",
               "--deadline", "2000-01-01T00:00:00+00:00")[0] == 0  # fmt: skip
    assert run(capsys, *base, "task", "team", "add", "alpha", "--task", "late")[0] == 0
    code, _, err = run(capsys, *base, "task", "submit", "alpha", str(runs["alpha"]), "--task", "late")
    assert code == 6 and "deadline 2000-01-01T00:00:00+00:00 has passed; run refused" in err
    # the leaderboard: scores equal `corpusdb evaluate bb` on the same files
    code, out, err = run(capsys, *base, "task", "leaderboard", "--task", "st", "-B", "200", "-f", "json")
    assert code == 0, err
    board = json.loads(out)
    got = {
        e["name"]: {s["name"]: (s["tp"], s["fn"], s["fp"], s["f1"]) for s in e["scores"]}
        for e in board["systems"]
    }
    for team, folder in runs.items():
        with_texts = tmp / "eval" / team
        shutil.copytree(folder, with_texts)
        for d in docs:
            shutil.copy(pkg / "texts" / f"{d}.txt", with_texts / f"{d}.txt")
        code, out, err = run(capsys, *base, "-f", "json", "evaluate", "bb", "--release", "v1", "--split", "test",
                             str(with_texts))  # fmt: skip
        assert code == 0, err
        ref = {
            s["name"]: (s["tp"], s["fn"], s["fp"], s["f1"]) for s in json.loads(out)["systems"][0]["scores"]
        }
        assert got[f"{team}/run1"] == ref, team
    order = [r["system"] for r in board["ranking"]]
    assert order == ["alpha/run1", "beta/run1", "gamma/run1"]  # fewer events dropped ranks higher
    assert [r["group"] for r in board["ranking"]][0] == 1 and all(r["group"] >= 1 for r in board["ranking"])
    for e in board["systems"]:  # document-bootstrap CIs around each run's F1
        row = next(s for s in e["scores"] if s["name"] == "all")
        assert row["ci"]["f1"]["resamples"] == 200
        if row["f1"] is not None and row["ci"]["f1"]["low"] is not None:
            assert row["ci"]["f1"]["low"] <= row["f1"] <= row["ci"]["f1"]["high"]
    for fmt in ("text", "markdown", "html"):
        code, out, _ = run(capsys, *base, "task", "leaderboard", "--task", "st", "-B", "50", "-f", fmt)
        assert code == 0 and "alpha/run1" in out and "gamma/run1" in out
        if fmt == "html":
            assert "<svg" in out and "<line" in out  # CI whiskers
    # teams: hidden until the phase ends, then visible; feedback only for one's own team
    code, _, err = run(capsys, *base, "--as", "beta-1", "task", "leaderboard", "--task", "st")
    assert code == 5 and "hidden from teams until the phase ends" in err
    code, _, err = run(capsys, *base, "--as", "beta-1", "task", "feedback", "alpha", "--task", "st")
    assert code == 5
    code, out, _ = run(
        capsys, *base, "--as", "beta-1", "-f", "json", "task", "feedback", "beta", "--task", "st"
    )
    mine = json.loads(out)
    assert code == 0 and [r["run"] for r in mine] == ["run1"] and "alpha" not in out and "gamma" not in out
    assert run(capsys, *base, "task", "end-phase", "--task", "st")[0] == 0
    code, out, _ = run(
        capsys, *base, "--as", "beta-1", "-f", "json", "task", "leaderboard", "--task", "st", "-f", "json"
    )
    assert code == 0 and [r["system"] for r in json.loads(out)["ranking"]] == order
    # after the phase, no more runs
    code, _, err = run(
        capsys, *base, "task", "submit", "beta", str(runs["beta"]), "--run", "late", "--task", "st"
    )
    assert code == 6 and "every phase has ended" in err


def test_a_whole_task_on_the_small_fixture(capsys: Cap, db_url: str, tmp_path: Path) -> None:
    _whole_task(capsys, db_url, MINI, tmp_path, "50/50")


@pytest.mark.slow
def test_a_whole_task_on_real_bb_2011(capsys: Cap, db_url: str, tmp_path: Path) -> None:
    _whole_task(capsys, db_url, shared_path("data", "bionlp-st-2011-bb-train"), tmp_path, "60/40")
