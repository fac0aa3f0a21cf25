"""``evaluate triage`` from the store: gold document labels against systems' prediction sets.

The project is real SQLite (and PostgreSQL, where a server answers) built here: eight documents with gold ``relevance`` labels (d0..d7) and one
gold set without the label (d8, left out), two systems' prediction sets (alpha's confidence in each
label's extra, beta's in its label's attributes and, for one document, in the set's extra), every
figure computed by hand below and equal to what the TSV path gives on the same data.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, DocLabel, Document
from corpusdb.cli.main import main
from corpusdb.evaluation.triage import confidence_of, parse_positive, reference_from_labels, run_from_labels

GOLD = {"d0": "DR", "d1": "PR", "d2": "NR", "d3": "DR", "d4": "NR", "d5": "NR", "d6": "PR", "d7": "NR"}
# (value, confidence); alpha did not answer d7
ALPHA = {"d0": ("DR", 0.9), "d1": ("NR", 0.2), "d2": ("PR", 0.8), "d3": ("PR", 0.7), "d4": ("NR", 0.1),
         "d5": ("NR", 0.3), "d6": ("DR", 0.6)}  # fmt: skip
BETA = {"d0": ("PR", 0.5), "d1": ("DR", 0.9), "d2": ("NR", 0.4), "d3": ("NR", 0.2), "d4": ("DR", 0.95),
        "d5": ("NR", 0.1), "d6": ("PR", 0.6), "d7": ("PR", 0.35)}  # fmt: skip

# By hand, positive = DR or PR; gold positives d0 d1 d3 d6 (AP = 4), negatives d2 d4 d5 d7.
# alpha, unanswered d7 a miss (said negative): TP d0 d3 d6, FP d2, FN d1, TN d4 d5 d7.
#   P = R = F1 = 3/4; accuracy 6/8; specificity 3/4; MCC (3·3 - 1·1)/√(4·4·4·4) = 1/2;
#   U = (20·3 - 1)/(20·4) = 59/80. Said positive by confidence: d0 T, d2 F, d3 T, d6 T: precisions
#   1, 1/2, 2/3, 3/4, interpolated 1, 3/4, 3/4, 3/4; AUC = (1 + 3/4 + 3/4)/4 = 5/8.
# alpha --answered-only (d7 left out): TN d4 d5: accuracy 5/7, specificity 2/3, MCC (6 - 1)/√(4·4·3·3) = 5/12.
# beta: TP d0 d1 d6, FP d4 d7, FN d3, TN d2 d5: P 3/5, R 3/4, F1 2/3, F2 = 5·(3/5)(3/4)/(4·3/5 + 3/4) = 5/7,
#   accuracy 5/8, specificity 1/2, MCC (3·2 - 2·1)/√(5·4·4·3) = 4/√240, U = (60 - 2)/80 = 29/40.
#   By confidence: d4 F, d1 T, d6 T, d0 T, d7 F: precisions 0, 1/2, 2/3, 3/4, 3/5, interpolated
#   3/4, 3/4, 3/4, 3/4, 3/5; AUC = 3·(3/4)/4 = 9/16.
ALPHA_FIGS = {"tp": 3, "fp": 1, "fn": 1, "tn": 3, "precision": 0.75, "recall": 0.75, "f1": 0.75,
              "accuracy": 0.75, "sensitivity": 0.75, "specificity": 0.75, "mcc": 0.5, "utility": 59 / 80,
              "auc_ipr": 5 / 8}  # fmt: skip
BETA_FIGS = {"tp": 3, "fp": 2, "fn": 1, "tn": 2, "precision": 0.6, "recall": 0.75, "f1": 2 / 3, "accuracy": 5 / 8,
             "specificity": 0.5, "mcc": 4 / math.sqrt(240), "utility": 29 / 40, "auc_ipr": 9 / 16}  # fmt: skip


def build(url: str) -> Corpus:
    c = Corpus.create("t", "trec-relevance", url=url)
    docs = [*GOLD, "d8"]
    c.add_documents([Document(d, f"abstract {d}") for d in docs])
    for d, v in GOLD.items():
        c.create_set(
            d,
            None,
            kind="gold",
            status="submitted",
            annotations=Annotations(labels=(DocLabel("relevance", v),)),
        )
    c.create_set("d8", None, kind="gold", status="submitted", annotations=Annotations())
    for name in ("alpha", "beta", "alice"):
        c.add_annotator(name)
    for d, (v, conf) in ALPHA.items():
        ann = Annotations(labels=(DocLabel("relevance", v, {"confidence": conf}),))
        c.create_set(d, "alpha", kind="prediction", status="submitted", annotations=ann)
    for d, (v, conf) in BETA.items():
        if d == "d5":  # the set's extra carries this one's score
            ann = Annotations(labels=(DocLabel("relevance", v),), extra={"score": conf})
        else:
            ann = Annotations(labels=(DocLabel("relevance", v, {"attributes": {"confidence": str(conf)}}),))
        c.create_set(d, "beta", kind="prediction", status="submitted", annotations=ann)
    return c


def tsv(tmp_path: Path) -> tuple[Path, Path, Path]:
    """The same data as the TSV path reads it (document order d0..d7, as the store's)."""
    ref, a, b = tmp_path / "ref.tsv", tmp_path / "alpha.tsv", tmp_path / "beta.tsv"
    ref.write_text("".join(f"{d}\t{v}\n" for d, v in GOLD.items()), encoding="utf-8")
    a.write_text("".join(f"{d}\t{v}\t{c}\n" for d, (v, c) in ALPHA.items()), encoding="utf-8")
    b.write_text("".join(f"{d}\t{v}\t{c}\n" for d, (v, c) in BETA.items()), encoding="utf-8")
    return ref, a, b


def figures(body: dict, name: str) -> dict:
    return next(s for s in body["systems"] if s["name"] == name)["figures"]


def check(got: dict, want: dict) -> None:
    for k, v in want.items():
        assert got[k] == pytest.approx(v), k


def test_the_api_scores_document_labels_by_hand(any_url: str) -> None:
    c = build(any_url)
    body = c.evaluate_triage(
        "relevance", "DR,PR", systems=["alpha", "beta"], beta=2.0, test_resamples=500, seed=3
    )
    assert body["task"] == "triage" and body["reference"] == {"name": "gold", "documents": 8}
    assert body["unanswered_policy"]["answered_only"] is False
    assert "misses" in body["unanswered_policy"]["text"]
    check(figures(body, "alpha"), {**ALPHA_FIGS, "f2": 0.75, "utility_ur": 20.0})
    check(figures(body, "beta"), {**BETA_FIGS, "f2": 5 / 7})
    alpha = body["systems"][0]
    assert alpha["unanswered"] == 1 and alpha["unanswered_ids"] == ["d7"] and alpha["documents"] == 8
    assert [r["system"] for r in body["ranking"]] == ["alpha", "beta"]
    t = body["paired_tests"][0]
    assert (t["a"], t["b"], t["method"]) == ("alpha", "beta", "approximate_randomization")
    assert t["difference"] == pytest.approx(0.75 - 2 / 3) and 0 < t["p_value"] <= 1 and t["documents"] == 8
    assert body["options"]["label"] == "relevance" and body["options"]["positive"] == ["DR", "PR"]
    assert any("d8" in n and "left out" in n for n in body["notes"])
    # --answered-only: alpha's unanswered d7 leaves the scoring, and the body says so
    only = c.evaluate_triage("relevance", ["DR", "PR"], systems=["alpha"], answered_only=True)
    assert only["unanswered_policy"]["answered_only"] is True and only["systems"][0]["documents"] == 7
    check(
        figures(only, "alpha"), {"tn": 2, "accuracy": 5 / 7, "specificity": 2 / 3, "mcc": 5 / 12, "f1": 0.75}
    )
    # the data behind it: gold in document order, d8 unlabelled, beta's confidences from three places
    d = c.triage_data("relevance", "DR,PR", systems=["beta"])
    assert list(d.reference) == list(GOLD) and d.unlabelled == ["d8"]
    assert {k: j.confidence for k, j in d.systems["beta"].items()} == {k: c_ for k, (_, c_) in BETA.items()}


def test_store_and_tsv_give_the_same_figures(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(sqlite_url)
    ref, a, b = tsv(tmp_path)
    common = ["-f", "json", "--beta", "2", "-B", "200", "--seed", "5", "--test-resamples", "300"]
    assert main(["evaluate", "triage", str(ref), str(a), str(b), *common]) == 0
    files = json.loads(capsys.readouterr().out)
    code = main(["--db", sqlite_url, "evaluate", "triage", "--gold", "-s", "alpha", "-s", "beta",
                 "--label", "relevance", "--positive", "DR,PR", *common])  # fmt: skip
    cap = capsys.readouterr()
    assert code == 0, cap.err
    store = json.loads(cap.out)
    for key in ("systems", "ranking", "paired_tests", "unanswered_policy", "bootstrap"):
        assert store[key] == files[key], key
    check(figures(store, "alpha"), ALPHA_FIGS)
    assert store["systems"][0]["figures_ci"]["mcc"]["resamples"] == 200
    # a TSV run beside the store's systems, against the store's reference
    code = main(["--db", sqlite_url, "-f", "json", "evaluate", "triage", "--gold", "-s", "alpha", str(b),
                 "--positive", "DR,PR"])  # fmt: skip
    mixed = json.loads(capsys.readouterr().out)
    assert code == 0 and [s["name"] for s in mixed["systems"]] == ["alpha", "beta"]
    check(figures(mixed, "beta"), BETA_FIGS)


def test_text_markdown_html_say_the_policy(
    sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    build(sqlite_url)
    db = ["--db", sqlite_url, "evaluate", "triage", "--gold", "-s", "alpha,beta", "--positive", "DR,PR"]
    assert main([*db, "--answered-only"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("triage evaluation of alpha, beta against gold (8 documents); only documents")
    assert "Ranking by triage F1" in out and "Paired tests" in out and "mcc" in out
    md, html = tmp_path / "r.md", tmp_path / "r.html"
    assert main([*db, "-o", str(md)]) == 0 and main([*db, "-o", str(html)]) == 0
    assert (
        "unanswered documents count as misses" in md.read_text() and "| utility | 0.7375 |" in md.read_text()
    )
    assert "<svg" in html.read_text() and "misses" in html.read_text()


def test_a_release_split_is_the_reference(any_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    c = build(any_url)
    c.split(ratios=(0.5, 0.5), names=("train", "test"), seed=1)
    c.release("v1", allow_open=True, agreement=False)
    body = c.evaluate_triage("relevance", "DR,PR", systems=["alpha"], release="v1")
    assert body["reference"] == {"name": "release v1", "documents": 8}
    check(figures(body, "alpha"), ALPHA_FIGS)
    test_docs = c.triage_data("relevance", "DR,PR", release="v1", split="test").reference
    assert 0 < len(test_docs) < 8
    code = main(["--db", any_url, "-f", "json", "evaluate", "triage", "--release", "v1", "--split", "test",
                 "-s", "beta", "--positive", "DR,PR"])  # fmt: skip
    body = json.loads(capsys.readouterr().out)
    assert code == 0 and body["reference"]["name"] == "release v1 (test)"
    f = figures(body, "beta")
    want = {k: (GOLD[k] != "NR", BETA[k][0] != "NR") for k in test_docs}
    assert (f["tp"], f["fp"]) == (
        sum(g and s for g, s in want.values()),
        sum(s and not g for g, s in want.values()),
    )


def test_rights_and_errors(sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    c = build(sqlite_url)
    with pytest.raises(PermissionDenied):
        c.as_user("alice").evaluate_triage("relevance", "DR", systems=["alpha"])
    c.add_annotator("judy", "adjudicator")  # an adjudicator may: the same figures as the lead's
    judged = c.as_user("judy").evaluate_triage("relevance", "DR,PR", systems=["alpha"])
    check(figures(judged, "alpha"), ALPHA_FIGS)
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "--as",
                "alice",
                "evaluate",
                "triage",
                "--gold",
                "-s",
                "alpha",
                "--positive",
                "DR",
            ]
        )
        == 5
    )
    capsys.readouterr()
    with pytest.raises(NotFound, match="'topic' label"):
        c.triage_data("topic", "yes", systems=["alpha"])
    with pytest.raises(NotFound, match="'nobody'"):
        c.triage_data("relevance", "DR", systems=["nobody"])
    with pytest.raises(InvalidInput, match="positive"):
        c.triage_data("relevance", " , ", systems=["alpha"])
    with pytest.raises(UsageError, match="at least one system"):
        c.evaluate_triage("relevance", "DR", systems=[])
    db = ["--db", sqlite_url, "evaluate", "triage", "--gold", "-s", "alpha"]
    for args, code, words in (
        ([], 2, "--positive"),
        (["--positive", "DR", "--label", "topic"], 3, "'topic' label"),
    ):
        assert main([*db, *args]) == code
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1
    ref, a, _ = tsv(tmp_path)
    assert main(["evaluate", "triage", str(ref), str(a), "--positive", "DR"]) == 2
    assert "--gold or --release" in capsys.readouterr().err
    # a confidence that is not a number: one line naming the system and the document
    c.add_annotator("gamma")
    c.create_set("d0", "gamma", kind="prediction", status="submitted",
                 annotations=Annotations(labels=(DocLabel("relevance", "DR", {"confidence": "high"}),)))  # fmt: skip
    assert (
        main(["--db", sqlite_url, "evaluate", "triage", "--gold", "-s", "gamma", "--positive", "DR,PR"]) == 4
    )
    err = capsys.readouterr().err
    assert "gamma on d0" in err and "'high'" in err and len(err.strip().splitlines()) == 1


def test_label_records_without_a_database() -> None:
    sets = {"b": Annotations(labels=(DocLabel("relevance", "PR"),)), "a": Annotations(labels=(DocLabel("relevance", "NR"),)),
            "c": Annotations(labels=(DocLabel("other", "DR"),))}  # fmt: skip
    ref, unlabelled = reference_from_labels(sets, "relevance", parse_positive("DR,PR"))
    assert ref == {"a": False, "b": True} and list(ref) == ["a", "b"] and unlabelled == ["c"]
    run = run_from_labels(sets, "relevance", {"NR"}, "sys")
    assert {d: j.positive for d, j in run.items()} == {"a": True, "b": False}
    lb = DocLabel("relevance", "DR", {"score": 0.4, "attributes": {"confidence": 0.9}})
    assert confidence_of(lb, Annotations(extra={"confidence": 0.1}), "x") == 0.4  # the label's own first
    assert confidence_of(DocLabel("relevance", "DR"), Annotations(extra={"confidence": "0.1"}), "x") == 0.1
    assert confidence_of(DocLabel("relevance", "DR"), Annotations(), "x") == 0.0
    with pytest.raises(InvalidInput, match="NaN"):
        confidence_of(DocLabel("r", "DR", {"confidence": "nan"}), Annotations(), "x")
