"""Output that says what it means (issue #26): status's splits, judgments agree without variation,
split's ratios without names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from corpusdb.cli.main import main
from corpusdb.relevance.kappa import doubled_agreement

Cap = pytest.CaptureFixture[str]
FIXTURE = Path(__file__).parent / "fixtures" / "first-project"


def test_kappa_without_variation_says_so() -> None:
    res = doubled_agreement([("NR", "NR")] * 5)
    assert res["three_way"]["kappa"] is None and res["three_way"]["ci"] is None
    assert res["three_way"]["observed"] == 1.0
    assert "no variation: every judgment is NR" in res["three_way"]["note"]
    mixed = doubled_agreement([("DR", "DR"), ("NR", "NR"), ("PR", "NR")])
    assert mixed["three_way"]["kappa"] is not None and mixed["three_way"]["note"] is None


def test_status_and_split_wording(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Cap) -> None:
    monkeypatch.chdir(tmp_path)
    shutil.copytree(FIXTURE / "alice", tmp_path / "alice")
    assert main(["init", "w", "--schema", "bb-2011"]) == 0
    assert main(["import", "texts", "alice"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    first = capsys.readouterr().out.splitlines()[0]
    assert first.endswith("3 documents, not split yet (corpusdb split)") and "(none)" not in first
    assert main(["split", "--ratios", "80/20"]) == 2
    assert "e.g. --names train/test" in capsys.readouterr().err
    assert main(["split", "--ratios", "67/33", "--names", "train/test", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["status"]) == 0
    assert "3 documents; splits: test 1, train 2" in capsys.readouterr().out.splitlines()[0]


def test_rejected_import_and_absent_decisions_are_told_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Cap
) -> None:
    """An import the tool would not store is "rejected"; an item decided out of gold is "absent"."""
    monkeypatch.chdir(tmp_path)
    for who in ("alice", "bob"):
        shutil.copytree(FIXTURE / who, tmp_path / who)
    assert main(["init", "w", "--schema", "bb-2011"]) == 0
    assert main(["annotator", "add", "alice", "bob"]) == 0
    assert main(["import", "texts", "alice"]) == 0
    assert main(["assign", "-n", "2", "--seed", "1"]) == 0
    capsys.readouterr()
    assert main(["import", "brat", "alice", "-a", "alice"]) == 6  # the empty assigned sets differ
    err = capsys.readouterr().err.splitlines()[-1]
    assert (
        err
        == "corpusdb: error: import rejected, nothing was stored: 3 clashes with what is stored in 3 files (listed above)"
    )
    assert main(["import", "brat", "alice", "-a", "alice", "--replace"]) == 0
    assert main(["import", "brat", "bob", "-a", "bob", "--replace"]) == 0
    assert main(["adjudicate"]) == 0
    capsys.readouterr()
    assert main(["adjudicate", "doc2", "-k", "span:61-64", "--none", "-r", "not a host part here"]) == 0
    assert capsys.readouterr().out.startswith("doc2 span:61-64: decided absent (not in gold)")
    assert main(["adjudicate", "--take", "alice", "--all", "-r", "bulk"]) == 0
    out = capsys.readouterr().out
    assert "refused" not in out and "not taken 0 (alice has nothing there)" in out


def test_links_report_has_no_empty_type_table_nor_span_notes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: Cap
) -> None:
    """A links report on a corpus without links prints no empty per-type table, and never says
    "one-sided: spans" (a spans-only count) under a links report."""
    monkeypatch.chdir(tmp_path)
    for who in ("alice", "bob"):
        shutil.copytree(FIXTURE / who, tmp_path / who)
    assert main(["init", "w", "--schema", "bb-2011"]) == 0
    assert main(["import", "brat", "alice", "-a", "alice"]) == 0
    assert main(["import", "brat", "bob", "-a", "bob"]) == 0
    capsys.readouterr()
    assert main(["agree", "-l", "links"]) == 0
    out = capsys.readouterr().out
    assert "Per rater" in out and "Per type" not in out and "one-sided: spans" not in out
    assert main(["agree"]) == 0
    spans = capsys.readouterr().out
    assert "Per type" in spans and "one-sided: spans no other rater marked" in spans
