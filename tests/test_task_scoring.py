"""Shared tasks scored with every metric whose runs are standoff files (issue 28): ``biorelex`` and
``ner`` beside ``bb`` and ``rename``, each equal to ``corpusdb evaluate METRIC`` on the same sets, and
the false positives and negatives a team reads in its feedback, adding up to its counts.

Also BioRelEx through brat: the standoff writer writes a relation's label and tags as attributes;
read back with the schema they are the label and tags again (the ``implicit`` flag round-trips), so
a BioRelEx run in brat passes the participants' validator and the intake."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
HERE = Path(__file__).resolve().parent / "fixtures"
GOLD = HERE / "evaluation" / "biorelex_gold.json"
PRED = HERE / "evaluation" / "biorelex_pred.json"
MINI = HERE / "bb2011-mini"


def _counts(body: dict[str, Any]) -> dict[str, tuple[float, float, float]]:
    return {s["name"]: (s["tp"], s["fn"], s["fp"]) for s in body["systems"][0]["scores"]}


def test_biorelex_label_and_implicit_round_trip_through_brat(tmp_path: Path) -> None:
    c = Corpus.create("bx", "biorelex-1.0", url=f"sqlite:///{tmp_path / 'b.sqlite'}")
    c.import_biorelex(GOLD, kind="gold")
    c.export_brat(tmp_path / "brat", gold=True, flat=True)
    assert "implicit R" in "".join(p.read_text("utf-8") for p in (tmp_path / "brat").glob("*.ann"))
    c.import_brat(tmp_path / "brat", "again", kind="prediction")  # refused before: 'label', 'implicit'
    data = c.evaluation_data(systems=["again"])

    def rels(sets: dict[str, Any]) -> list[tuple[str, str, int | None, tuple[str, ...]]]:
        return sorted((d, r.type, r.label, r.tags) for d, a in sets.items() for r in a.relations)

    got, want = rels(data.systems["again"]), rels(data.reference)
    # every relation comes back with its label and tags but t.3's one on a name without a mention,
    # which brat cannot write (the export says so)
    assert Counter(got) <= Counter(want) and len(want) - len(got) == 1
    assert any("implicit" in r[3] for r in got) and {r[2] for r in got} == {1, -1}
    # the participants' validator reads the same files the same way
    from guidelines.schema import load_schema
    from guidelines.submission import check_submission

    errors = check_submission(load_schema("biorelex-1.0"), tmp_path / "brat").errors
    # only the fixture's own duplicate pair (BioRelEx has them); no attribute 'label' or 'implicit'
    assert [p.message for p in errors] == ["relation R3: duplicate of R1 (same type bind and arguments)"]


def test_a_biorelex_task_scores_as_evaluate_biorelex(capsys: Cap, tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'b.sqlite'}"
    c = Corpus.create("bx", "biorelex-1.0", url=url)
    c.import_biorelex(GOLD, kind="gold")
    c.import_biorelex(PRED, "tagger", kind="prediction")
    c.split(ratios=(0.5, 0.5), names=("train", "test"), seed=1)
    assert main(["--db", url, "release", "v1", "--blind", "test", "--out", str(tmp_path / "rel")]) == 0
    c.export_brat(tmp_path / "exp", "tagger", kind="prediction", flat=True)  # the tagger's run, as brat
    run = tmp_path / "run"
    run.mkdir()
    for t in (tmp_path / "rel" / "participants" / "texts").glob("*.txt"):
        shutil.copy(tmp_path / "exp" / f"{t.stem}.ann", run / f"{t.stem}.ann")
    c.create_task("st", release="v1", split="test", metric="biorelex")
    c.add_team("st", "alpha", ["alpha-1"])
    c.submit_run("st", "alpha", [run])
    capsys.readouterr()
    assert main(["--db", url, "task", "score", "-B", "20", "-f", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    assert main(["--db", url, "-f", "json", "evaluate", "biorelex", "--release", "v1", "--split", "test",
                 "--system", "tagger"]) == 0  # fmt: skip
    want = _counts(json.loads(capsys.readouterr().out))
    assert _counts(board) == want and board["headline"] == "Relation Extraction (any)"
    # feedback: the relation errors, one false negative per missed interaction, one false positive
    # per unmatched predicted name pair, as the official counting
    errors = c.feedback("st", "alpha")[0]["errors"]
    _, fn, fp = want["Relation Extraction (any)"]
    assert (len(errors["false_negatives"]), len(errors["false_positives"])) == (fn, fp) and fn + fp > 0
    # a member reads them once the phase has ended: false negatives are reference items of the
    # blind split, hidden while runs are taken
    capsys.readouterr()
    assert main(["--db", url, "--as", "alpha-1", "task", "feedback", "alpha"]) == 0
    text = capsys.readouterr().out
    assert "hidden until the test phase ends" in text and errors["false_negatives"][0]["item"] not in text
    c.end_phase("st")
    assert main(["--db", url, "--as", "alpha-1", "task", "feedback", "alpha"]) == 0
    text = capsys.readouterr().out
    assert f"missed (false negatives): {fn:g}" in text and f"wrong (false positives): {fp:g}" in text
    assert errors["false_negatives"][0]["item"] in text


def test_a_ner_task_scores_as_evaluate_ner(capsys: Cap, tmp_path: Path) -> None:
    """BB 2011's entities as a NER task: runs of .ann spans, exact criterion with types."""
    db = str(tmp_path / "n.sqlite")
    for args in (["init", "bb", "--schema", "bb-2011"], ["import", "brat", str(MINI), "--kind", "gold"],
                 ["split", "--ratios", "50/50", "--names", "train/test"],
                 ["release", "v1", "--blind", "test", "--out", str(tmp_path / "rel")],
                 ["task", "create", "ner", "--release", "v1", "--split", "test", "--metric", "ner"],
                 ["task", "team", "add", "alpha", "--member", "alpha-1"]):  # fmt: skip
        assert main(["--db", db, *args]) == 0, args
    run = tmp_path / "run"
    run.mkdir()
    docs = [t.stem for t in (tmp_path / "rel" / "participants" / "texts").glob("*.txt")]
    for d in docs:  # the gold's entities with one dropped and one shifted by a character
        lines = [ln for ln in (MINI / f"{d}.a2").read_text("utf-8").splitlines() if ln.startswith("T")]
        tid, rest, text = lines[1].split("\t")
        typ, a, b = rest.split()
        lines[1] = f"{tid}\t{typ} {a} {int(b) - 1}\t{text[:-1]}"
        (run / f"{d}.ann").write_text("\n".join(lines[:-1]) + "\n", "utf-8")
    capsys.readouterr()
    assert main(["--db", db, "task", "submit", "alpha", str(run)]) == 0, capsys.readouterr()
    capsys.readouterr()
    assert main(["--db", db, "task", "score", "-B", "20", "-f", "json"]) == 0
    board = json.loads(capsys.readouterr().out)
    with_texts = tmp_path / "eval"
    shutil.copytree(run, with_texts)
    for d in docs:
        shutil.copy(tmp_path / "rel" / "participants" / "texts" / f"{d}.txt", with_texts / f"{d}.txt")
    assert main(["--db", db, "-f", "json", "evaluate", "ner", "--release", "v1", "--split", "test",
                 str(with_texts)]) == 0  # fmt: skip
    want = _counts(json.loads(capsys.readouterr().out))
    assert _counts(board) == want
    c = Corpus.open(url=f"sqlite:///{db}")
    errors = c.feedback("ner", "alpha")[0]["errors"]
    assert len(errors["false_negatives"]) == want["all"][1] == 2 * len(docs)  # the dropped and the shifted
    assert len(errors["false_positives"]) == want["all"][2] == len(docs)  # the shifted one


