"""Shared tasks whose runs are tab-separated files (issue 28): ``trec``, ``triage`` and ``ranked``.

The intake reads a run with the readers ``corpusdb evaluate``/``corpusdb runs`` use, all or nothing,
each problem with the file and line, and refuses documents outside the task's split; ``task score``
gives what ``corpusdb evaluate trec|triage|ranked`` gives on the same files. Data: the TREC fixture
(tests/fixtures/trec: eight abstracts, two runs, the qrels) and small triage/ranked files of ours."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError, InvalidInput
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
TREC = Path(__file__).resolve().parent / "fixtures" / "trec"


def _project(tmp_path: Path, qrels: bool = True, url: str | None = None) -> tuple[str, Corpus]:
    """The eight abstracts in a test split: as judging units (topic+doc, from the qrels) or, for
    document-level tasks, as documents with (empty) gold sets."""
    url = url or f"sqlite:///{tmp_path / 't.sqlite'}"
    c = Corpus.create("trec", "trec-relevance", url=url)
    c.import_texts(TREC / "docs")
    if not qrels:
        for d in sorted(p.stem for p in (TREC / "docs").glob("*.txt")):
            c.create_set(d, None, kind="gold", status="submitted")
        c.split(ratios=(1.0,), names=("test",))
        assert main(["--db", url, "release", "v1", "--out", str(tmp_path / "rel")]) == 0
        return url, c
    from corpusdb.relevance.qrels import read_qrels
    from corpusdb.relevance.records import QrelLine
    from corpusdb.relevance.topics import read_topics

    c.add_topics(read_topics(TREC / "topics.xml"))
    c.import_qrels([*read_qrels(TREC / "qrels.txt"), QrelLine("1", "p4", 0)])  # gold for every abstract
    c.split(ratios=(1.0,), names=("test",))
    assert main(["--db", url, "release", "v1", "--out", str(tmp_path / "rel")]) == 0
    return url, c


def _json(capsys: Cap, *argv: str) -> object:
    capsys.readouterr()
    assert main(list(argv)) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_a_trec_task_scores_as_evaluate_trec_and_refuses_bad_runs(
    capsys: Cap, tmp_path: Path, any_url: str
) -> None:
    url, c = _project(tmp_path, url=any_url)
    c.create_task("tr", release="v1", split="test", metric="trec")
    for team in ("alpha", "beta"):
        c.add_team("tr", team, [f"{team}-1"])
    # malformed: one line naming the file and line; nothing stored
    bad = tmp_path / "bad.run"
    bad.write_text("1 Q0 p1 1 2.0 r\n1 Q0 p2 two 1.0 r\n", "utf-8")
    with pytest.raises(FormatError) as exc:
        c.submit_run("tr", "alpha", [bad])
    assert [f"{p.file}:{p.line}: {p.message}" for p in exc.value.problems] == [
        f"{bad}:2: rank 'two' is not an integer"
    ]
    outside = tmp_path / "outside.run"
    outside.write_text("1 Q0 p1 1 2.0 r\n1 Q0 p99 2 1.0 r\n", "utf-8")
    with pytest.raises(FormatError) as exc:
        c.submit_run("tr", "alpha", [outside])
    assert [f"{p.file}:{p.line}: {p.message}" for p in exc.value.problems] == [
        f"{outside}:2: document p99 is not in the test split of v1"
    ]
    with pytest.raises(InvalidInput, match="one tab-separated file"):
        c.submit_run("tr", "alpha", [TREC / "runA.run", TREC / "runB.run"])
    assert c.task_runs("tr") == []
    c.submit_run("tr", "alpha", [TREC / "runA.run"])
    c.submit_run("tr", "beta", [TREC / "runB.run"])
    board = _json(capsys, "--db", url, "task", "score", "-f", "json", "--reference", str(TREC / "qrels.txt"))
    want = _json(capsys, "--db", url, "-f", "json", "evaluate", "trec", str(TREC / "qrels.txt"),
                 str(TREC / "runA.run"), str(TREC / "runB.run"))  # fmt: skip
    assert isinstance(board, dict) and isinstance(want, list)
    means = {s["name"].split("/")[0]: s["mean"] for s in board["systems"]}
    assert means == {"alpha": want[0]["mean"], "beta": want[1]["mean"]}
    best = "alpha/run1" if want[0]["mean"]["AP"] >= want[1]["mean"]["AP"] else "beta/run1"
    assert board["ranking"][0]["system"] == best
    assert all("group" in r for r in board["ranking"]) and board["headline"] == "AP"
    capsys.readouterr()
    assert main(["--db", url, "task", "score", "--reference", str(TREC / "qrels.txt")]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[1].split("\t")[:5] == ["rank", "group", "run", "topics", "AP"]
    assert text.splitlines()[2].split("\t")[2] == best
    # the organizers' leaderboard is the stored scoring
    lb = c.leaderboard("tr")
    assert {e["name"] for e in lb["systems"]} == {"alpha/run1", "beta/run1"}
    assert lb["ranking"][0]["f1"] == max(w["mean"]["AP"] for w in want)
    capsys.readouterr()
    assert main(["--db", url, "task", "leaderboard"]) == 0
    assert best in capsys.readouterr().out


TRIAGE_REF = "p1\t1\np2\t0\np3\t1\np4\t0\np5\t1\np6\t0\np7\t1\np8\t0\n"
TRIAGE_RUN = "p1\t1\t0.9\np2\t1\t0.8\np3\t0\t0.4\np4\t0\t0.1\np5\t1\t0.7\np6\t0\t0.2\np7\t1\t0.6\n"
RANKED_REF = "p1\tP12345\np1\tQ99999\np2\tP11111\np3\tP22222\n"
RANKED_RUN = "p1\tP12345\t0.9\np1\tP00000\t0.5\np2\tP11111\t0.8\np3\tP33333\t0.3\n"


@pytest.mark.parametrize(
    ("metric", "ref", "run", "bad", "want_bad"),
    [
        ("triage", TRIAGE_REF, TRIAGE_RUN, "p1\t1\t0.9\np2\tmaybe\t0.5\n",
         "2: 'maybe' is neither positive (1, yes, DR...) nor negative (0, no, NR...)"),
        ("ranked", RANKED_REF, RANKED_RUN, "p1\tP1\t0.9\np2\tP2\n", "2: expected 3 tab-separated fields, got 2"),
    ],
)  # fmt: skip
def test_triage_and_ranked_tasks_score_as_evaluate(
    capsys: Cap, tmp_path: Path, metric: str, ref: str, run: str, bad: str, want_bad: str
) -> None:
    url, c = _project(tmp_path, qrels=False)
    c.create_task("t", release="v1", split="test", metric=metric)
    c.add_team("t", "alpha", ["alpha-1"])
    (tmp_path / "ref.tsv").write_text(ref, "utf-8")
    (tmp_path / "run.tsv").write_text(run, "utf-8")
    (tmp_path / "bad.tsv").write_text(bad, "utf-8")
    with pytest.raises(FormatError) as exc:
        c.submit_run("t", "alpha", [tmp_path / "bad.tsv"])
    assert [f"{p.file}:{p.line}: {p.message}" for p in exc.value.problems] == [
        f"{tmp_path / 'bad.tsv'}:{want_bad}"
    ]
    assert c.task_runs("t") == []
    # by the command line, as an organizer does
    assert main(["--db", url, "task", "submit", "alpha", str(tmp_path / "run.tsv")]) == 0
    capsys.readouterr()
    assert main(["--db", url, "task", "score"]) == 4  # a reference is needed: one line says so
    assert "--reference" in capsys.readouterr().err
    board = _json(capsys, "--db", url, "task", "score", "-f", "json", "-B", "0", "--reference",
                  str(tmp_path / "ref.tsv"))  # fmt: skip
    want = _json(capsys, "--db", url, "-f", "json", "evaluate", metric, str(tmp_path / "ref.tsv"),
                 str(tmp_path / "run.tsv"))  # fmt: skip
    assert isinstance(board, dict) and isinstance(want, dict)
    assert board["systems"][0]["scores"] == want["systems"][0]["scores"]
    assert board["systems"][0]["figures"] == want["systems"][0]["figures"]
    assert board["ranking"][0]["system"] == "alpha/run1" and board["ranking"][0]["group"] == 1


def test_a_member_hands_in_a_triage_run_and_the_intake_stores_or_refuses_it(
    capsys: Cap, tmp_path: Path, any_url: str
) -> None:
    """Team mode's path: a member hands in the one file; the organizers' intake reads it as
    ``task submit`` does (a malformed one refused with the file's name and line)."""
    url, c = _project(tmp_path, qrels=False, url=any_url)
    c.create_task("t", release="v1", split="test", metric="triage")
    c.add_team("t", "alpha", ["alpha-1"])
    (tmp_path / "run.tsv").write_text(TRIAGE_RUN, "utf-8")
    (tmp_path / "bad.tsv").write_text("p1\t1\t0.9\np9\t0\t0.1\n", "utf-8")
    member = c.as_user("alpha-1")
    member.hand_in_run("t", "alpha", [tmp_path / "bad.tsv"])
    member.hand_in_run("t", "alpha", [tmp_path / "run.tsv"], run="good")
    got = c.intake_runs("t")
    assert [(g["status"], g["run"]) for g in got] == [("refused", None), ("stored", "good")]
    assert got[0]["problems"] == ["bad.tsv:2: error: document p9 is not in the test split of v1"]
    (tmp_path / "ref.tsv").write_text(TRIAGE_REF, "utf-8")
    body = c.score_task("t", bootstrap=0, reference=tmp_path / "ref.tsv")
    assert [r["system"] for r in body["ranking"]] == ["alpha/good"]
    capsys.readouterr()
    assert main(["--db", url, "task", "leaderboard"]) == 0
    assert "alpha/good" in capsys.readouterr().out
