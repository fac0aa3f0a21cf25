"""The pool takes what the scorer ranks first (issue 22.14): trec_eval ranks a run by score (equal
scores: the larger document id first, byte by byte) and ignores the rank column, so pooling by rank
could leave a document the scorer puts first unjudged, counted as not relevant. Pooling now follows
trec_eval's order, checked here against pytrec_eval (trec_eval's own code, through ir-measures), and
a run whose ranks and scores disagree is named on stderr wherever it is read."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from corpusdb.relevance.pooling import pool_pairs, rank_disorder, trec_order
from corpusdb.relevance.records import QrelLine, RunLine
from corpusdb.relevance.runs import read_run
from corpusdb.relevance.scoring import score_run
from corpusdb.relevance.topics import read_topics

TREC = Path(__file__).resolve().parent / "fixtures" / "trec"
# runC's rank column says p4, p2, p6, p5 for topic 1; its scores say p6, p5 (equal: the larger id
# first), p2, p4. Topic 2 agrees. Its top 2 by score, the pool's and the scorer's: p6, p5; p7, p8.
RUN_C = """1 Q0 p4 1 0.1 runC
1 Q0 p2 2 0.2 runC
1 Q0 p6 3 0.9 runC
1 Q0 p5 4 0.9 runC
2 Q0 p7 1 0.8 runC
2 Q0 p8 2 0.3 runC
"""
WARNING = ("warning: run runC: its rank column and its scores order the documents differently in 1 of 2 "
           "topic(s) (topic 1, position 1: rank says p4, score says p6); pooled and scored by score, as "
           "trec_eval does\n")  # fmt: skip


def test_trec_order_is_the_order_trec_eval_scores_by() -> None:
    """For each document, qrels that make only it relevant: trec_eval's reciprocal rank is one over
    its position in trec_eval's own order; ``trec_order`` must give the same position. Ties on the
    score and ids that sort differently by locale, case or length are the cases that matter."""
    docs = ["p10", "p9", "P1", "p2", "p1", "é1", "e1", "p1a"]
    run = [RunLine("1", d, i + 1, 1.0 if d != "p2" else 3.5, "tie") for i, d in enumerate(docs)]
    order = [r.doc for r in trec_order(run)]
    assert order == ["p2", "é1", "p9", "p1a", "p10", "p1", "e1", "P1"]  # then UTF-8 bytes, descending
    for pos, d in enumerate(order, 1):
        got = score_run([QrelLine("1", d, 1)], run, ["RR"]).mean["RR"]
        assert got == pytest.approx(1 / pos), (d, pos, got)
    assert rank_disorder(run) == {"1": (1, "p10", "p2")}
    assert rank_disorder(trec_order(run)) == {"1": (1, "p10", "p2")}  # the list order is not the rank
    ranked = [RunLine(r.topic, r.doc, i + 1, r.score, r.tag) for i, r in enumerate(trec_order(run))]
    assert rank_disorder(ranked) == {}
    # equal ranks say nothing about their order: no disorder
    assert rank_disorder([RunLine("1", "a", 1, 0.5, "t"), RunLine("1", "b", 1, 0.7, "t")]) == {}


def test_pool_takes_the_top_by_score_and_the_scores_agree_with_it(
    any_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_c = tmp_path / "runC.run"
    run_c.write_text(RUN_C)
    lines = read_run(run_c)
    assert set(pool_pairs({"runC": lines}, ["1", "2"], depth=2)) == {("1", "p6"), ("1", "p5"), ("2", "p7"),
                                                                      ("2", "p8")}  # fmt: skip
    c = Corpus.create("trec", "trec-relevance", url=any_url)
    c.add_annotator("alice")
    c.import_texts(TREC / "docs")
    c.add_topics(read_topics(TREC / "topics.xml"))
    base = ["--db", any_url]
    code = main([*base, "runs", "import", str(TREC / "runA.run")])
    assert code == 0 and capsys.readouterr().err == ""  # ranks that follow the scores: nothing to say
    code = main([*base, "runs", "import", str(run_c)])
    assert code == 0 and capsys.readouterr().err == WARNING
    code = main([*base, "-f", "json", "pool", "-k", "2", "-n", "1", "-r", "runC", "--seed", "3"])
    cap = capsys.readouterr()
    assert code == 0 and cap.err == WARNING
    pooled = json.loads(cap.out)
    assert {(u["topic"], u["doc"]) for u in pooled["units"]} == {
        ("1", "p6"),
        ("1", "p5"),
        ("2", "p7"),
        ("2", "p8"),
    }
    assert pooled["warnings"] == [WARNING.removeprefix("warning: ").rstrip("\n")]
    alice = c.as_user("alice")
    for j in alice.judgments():  # every pooled document is relevant
        alice.judge(j.topic, j.doc, "DR", submit=True)
    # the scorer's top 2 of runC are the judged ones: P@2 is 1 in both topics (pooled by rank, p4 and
    # p2 would have been judged instead, and topic 1's P@2 would be 0)
    [scores] = c.score_runs(["runC"], measures=["P@2", "RR"])
    assert scores.per_topic == {"1": {"P@2": 1.0, "RR": 1.0}, "2": {"P@2": 1.0, "RR": 1.0}}
    qrels = tmp_path / "qrels.txt"
    assert main([*base, "qrels", "export", str(qrels)]) == 0
    capsys.readouterr()
    code = main([*base, "-f", "json", "evaluate", "trec", str(qrels), str(run_c), "-m", "P@2", "--per-topic"])
    cap = capsys.readouterr()
    assert code == 0 and cap.err == WARNING
    [got] = json.loads(cap.out)
    assert got["per_topic"] == {"1": {"P@2": 1.0}, "2": {"P@2": 1.0}}
    code = main([*base, "-f", "json", "runs", "score", "runC", "-m", "P@2"])
    cap = capsys.readouterr()
    assert code == 0 and json.loads(cap.out)[0]["mean"] == {"P@2": 1.0}


def test_equal_scores_pool_the_larger_id_and_a_tie_out_of_order_is_named(any_url: str) -> None:
    """Found in SQL (on PostgreSQL its ids compare byte by byte, not by the locale): a tie whose ranks
    put the smaller id first disagrees with trec_eval; one whose ranks follow it does not."""
    c = Corpus.create("trec", "trec-relevance", url=any_url)
    c.add_annotator("alice")
    c.import_texts(TREC / "docs")
    c.add_topics(read_topics(TREC / "topics.xml"))
    tie = [
        RunLine("1", "p5", 1, 0.5, "tie"),
        RunLine("1", "p6", 2, 0.5, "tie"),
        RunLine("2", "p8", 1, 0.5, "tie"),
    ]
    fine = [
        RunLine("1", "p6", 1, 0.5, "fine"),
        RunLine("1", "p5", 2, 0.5, "fine"),
        RunLine("1", "p1", 2, 0.1, "fine"),
    ]
    c.add_run(tie)
    c.add_run(fine)
    res = c.pool(depth=1, runs=["tie", "fine"])
    assert {(u.topic, u.doc) for u in res.units} == {("1", "p6"), ("2", "p8")}
    assert res.warnings == (
        "run tie: its rank column and its scores order the documents differently in 1 of 2 topic(s) (topic 1, "
        "position 1: rank says p5, score says p6); pooled and scored by score, as trec_eval does",
    )