def test_the_bb_feedback_lists_add_up_to_the_counts(tmp_path: Path) -> None:
    """BB 2011's similarity gives partial credit: each listed item carries its credit, and the lists'
    Σ(1 - credit) are the fn and fp of the score; the teams' leaderboard never shows the lists."""
    from tests.test_task_shared import _small_task

    c, docs = _small_task(tmp_path)
    run = tmp_path / "run"
    run.mkdir()
    for d in docs:  # every event kept, one location shortened by a character: partial credit
        body = (MINI / f"{d}.a2").read_text("utf-8")
        tline = next(
            ln
            for ln in body.splitlines()
            if ln.startswith("T") and ln.split("\t")[1].split()[0] not in ("Bacterium",)
        )
        tid, rest, text = tline.split("\t")
        typ, a, b = rest.split()
        (run / f"{d}.a2").write_text(
            body.replace(tline, f"{tid}\t{typ} {a} {int(b) - 1}\t{text[:-1]}"), "utf-8"
        )
    c.submit_run("st", "alpha", [run])  # type: ignore[attr-defined]
    body = c.score_task("st", bootstrap=10, test_resamples=10)  # type: ignore[attr-defined]
    row = next(s for s in body["systems"][0]["scores"] if s["name"] == "all")
    errors = c.feedback("st", "alpha")[0]["errors"]  # type: ignore[attr-defined]
    assert errors["false_negatives"] and 0 < errors["false_negatives"][0]["credit"] < 1
    assert sum(1 - e["credit"] for e in errors["false_negatives"]) == pytest.approx(row["fn"])
    assert sum(1 - e["credit"] for e in errors["false_positives"]) == pytest.approx(row["fp"])
    c.end_phase("st")  # type: ignore[attr-defined]
    member = Corpus.open(url=str(c.engine.url), user="alpha-1")  # type: ignore[attr-defined]
    board = member.leaderboard("st")
    assert board["systems"] and all("errors" not in e for e in board["systems"])
