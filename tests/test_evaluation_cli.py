"""``corpusdb evaluate``: files without a database, a release split and prediction sets in the store,
every output format, errors as one line with the right exit code."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from tests.conftest import shared_path
from tests.test_evaluation_biorelex import HERE, official

RE_ALL = "Relation Extraction (all)"
GOLD = str(HERE / "biorelex_gold.json")
PRED = str(HERE / "biorelex_pred.json")


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    cap = capsys.readouterr()
    return code, cap.out, cap.err


def counts(body: dict, system: int = 0) -> dict[str, dict[str, int]]:
    return {s["name"]: {k: s[k] for k in ("tp", "fn", "fp")} for s in body["systems"][system]["scores"]}


def test_biorelex_files_json_has_the_official_counts(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "-f", "json", "evaluate", "biorelex", GOLD, PRED)
    assert code == 0
    body = json.loads(out)
    assert body["schema"] == "corpusdb.evaluation/1" and body["task"] == "biorelex"
    assert body["unanswered_policy"]["answered_only"] is False
    got = counts(body)
    for name, c in official("biorelex_official_all_scores.txt")["biorelex_pred.json"].items():
        if name != "Entity Mentions (flat)":
            assert got[name] == c, name


def test_several_systems_rank_and_are_tested(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    nested = str(HERE / "biorelex_pred_nested.json")
    code, out, _ = run(capsys, "evaluate", "biorelex", GOLD, PRED, nested, "-B", "100", "--test-resamples", "200",
                       "-f", "json", "--answered-only")  # fmt: skip
    assert code == 0
    body = json.loads(out)
    assert [r["system"] for r in body["ranking"]] == ["biorelex_pred", "biorelex_pred_nested"]
    test = body["paired_tests"][0]
    assert test["method"] == "approximate_randomization" and 0 < test["p_value"] <= 1
    assert body["systems"][1]["unanswered"] == 1 and body["unanswered_policy"]["answered_only"] is True
    row = body["systems"][0]["scores"][0]
    assert row["ci"]["f1"]["low"] <= row["f1"] <= row["ci"]["f1"]["high"]
    # text says the policy; Markdown and HTML files by suffix
    code, out, _ = run(capsys, "evaluate", "biorelex", GOLD, PRED, nested)
    assert "unanswered documents count as misses" in out and "Ranking by" in out
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    assert run(capsys, "evaluate", "biorelex", GOLD, PRED, "-o", str(md))[0] == 0
    assert (
        md.read_text().startswith("# Evaluation: biorelex")
        and "| Entity Mentions * | 17 | 1 | 0 |" in md.read_text()
    )
    assert run(capsys, "evaluate", "biorelex", GOLD, PRED, nested, "-o", str(html))[0] == 0
    page = html.read_text()
    # one figure with both systems side by side (it was one chart per system)
    assert page.count("<svg") == 1 and "systems side by side" in page
    assert "biorelex_pred" in page and "biorelex_pred_nested" in page


def test_release_split_and_prediction_sets_in_the_store(
    capsys: pytest.CaptureFixture[str], sqlite_url: str, tmp_path: Path
) -> None:
    c = Corpus.create("bx", "biorelex-1.0", url=sqlite_url)
    c.import_biorelex(GOLD, kind="gold")
    c.import_biorelex(PRED, "tagger", kind="prediction")
    c.split(ratios=(0.5, 0.5), names=("train", "test"), seed=1)
    c.release("v1")
    code, out, err = run(capsys, "--db", sqlite_url, "-f", "json", "evaluate", "biorelex", "--release", "v1",
                         "--system", "tagger")  # fmt: skip
    assert code == 0, err
    body = json.loads(out)
    assert body["reference"] == {"name": "release v1", "documents": 4}
    file_body = json.loads(run(capsys, "-f", "json", "evaluate", "biorelex", GOLD, PRED)[1])
    # A release keeps no format extras, so a name marked is_mentioned without any mention (t.3's
    # "p53-MDM2 complex", made up for this fixture) becomes a name that is not mentioned: its label-0
    # interaction then has no name pair, which the official "all" rule counts as found. Every other
    # count is the same. (First-class entities will carry the flag; see corpusdb.evaluation.adapters.)
    got, want = counts(body), counts(file_body)
    assert got[RE_ALL] == {**want[RE_ALL], "tp": want[RE_ALL]["tp"] + 1, "fn": want[RE_ALL]["fn"] - 1}
    assert {k: v for k, v in got.items() if k != RE_ALL} == {k: v for k, v in want.items() if k != RE_ALL}
    # the project's gold sets keep the flag: identical counts
    code, out, _ = run(
        capsys, "--db", sqlite_url, "-f", "json", "evaluate", "biorelex", "--gold", "-s", "tagger"
    )
    assert code == 0 and counts(json.loads(out)) == want
    test_docs = c.evaluation_data(release="v1", split="test").reference
    code, out, _ = run(capsys, "--db", sqlite_url, "-f", "json", "evaluate", "biorelex", "--release", "v1",
                       "--split", "test", "--system", "tagger", PRED)  # fmt: skip
    body = json.loads(out)
    assert code == 0 and body["reference"]["documents"] == len(test_docs) < 4
    assert counts(body, 0) == counts(body, 1)  # the store's predictions and the same file agree
    # gold as the reference, an unknown system: not found
    assert run(capsys, "--db", sqlite_url, "evaluate", "biorelex", "--gold", "-s", "nobody")[0] == 3


def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[\n{", encoding="utf-8")
    code, _, err = run(capsys, "evaluate", "biorelex", GOLD, str(bad))
    assert code == 4 and "bad.json: line 2" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, "evaluate", "biorelex", GOLD, PRED, "--split", "test")
    assert code == 2 and "--split needs --release or --gold" in err
    code, _, err = run(capsys, "evaluate", "biorelex", GOLD)
    assert code == 2 and "nothing to evaluate" in err


def test_triage_and_ranked_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    ref = tmp_path / "ref.tsv"
    ref.write_text("d1\t1\nd2\t1\nd3\t0\nd4\t1\nd5\t0\nd6\t0\n", encoding="utf-8")
    runf = tmp_path / "run.tsv"
    runf.write_text("d1\t1\t0.9\nd2\t0\t0.2\nd3\t1\t0.8\nd4\t1\t0.7\nd5\t0\t0.1\n", encoding="utf-8")
    code, out, _ = run(capsys, "-f", "json", "evaluate", "triage", str(ref), str(runf))
    f = json.loads(out)["systems"][0]["figures"]
    assert code == 0 and f["utility"] == pytest.approx(39 / 60) and f["auc_ipr"] == pytest.approx(5 / 9)
    code, out, _ = run(capsys, "-f", "json", "evaluate", "triage", str(ref), str(runf), "-B", "200")
    ci = json.loads(out)["systems"][0]["figures_ci"]
    assert ci["mcc"]["low"] <= f["mcc"] <= ci["mcc"]["high"] and "auc_ipr" in ci and "utility" in ci
    iref = tmp_path / "int.tsv"
    iref.write_text("A\tP1\nA\tP2\nA\tP3\nB\tQ1\nC\tR1\n", encoding="utf-8")
    irun = tmp_path / "int_run.tsv"
    irun.write_text(
        "A\tP1\t0.9\nA\tX\t0.8\nA\tP2\t0.7\nA\tY\t0.6\nB\tQ1\t0.5\nB\tZ\t0.95\n", encoding="utf-8"
    )
    code, out, _ = run(capsys, "-f", "json", "evaluate", "ranked", str(iref), str(irun), "-n", "2")
    s = json.loads(out)["systems"][0]["scores"][0]
    assert code == 0 and (s["tp"], s["fn"], s["fp"]) == (2, 3, 2)
    html = tmp_path / "t.html"
    assert run(capsys, "evaluate", "ranked", str(iref), str(irun), "-o", str(html))[0] == 0
    assert "Precision/recall curve" in html.read_text()
    runf.write_text("d1\t1\tx\n", encoding="utf-8")
    code, _, err = run(capsys, "evaluate", "triage", str(ref), str(runf))
    assert code == 4 and "run.tsv: line 1: confidence 'x' is not a number" in err


@pytest.mark.shared
def test_bb_and_rename_folders(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    src = shared_path("data", "bionlp-st-2011-bb-train")
    code, out, _ = run(capsys, "-f", "json", "evaluate", "bb", str(src), str(src))
    assert code == 0
    for s in json.loads(out)["systems"][0]["scores"]:
        assert s["precision"] == 1.0 and s["recall"] == 1.0
    one = tmp_path / "one"
    one.mkdir()
    for ext in ("txt", "a2"):
        shutil.copy(src / f"BTID-10080.{ext}", one / f"BTID-10080.{ext}")
    code, out, _ = run(capsys, "-f", "json", "evaluate", "bb", str(src), str(one))
    body = json.loads(out)["systems"][0]
    assert body["unanswered"] == 64
    allrow = next(s for s in body["scores"] if s["name"] == "all")
    assert allrow["tp"] == 18 and allrow["fp"] == 0 and allrow["fn"] == 1018 - 18
    code, out, _ = run(capsys, "-f", "json", "evaluate", "bb", str(src), str(one), "--answered-only")
    allrow = next(s for s in json.loads(out)["systems"][0]["scores"] if s["name"] == "all")
    assert allrow["recall"] == 1.0
    ren = shared_path("data", "bionlp-st-2011-rename-train")
    code, out, _ = run(capsys, "-f", "json", "evaluate", "rename", str(ren), str(ren))
    assert code == 0 and json.loads(out)["systems"][0]["scores"][0]["tp"] == 308


@pytest.mark.shared
def test_ner_from_the_store_equals_ner_from_folders(
    capsys: pytest.CaptureFixture[str], sqlite_url: str
) -> None:
    root = shared_path("data", "bratiaa-example-project")
    c = Corpus.create("ner", "conll-ner", url=sqlite_url)
    c.import_brat(root / "Lisa", kind="gold")
    c.import_brat(root / "Max", "max", kind="prediction")
    args = ["-f", "json", "evaluate", "ner", "-c", "fragment"]
    code, out, err = run(capsys, "--db", sqlite_url, *args, "--gold", "-s", "max")
    assert code == 0, err
    stored = json.loads(out)
    files = json.loads(run(capsys, *args, str(root / "Lisa"), str(root / "Max"))[1])
    assert counts(stored) == counts(files)
    row = next(s for s in files["systems"][0]["scores"] if s["name"] == "all")
    exact = json.loads(run(capsys, "-f", "json", "evaluate", "ner", str(root / "Lisa"), str(root / "Max"))[1])
    erow = next(s for s in exact["systems"][0]["scores"] if s["name"] == "all")
    assert row["tp"] >= erow["tp"]  # per-token credit never takes away an exact match
    # as an annotator: refused (exit 5), naming nothing hidden
    c.add_annotator("alice")
    assert run(capsys, "--db", sqlite_url, "--as", "alice", "evaluate", "ner", "--gold", "-s", "max")[0] == 5


def test_ner_folders_with_genetag_alternatives_and_core_terms(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = "Levels of the p21ras proteins rose."
    gold, pred = tmp_path / "gold", tmp_path / "pred"
    gold.mkdir()
    pred.mkdir()
    for d in (gold, pred):
        (d / "a.txt").write_text(text, encoding="utf-8")
    (gold / "a.ann").write_text(
        "T1\tprotein 10 29\tthe p21ras proteins\nT2\tprotein 14 20\tp21ras\nA1\tAlternativeOf T2 T1\n"
        "T3\tprotein 14 20\tp21ras\nA2\tCoreOf T3 T1\n",
        encoding="utf-8",
    )
    (pred / "a.ann").write_text("T1\tprotein 14 29\tp21ras proteins\n", encoding="utf-8")

    def all_row(*extra: str) -> dict:
        out = run(capsys, "-f", "json", "evaluate", "ner", str(gold), str(pred), *extra)[1]
        return next(s for s in json.loads(out)["systems"][0]["scores"] if s["name"] == "all")

    # one reference mention (the alternative and the core are not mentions of their own)
    assert (all_row()["tp"], all_row()["fn"], all_row()["fp"]) == (0, 1, 1)
    # core term: "p21ras proteins" covers the core "p21ras" and lies inside "the p21ras proteins"
    assert all_row("-c", "core")["tp"] == 1
    # fragment: tokens of the best boundary, "p21ras" (1 of 2 shared) or the main one (2 of 3): 2/3
    assert all_row("-c", "fragment")["tp"] == pytest.approx(2 / 3)
